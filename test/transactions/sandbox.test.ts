import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  REVIEW_STATUSES,
  TRANSACTION_METHODS,
  TRANSACTION_STATUSES,
  availableBalance,
  cairoPeriods,
} from '../../server/domain/available-balance.js';
import { CATEGORIES } from '../../server/domain/categories.js';
import {
  DEFAULT_SANDBOX_SEED,
  SANDBOX_LEDGER_DAYS,
  insertBulkTransactions,
  planSandboxData,
  seedSandboxData,
} from '../../server/sandbox/demo-organization.js';
import type { CardRow, TransactionRow } from '../../server/database/schema.js';
import { createTestDatabase, type TestDatabase } from '../../scripts/proof/database.js';
import { addOrganization, cardRows, expectedBalance, ledgerRows, limitsOf, storedUsages } from '../helpers/ledger.js';

// The sandbox data: deterministic from a seed, consistent with the cards, varied
// enough to explore, and with sensible balances; and the bulk mode for benchmarks.

const NOW = Date.parse('2025-03-17T10:30:00Z');
const DAY = 86_400_000;

/** The consistency rules of the ledger against the organization's cards (the Transaction schema's fields). */
function checkConsistency(
  cards: readonly CardRow[],
  rows: readonly TransactionRow[],
  holderIds: ReadonlySet<string>,
): void {
  const byId = new Map(cards.map((card) => [card.id, card]));
  for (const row of rows) {
    const where = `${row.id} (${row.method} ${row.merchant})`;
    expect(row.amount_cents, where).toBeGreaterThan(0);
    expect(Number.isSafeInteger(row.amount_cents), where).toBe(true);
    expect(row.currency, where).toBe('EGP');
    expect(holderIds.has(row.person_id), where).toBe(true);
    if (row.method === 'CARD' || row.method === 'ATM') {
      const card = row.card_id === null ? undefined : byId.get(row.card_id);
      expect(card, `${where}: a card record belongs to one of the organization's cards`).toBeDefined();
      expect(card?.last4, `${where}: the card is activated`).not.toBeNull();
      expect(row.last4, `${where}: carries the card's last4`).toBe(card?.last4);
      expect(row.person_id, `${where}: its person is the card's holder`).toBe(card?.card_holder_id);
    } else {
      expect(row.card_id, where).toBeNull();
      expect(row.last4, where).toBeNull();
    }
    if (row.refund) expect(row.method, `${where}: only cash expenses are refunded`).toBe('CASH');
    expect(TRANSACTION_STATUSES as readonly string[]).toContain(row.status);
    expect([null, ...REVIEW_STATUSES] as readonly (string | null)[]).toContain(row.review_status);
    expect(CATEGORIES as readonly string[]).toContain(row.category);
  }
}

describe('sandbox data', () => {
  let database: TestDatabase;
  let organizationId: string;
  let cards: CardRow[];
  let rows: TransactionRow[];
  let holderIds: Set<string>;

  beforeAll(async () => {
    database = await createTestDatabase();
    organizationId = await addOrganization(database.db, NOW);
    await seedSandboxData(database.db, { organizationId, now: NOW });
    cards = await cardRows(database.db, organizationId);
    rows = await ledgerRows(database.db, organizationId);
    const holders = await database.db
      .selectFrom('card_holders')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .execute();
    holderIds = new Set(holders.map((holder) => holder.id));
  });
  afterAll(async () => {
    await database?.close();
  });

  it('has departments, card holders with and without external ids and departments', async () => {
    const departments = await database.db
      .selectFrom('departments')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .execute();
    const holders = await database.db
      .selectFrom('card_holders')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .execute();
    expect(departments.length).toBeGreaterThanOrEqual(3);
    expect(holders.some((h) => h.department_id === null)).toBe(true);
    expect(holders.some((h) => h.department_id !== null)).toBe(true);
    expect(holders.some((h) => h.user_external_id_one === null)).toBe(true);
    expect(holders.some((h) => h.user_external_id_three !== null)).toBe(true);
  });

  it('has at least 12 cards: plain, approval-based and not activated', () => {
    expect(cards.length).toBeGreaterThanOrEqual(12);
    const activated = cards.filter((card) => card.last4 !== null);
    expect(activated.some((card) => card.approval_based_limit === null)).toBe(true);
    expect(activated.some((card) => card.approval_based_limit !== null)).toBe(true);
    expect(cards.some((card) => card.last4 === null)).toBe(true);
    expect(new Set(activated.map((card) => card.last4)).size).toBe(activated.length);
  });

  it('has at least 250 records over the 90 days before now, of every method, status and review status and most categories', () => {
    expect(rows.length).toBeGreaterThanOrEqual(250);
    for (const row of rows) {
      expect(row.authorization_date).toBeLessThanOrEqual(NOW);
      expect(row.authorization_date).toBeGreaterThanOrEqual(NOW - SANDBOX_LEDGER_DAYS * DAY);
    }
    expect(new Set(rows.map((r) => r.method))).toEqual(new Set(TRANSACTION_METHODS));
    expect(new Set(rows.map((r) => r.status))).toEqual(new Set(TRANSACTION_STATUSES));
    expect(new Set(rows.map((r) => r.review_status))).toEqual(new Set([null, ...REVIEW_STATUSES]));
    expect(new Set(rows.map((r) => r.category)).size).toBeGreaterThanOrEqual(30);
    expect(rows.some((r) => r.refund)).toBe(true);
    expect(rows.some((r) => r.cleared) && rows.some((r) => !r.cleared)).toBe(true);
    expect(rows.some((r) => r.method === 'ATM' && r.status === 'SUCCEEDED')).toBe(true);
    expect(rows.some((r) => r.tags.length > 0)).toBe(true);
    // Spread over the whole window: every one of the last three 30-day stretches has records.
    for (let stretch = 0; stretch < 3; stretch += 1) {
      expect(
        rows.some(
          (r) =>
            r.authorization_date <= NOW - stretch * 30 * DAY && r.authorization_date > NOW - (stretch + 1) * 30 * DAY,
        ),
      ).toBe(true);
    }
  });

  it('is consistent with the cards', () => {
    checkConsistency(cards, rows, holderIds);
  });

  it('gives every activated card something to spend, and leaves some close to their limit', async () => {
    const figures = await storedUsages(database.db, {
      organizationId,
      cardIds: cards.map((c) => c.id),
      periods: cairoPeriods(NOW),
    });
    let nearLimit = 0;
    for (const card of cards) {
      const expected = expectedBalance(card, rows, NOW);
      const stored = figures.get(card.id);
      if (stored === undefined) throw new Error('no figures');
      expect(availableBalance({ activated: card.last4 !== null, limits: limitsOf(card), ...stored })).toBe(expected);
      if (card.last4 === null) {
        expect(expected).toBeNull();
        continue;
      }
      expect(expected, card.nickname).toBeGreaterThan(0);
      const tightest = card.approval_based_limit ?? Math.min(card.daily_limit, card.monthly_limit, card.atm_limit);
      if ((expected ?? 0) < 0.1 * tightest) nearLimit += 1;
    }
    expect(nearLimit).toBeGreaterThanOrEqual(2);
  });

  it('is the same for the same seed, differs for another seed, and never shares ids between organizations', () => {
    const plan = (organizationId: string, seed?: number) =>
      planSandboxData({ organizationId, now: NOW, ...(seed !== undefined ? { seed } : {}) });
    expect(plan('org_a')).toEqual(plan('org_a', DEFAULT_SANDBOX_SEED));
    const a = plan('org_a');
    const b = plan('org_b');
    const content = (p: ReturnType<typeof plan>) =>
      p.transactions.map((t) => [t.merchant, t.amount_cents, t.authorization_date, t.status]);
    expect(content(a)).toEqual(content(b));
    const idsOf = (p: ReturnType<typeof plan>) =>
      [...p.departments, ...p.cardHolders, ...p.cards, ...p.transactions].map((row) => row.id);
    const shared = idsOf(a).filter((id) => new Set(idsOf(b)).has(id));
    expect(shared).toEqual([]);
    expect(content(plan('org_a', 42))).not.toEqual(content(a));
  });

  it.each([1, 2, 3, 99, 123_456])('keeps its promises with seed %i', (seed) => {
    const plan = planSandboxData({ organizationId: 'org_seeded', now: NOW, seed });
    const planned = plan.transactions.map((t) => ({
      ...t,
      tags: [...t.tags],
      review_status: t.review_status ?? null,
    })) as unknown as TransactionRow[];
    const plannedCards = plan.cards as unknown as CardRow[];
    checkConsistency(plannedCards, planned, new Set(plan.cardHolders.map((h) => h.id)));
    expect(new Set(planned.map((r) => r.status))).toEqual(new Set(TRANSACTION_STATUSES));
    expect(new Set(planned.map((r) => r.review_status))).toEqual(new Set([null, ...REVIEW_STATUSES]));
    for (const card of plannedCards.filter((c) => c.last4 !== null)) {
      expect(expectedBalance(card, planned, NOW), card.nickname).toBeGreaterThan(0);
    }
  });

  it('adds bulk records fast, consistent with the cards, without moving any balance', async () => {
    const before = await storedUsages(database.db, {
      organizationId,
      cardIds: cards.map((c) => c.id),
      periods: cairoPeriods(NOW),
    });
    const count = 3_000;
    const { inserted } = await insertBulkTransactions(database.db, { organizationId, count, now: NOW });
    expect(inserted).toBe(count);
    const all = await ledgerRows(database.db, organizationId);
    expect(all).toHaveLength(rows.length + count);
    const bulk = all.filter((row) => !rows.some((r) => r.id === row.id));
    checkConsistency(cards, bulk, holderIds);
    expect(new Set(bulk.map((r) => r.method))).toEqual(new Set(TRANSACTION_METHODS));
    expect(new Set(bulk.map((r) => r.id)).size).toBe(count);
    expect(Math.max(...bulk.map((r) => r.authorization_date))).toBeLessThan(cairoPeriods(NOW).monthStartMs);
    const after = await storedUsages(database.db, {
      organizationId,
      cardIds: cards.map((c) => c.id),
      periods: cairoPeriods(NOW),
    });
    expect(after).toEqual(before);
    // A second run adds more, with new ids.
    expect((await insertBulkTransactions(database.db, { organizationId, count: 10, now: NOW })).inserted).toBe(10);
  });

  it('rejects bulk records for an organization without cards', async () => {
    const empty = await addOrganization(database.db, NOW);
    await expect(insertBulkTransactions(database.db, { organizationId: empty, count: 5, now: NOW })).rejects.toThrow(
      /no activated card/,
    );
  });
});
