import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  REVIEW_STATUSES,
  TRANSACTION_METHODS,
  TRANSACTION_STATUSES,
  cairoPeriods,
  type CairoPeriods,
} from '../../server/domain/available-balance.js';
import { mulberry32, picker } from '../../server/sandbox/seeded-random.js';
import { findCardWithUsage, lockCard, saveCardLimits } from '../../server/store/cards.js';
import { inTransaction } from '../../server/database/in-transaction.js';
import { createTestDatabaseOf, databaseKinds, type TestDatabase } from '../../scripts/proof/database.js';
import {
  addCard,
  addDepartment,
  addHolder,
  addOrganization,
  addRecords,
  cardRows,
  expectedUsage,
  ledgerRows,
  storedUsages,
  type RecordOptions,
} from '../helpers/ledger.js';

// The store's one aggregate query must select exactly the transactions `countsFor` accepts
// (available-balance.ts, USAGE_RULES): the figures are compared with the pure reference on
// records placed on every period boundary, across Cairo's clock changes, and on random ledgers.

const HOUR = 3_600_000;

/** Instants of interest: each period edge, one millisecond either side. */
function boundaryInstants(p: CairoPeriods): number[] {
  return [p.dayStartMs, p.dayEndMs, p.monthStartMs, p.monthEndMs].flatMap((edge) => [edge - 1, edge, edge + 1]);
}

/** `now` values: ordinary, at Cairo midnight, at month ends, and on the days Egypt moves its clocks. */
const NOWS: [string, number][] = [
  ['an ordinary weekday', Date.parse('2025-03-12T10:00:00Z')],
  ['Cairo midnight (first instant of the day)', cairoPeriods(Date.parse('2025-03-12T10:00:00Z')).dayStartMs],
  ['the last millisecond of a Cairo month', cairoPeriods(Date.parse('2025-01-15T10:00:00Z')).monthEndMs - 1],
  ['the first millisecond of a Cairo month', cairoPeriods(Date.parse('2025-02-15T10:00:00Z')).monthStartMs],
  ['spring forward day (23-hour day)', Date.parse('2025-04-25T12:00:00Z')],
  ['fall back day (25-hour day)', Date.parse('2025-10-30T21:30:00Z')],
];

describe.each(databaseKinds())('card usage figures on %s', (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabaseOf(kind);
  });
  afterAll(async () => {
    await database?.close();
  });

  async function compareAll(organizationId: string, now: number): Promise<void> {
    const cards = await cardRows(database.db, organizationId);
    const rows = await ledgerRows(database.db, organizationId);
    const figures = await storedUsages(database.db, {
      organizationId,
      cardIds: cards.map((c) => c.id),
      periods: cairoPeriods(now),
    });
    for (const card of cards) {
      expect(figures.get(card.id), `card ${card.nickname}`).toEqual(expectedUsage(card, rows, now));
    }
  }

  it.each(NOWS)('matches the pure rules at the period boundaries: %s', async (_name, now) => {
    const db = database.db;
    const org = await addOrganization(db);
    const holder = await addHolder(db, org);
    const other = await addHolder(db, org);
    const plain = await addCard(db, org, holder, { nickname: 'plain' });
    const approval = await addCard(db, org, holder, {
      nickname: 'approval',
      limits: { daily: 100_000_000, monthly: 300_000_000, atm: 300_000_000, approvalBased: 5_000_000 },
    });
    await addCard(db, org, other, { nickname: 'other holder' });
    const records: RecordOptions[] = [];
    let amount = 1;
    for (const at of boundaryInstants(cairoPeriods(now))) {
      for (const cardId of [plain, approval]) {
        for (const method of ['CARD', 'ATM'] as const) {
          for (const cleared of [true, false]) {
            // Distinct powers of two would overflow; distinct small amounts still tell records apart.
            records.push({
              cardId,
              personId: holder,
              authorizationDate: at,
              method,
              cleared,
              amountCents: (amount += 7),
            });
          }
        }
      }
      records.push({
        personId: holder,
        authorizationDate: at,
        method: 'CASH',
        reviewStatus: 'UNDER_REVIEW',
        amountCents: (amount += 7),
      });
    }
    // Records that never count, wherever they fall.
    for (const status of ['DECLINED', 'REVERSED'] as const) {
      records.push({ cardId: plain, personId: holder, authorizationDate: now, status, amountCents: 999_999 });
    }
    records.push({ cardId: plain, personId: holder, authorizationDate: now, refund: true, amountCents: 888_888 });
    records.push({ personId: holder, authorizationDate: now, method: 'PARTNER_FEES', amountCents: 777_777 });
    records.push({ personId: holder, authorizationDate: now, method: 'CASH', refund: true, amountCents: 666_666 });
    for (const reviewStatus of [null, ...REVIEW_STATUSES]) {
      records.push({
        personId: holder,
        authorizationDate: now - 40 * 24 * HOUR,
        method: 'CASH',
        reviewStatus,
        amountCents: (amount += 7),
      });
    }
    await addRecords(db, org, records);
    await compareAll(org, now);
  });

  it('matches the pure rules on a random ledger around several clocks', async () => {
    const db = database.db;
    const org = await addOrganization(db);
    const p = picker(mulberry32(7));
    const holders = [await addHolder(db, org), await addHolder(db, org), await addHolder(db, org)];
    const cards: { id: string; holder: string }[] = [];
    for (const holder of holders) {
      cards.push({ id: await addCard(db, org, holder), holder });
      cards.push({
        id: await addCard(db, org, holder, {
          limits: { daily: 100_000_000, monthly: 300_000_000, atm: 300_000_000, approvalBased: 9_000_000 },
        }),
        holder,
      });
    }
    const center = Date.parse('2025-05-01T00:00:00Z');
    const records: RecordOptions[] = [];
    for (let i = 0; i < 400; i += 1) {
      const method = p.pick(TRANSACTION_METHODS);
      const card = p.pick(cards);
      const withCard = method === 'CARD' || method === 'ATM';
      records.push({
        cardId: withCard ? card.id : null,
        personId: card.holder,
        method,
        status: p.pick(TRANSACTION_STATUSES),
        reviewStatus: p.chance(0.2) ? null : p.pick(REVIEW_STATUSES),
        refund: p.chance(0.15),
        cleared: p.chance(0.6),
        authorizationDate: center + p.int(-40 * 24 * HOUR, 40 * 24 * HOUR),
        amountCents: p.int(1, 5_000_000),
      });
    }
    await addRecords(db, org, records);
    for (const now of [center - 20 * 24 * HOUR, center - 1, center, center + 3 * HOUR, center + 20 * 24 * HOUR]) {
      await compareAll(org, now);
    }
  });

  it("keeps each holder's outstanding cash as records change, move, go and are truncated", async () => {
    const db = database.db;
    const org = await addOrganization(db);
    const p = picker(mulberry32(11));
    const holders = [await addHolder(db, org), await addHolder(db, org), await addHolder(db, org)];
    for (const holder of holders) await addCard(db, org, holder);
    const now = Date.parse('2025-05-01T00:00:00Z');
    const randomRecord = (): RecordOptions => ({
      personId: p.pick(holders),
      method: p.chance(0.7) ? 'CASH' : p.pick(TRANSACTION_METHODS),
      status: p.chance(0.7) ? 'SUCCEEDED' : p.pick(TRANSACTION_STATUSES),
      reviewStatus: p.chance(0.2) ? null : p.pick(REVIEW_STATUSES),
      refund: p.chance(0.15),
      authorizationDate: now + p.int(-40 * 24 * HOUR, 40 * 24 * HOUR),
      amountCents: p.int(1, 5_000_000),
    });
    const ids = await addRecords(db, org, Array.from({ length: 200 }, randomRecord));
    await compareAll(org, now);
    // Every column the rule reads changes on some rows, some rows change holder, some go.
    for (const id of ids.slice(0, 120)) {
      const next = randomRecord();
      await db
        .updateTable('transactions')
        .set({
          person_id: next.personId,
          method: next.method ?? 'CASH',
          status: next.status ?? 'SUCCEEDED',
          review_status: next.reviewStatus ?? null,
          refund: next.refund ?? false,
          amount_cents: next.amountCents,
        })
        .where('id', '=', id)
        .execute();
    }
    await db.deleteFrom('transactions').where('id', 'in', ids.slice(150)).execute();
    await compareAll(org, now);
    await sql`truncate transactions`.execute(db);
    const cleared = await db
      .selectFrom('card_holders')
      .select('outstanding_cash_cents')
      .where('organization_id', '=', org)
      .execute();
    expect(cleared.map((row) => row.outstanding_cash_cents)).toEqual([0, 0, 0]);
    await compareAll(org, now);
  });

  it("shows a holder's and a department's change in the holder's cards", async () => {
    const db = database.db;
    const org = await addOrganization(db);
    const department = await addDepartment(db, org, 'Sales');
    const holder = await addHolder(db, org, { departmentId: department, externalIds: ['EMP-1'] });
    const card = await addCard(db, org, holder);
    const periods = cairoPeriods(Date.parse('2025-03-12T10:00:00Z'));
    const read = async () => (await findCardWithUsage(db, org, card, periods))?.card;
    expect((await read())?.cardHolder).toStrictEqual({
      id: holder,
      fullName: 'Amr Saleh',
      userExternalIdOne: 'EMP-1',
      department: { id: department, name: 'Sales' },
    });
    await db
      .updateTable('card_holders')
      .set({ full_name: 'Mona Adel', user_external_id_one: null, user_external_id_two: 'EMP-2' })
      .where('id', '=', holder)
      .execute();
    await db.updateTable('departments').set({ name: 'Field sales' }).where('id', '=', department).execute();
    await db.updateTable('cards').set({ nickname: 'Travel' }).where('id', '=', card).execute();
    expect(await read()).toMatchObject({
      nickname: 'Travel',
      cardHolder: {
        id: holder,
        fullName: 'Mona Adel',
        userExternalIdTwo: 'EMP-2',
        department: { id: department, name: 'Field sales' },
      },
    });
    expect((await read())?.cardHolder).not.toHaveProperty('userExternalIdOne');
  });

  it('reads nothing of another organization, and no card outside the list', async () => {
    const db = database.db;
    const org = await addOrganization(db);
    const stranger = await addOrganization(db);
    const holder = await addHolder(db, org);
    const card = await addCard(db, org, holder);
    const now = Date.parse('2025-03-12T10:00:00Z');
    await addRecords(db, org, [{ cardId: card, personId: holder, authorizationDate: now, amountCents: 1234 }]);
    expect(await storedUsages(db, { organizationId: stranger, cardIds: [card], periods: cairoPeriods(now) })).toEqual(
      new Map(),
    );
    expect(await storedUsages(db, { organizationId: org, cardIds: [], periods: cairoPeriods(now) })).toEqual(new Map());
    expect(
      (await storedUsages(db, { organizationId: org, cardIds: [card], periods: cairoPeriods(now) })).get(card)?.usage
        .dayCardAndAtm,
    ).toBe(1234);
  });

  it('finds and locks a card only within its organization', async () => {
    const db = database.db;
    const org = await addOrganization(db);
    const stranger = await addOrganization(db);
    const holder = await addHolder(db, org, { externalIds: ['EMP-1'] });
    const card = await addCard(db, org, holder, { last4: null });
    const periods = cairoPeriods(Date.parse('2025-03-12T10:00:00Z'));
    expect(await findCardWithUsage(db, stranger, card, periods)).toBeUndefined();
    const found = (await findCardWithUsage(db, org, card, periods))?.card;
    expect(found).toMatchObject({
      id: card,
      last4: null,
      cardHolder: { id: holder, userExternalIdOne: 'EMP-1', department: null },
    });
    await inTransaction(db, async (tx) => {
      expect(await lockCard(tx, stranger, card)).toBeUndefined();
      expect(await lockCard(tx, org, card)).toBeDefined();
      await saveCardLimits(tx, org, card, { daily: 1, monthly: 2, atm: 3, approvalBased: null });
      await expect(
        saveCardLimits(tx, stranger, card, { daily: 1, monthly: 2, atm: 3, approvalBased: null }),
      ).rejects.toThrow();
    });
    expect((await findCardWithUsage(db, org, card, periods))?.card.limits).toEqual({
      daily: 1,
      monthly: 2,
      atm: 3,
      approvalBased: null,
    });
  });
});
