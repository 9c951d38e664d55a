import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listTransactions } from '../../server/store/transactions.js';
import { createTestDatabase, type TestDatabase } from '../../scripts/proof/database.js';
import { addHolder, addOrganization, addRecords } from '../helpers/ledger.js';

// A ledger page comes back from the database as one JSON value (listTransactions): its integers
// are JSON numbers, which must stay exact as the drivers' int8 parser keeps them. An amount a
// JavaScript number cannot hold exactly is refused, never rounded into another amount.

describe('the integers of a ledger page', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.close();
  });

  const page = (organizationId: string) => listTransactions(database.db, { organizationId, filters: {}, after: undefined, take: 10 });

  it('reads the largest safe amount and date exactly', async () => {
    const organizationId = await addOrganization(database.db);
    const personId = await addHolder(database.db, organizationId);
    await addRecords(database.db, organizationId, [{ personId, authorizationDate: Number.MAX_SAFE_INTEGER, amountCents: Number.MAX_SAFE_INTEGER }]);
    const [record] = await page(organizationId);
    expect(record).toMatchObject({ amountCents: Number.MAX_SAFE_INTEGER, authorizationDate: Number.MAX_SAFE_INTEGER });
  });

  it('refuses an amount beyond 2^53 instead of rounding it', async () => {
    const organizationId = await addOrganization(database.db);
    const personId = await addHolder(database.db, organizationId);
    const [id] = await addRecords(database.db, organizationId, [{ personId, authorizationDate: 1_700_000_000_000, amountCents: 1 }]);
    await sql`update transactions set amount_cents = 9007199254740993 where id = ${id ?? ''}`.execute(database.db);
    await expect(page(organizationId)).rejects.toThrow(/amount_cents 9007199254740992 is not a safe integer/);
  });
});
