import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cairoPeriods } from '../../server/domain/available-balance.js';
import { createCardReads, MAX_CARD_READS_A_STATEMENT } from '../../server/store/card-reads.js';
import { findCardWithUsage } from '../../server/store/cards.js';
import { createTestDatabase, type TestDatabase } from '../../scripts/proof/database.js';
import { counted } from '../helpers/statement-count.js';
import { addCard, addHolder, addOrganization, addRecords } from '../helpers/ledger.js';

// Card reads of one turn of the event loop go to the database as one statement
// (server/store/card-reads.ts): each response must be the one a read of its own gives, whatever
// else shares its statement.

const MARCH_12 = Date.parse('2025-03-12T10:00:00Z');
const MARCH_13 = Date.parse('2025-03-13T10:00:00Z');

describe('card reads batched', () => {
  let database: TestDatabase;
  let first: { org: string; cards: string[] };
  let second: { org: string; cards: string[] };

  beforeAll(async () => {
    database = await createTestDatabase();
    const organization = async () => {
      const org = await addOrganization(database.db);
      const holder = await addHolder(database.db, org);
      const used = await addCard(database.db, org, holder);
      const inactive = await addCard(database.db, org, holder, { last4: null });
      await addRecords(database.db, org, [
        { cardId: used, personId: holder, authorizationDate: MARCH_12, amountCents: 1_234 },
        { cardId: used, personId: holder, authorizationDate: MARCH_13, amountCents: 5_000 },
        { cardId: inactive, personId: holder, authorizationDate: MARCH_12, amountCents: 77 },
      ]);
      return { org, cards: [used, inactive] };
    };
    first = await organization();
    second = await organization();
  });
  afterAll(async () => {
    await database?.close();
  });

  it("responds to the reads of one moment in one statement, each as a read of its own, another organization's card absent", async () => {
    const { db, statements } = counted(database.db);
    const read = createCardReads(db, { batched: true });
    const periods = cairoPeriods(MARCH_12);
    const asked: [string, string][] = [
      [first.org, first.cards[0] as string],
      [second.org, second.cards[1] as string],
      [first.org, second.cards[0] as string],
      [second.org, 'crd_no_such_card'],
      [first.org, first.cards[0] as string],
      [second.org, second.cards[0] as string],
    ];
    const results = await Promise.all(asked.map(([org, card]) => read(org, card, periods)));
    expect(statements()).toBe(1);
    const alone = await Promise.all(asked.map(([org, card]) => findCardWithUsage(database.db, org, card, periods)));
    expect(results).toEqual(alone);
    expect(results.map((result) => result?.card.id)).toEqual([
      first.cards[0],
      second.cards[1],
      undefined,
      undefined,
      first.cards[0],
      second.cards[0],
    ]);
    expect(results[0]?.figures.usage.dayCardAndAtm).toBe(1_234);
  });

  it('sends a read that waits for no other at once, and each read alone when not batched', async () => {
    const { db, statements } = counted(database.db);
    const read = createCardReads(db, { batched: true });
    const periods = cairoPeriods(MARCH_12);
    expect((await read(first.org, first.cards[0] as string, periods))?.card.id).toBe(first.cards[0]);
    expect((await read(second.org, second.cards[0] as string, periods))?.card.id).toBe(second.cards[0]);
    expect(statements()).toBe(2);

    const unbatched = counted(database.db);
    const alone = createCardReads(unbatched.db, { batched: false });
    await Promise.all([
      alone(first.org, first.cards[0] as string, periods),
      alone(second.org, second.cards[0] as string, periods),
    ]);
    expect(unbatched.statements()).toBe(2);
  });

  it("reads each day's usage when the reads of one moment span midnight", async () => {
    const { db, statements } = counted(database.db);
    const read = createCardReads(db, { batched: true });
    const card = first.cards[0] as string;
    const [before, after] = await Promise.all([
      read(first.org, card, cairoPeriods(MARCH_12)),
      read(first.org, card, cairoPeriods(MARCH_13)),
    ]);
    expect(statements()).toBe(2);
    expect(before?.figures.usage.dayCardAndAtm).toBe(1_234);
    expect(after?.figures.usage.dayCardAndAtm).toBe(5_000);
    expect(after?.figures.usage.monthCardAndAtm).toBe(6_234);
  });

  it(`reads more than ${MAX_CARD_READS_A_STATEMENT} at once in several statements`, async () => {
    const { db, statements } = counted(database.db);
    const read = createCardReads(db, { batched: true });
    const periods = cairoPeriods(MARCH_12);
    const results = await Promise.all(
      Array.from({ length: MAX_CARD_READS_A_STATEMENT + 1 }, () =>
        read(second.org, second.cards[1] as string, periods),
      ),
    );
    expect(statements()).toBe(2);
    expect(new Set(results.map((result) => result?.card.id))).toEqual(new Set([second.cards[1]]));
  });

  it('fails the reads of a failed statement, and only those', async () => {
    const read = createCardReads(database.db, { batched: true });
    const broken = { ...cairoPeriods(MARCH_12), dayStartMs: Number.NaN };
    const failed = Promise.all([
      read(first.org, first.cards[0] as string, broken),
      read(second.org, second.cards[0] as string, broken),
    ]);
    await expect(failed).rejects.toThrow();
    expect((await read(first.org, first.cards[0] as string, cairoPeriods(MARCH_12)))?.card.id).toBe(first.cards[0]);
  });
});
