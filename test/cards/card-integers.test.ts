import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cairoPeriods } from '../../server/domain/available-balance.js';
import { findCardWithUsage, listCards } from '../../server/store/cards.js';
import { createTestDatabase, type TestDatabase } from '../../scripts/proof/database.js';
import { addCard, addHolder, addOrganization, addRecords } from '../helpers/ledger.js';

// A card and its usage come back from the database as one JSON value (findCardWithUsage,
// listCards): their integers are JSON numbers, which must stay exact as the drivers' int8 parser
// keeps them. A sum a JavaScript number cannot hold exactly is rejected, never rounded into another.

const NOW = 1_750_000_000_000;

describe('the integers of a card read', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
    // Sums this large would take some ninety thousand records of the largest amount a record may
    // show (transactions_amount_cents_shown); this database lets one record hold them.
    await sql`alter table transactions drop constraint transactions_amount_cents_shown`.execute(database.db);
  });
  afterAll(async () => {
    await database?.close();
  });

  const read = async (spent: readonly number[]) => {
    const organizationId = await addOrganization(database.db);
    const holder = await addHolder(database.db, organizationId);
    const cardId = await addCard(database.db, organizationId, holder, { createdAt: Number.MAX_SAFE_INTEGER });
    await addRecords(
      database.db,
      organizationId,
      spent.map((amountCents) => ({ personId: holder, cardId, authorizationDate: NOW, amountCents })),
    );
    return {
      one: () => findCardWithUsage(database.db, organizationId, cardId, cairoPeriods(NOW)),
      page: () => listCards(database.db, { organizationId, periods: cairoPeriods(NOW), after: undefined, take: 10 }),
    };
  };

  it('reads the largest safe sum and time exactly, alone and in a page', async () => {
    const { one, page } = await read([Number.MAX_SAFE_INTEGER - 1, 1]);
    const expected = {
      createdAt: Number.MAX_SAFE_INTEGER,
      figures: { usage: { monthCardAndAtm: Number.MAX_SAFE_INTEGER } },
    };
    expect(await one()).toMatchObject(expected);
    expect(await page()).toMatchObject([expected]);
  });

  it('rejects a sum beyond 2^53 instead of rounding it', async () => {
    const { one, page } = await read([Number.MAX_SAFE_INTEGER, 2]);
    await expect(one()).rejects.toThrow(/card_and_atm 9007199254740992 is not a safe integer/);
    await expect(page()).rejects.toThrow(/card_and_atm 9007199254740992 is not a safe integer/);
  });
});
