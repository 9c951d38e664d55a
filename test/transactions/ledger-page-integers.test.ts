import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listTransactions } from '../../server/store/transactions.js';
import { createTestDatabase, type TestDatabase } from '../../scripts/proof/database.js';
import { addHolder, addOrganization, addRecords } from '../helpers/ledger.js';

// A ledger page is sent as its records' stored JSON text (listTransactions), so its integers are
// the database's own: they must be numbers a client's JSON parser holds exactly. The database
// keeps each to the Transaction schema's bounds where it is written (its check constraints
// transactions_amount_cents_shown and transactions_authorization_date_shown), and refuses
// anything beyond, never rounding it into another amount.

describe('the integers of a ledger page', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.close();
  });

  const page = async (organizationId: string): Promise<unknown[]> =>
    (await listTransactions(database.db, { organizationId, filters: {}, after: undefined, take: 10 })).map(
      (json) => JSON.parse(json) as unknown,
    );

  it('reads the largest amount and date the schema allows exactly', async () => {
    const organizationId = await addOrganization(database.db);
    const personId = await addHolder(database.db, organizationId);
    await addRecords(database.db, organizationId, [
      { personId, authorizationDate: Number.MAX_SAFE_INTEGER, amountCents: 99_999_999_999 },
    ]);
    expect(await page(organizationId)).toMatchObject([
      { amountCents: 99_999_999_999, authorizationDate: Number.MAX_SAFE_INTEGER },
    ]);
  });

  it.each([
    ['an amount beyond the schema', 'amount_cents', '100000000000', /transactions_amount_cents_shown/],
    ['an amount beyond 2^53', 'amount_cents', '9007199254740993', /transactions_amount_cents_shown/],
    ['a date beyond 2^53', 'authorization_date', '9007199254740992', /transactions_authorization_date_shown/],
    ['a date before 1970', 'authorization_date', '-1', /transactions_authorization_date_shown/],
  ])('rejects %s where it is written', async (_name, column, value, constraint) => {
    const organizationId = await addOrganization(database.db);
    const personId = await addHolder(database.db, organizationId);
    const [id] = await addRecords(database.db, organizationId, [
      { personId, authorizationDate: 1_700_000_000_000, amountCents: 1 },
    ]);
    await expect(
      sql`update transactions set ${sql.ref(column)} = ${sql.lit(value)}::bigint where id = ${id ?? ''}`.execute(
        database.db,
      ),
    ).rejects.toThrow(constraint);
    expect(await page(organizationId)).toMatchObject([{ amountCents: 1, authorizationDate: 1_700_000_000_000 }]);
  });
});
