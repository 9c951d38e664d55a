import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cairoPeriods } from '../../server/domain/available-balance.js';
import { cardsByKeyQuery, cardWithUsageQuery } from '../../server/store/cards.js';
import { insertBulkTransactions, seedSandboxData } from '../../server/sandbox/demo-organization.js';
import { transactionListQuery, type TransactionFilters } from '../../server/store/transactions.js';
import { createTestDatabase, type TestDatabase } from '../../scripts/proof/database.js';
import { addCard, addHolder, addOrganization, cardRows } from '../helpers/ledger.js';

// The query plans of a filtered ledger page and of a page of card balances, on a big ledger:
// 200,000 records on PostgreSQL (DATABASE_URL set), 20,000 on the embedded database (its
// planner is PostgreSQL's, so the plans are the same kind; fewer rows keep the run short).
// Every plan must reach the ledger through an index: a sequential scan of `transactions`
// would read every record of every organization for one page. Each plan's summary is attached
// to its test as an annotation (shown by the reporter).

const NOW = Date.parse('2025-03-17T10:30:00Z');
const DAY = 86_400_000;
const BULK_ROWS = process.env['DATABASE_URL'] ? 200_000 : 20_000;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  Plans?: PlanNode[];
}

interface ExplainResult {
  Plan: PlanNode;
  'Execution Time': number;
}

/** Every scan node of the plan, as "Node Type on relation (index)". */
function scans(node: PlanNode): { type: string; relation: string | undefined; index: string | undefined }[] {
  const own = /Scan/.test(node['Node Type'])
    ? [{ type: node['Node Type'], relation: node['Relation Name'], index: node['Index Name'] }]
    : [];
  return [...own, ...(node.Plans ?? []).flatMap(scans)];
}

function explainJson(rows: readonly Record<string, unknown>[]): ExplainResult {
  const value = rows[0]?.['QUERY PLAN'];
  const parsed: unknown = typeof value === 'string' ? JSON.parse(value) : value;
  if (!Array.isArray(parsed) || parsed[0] === undefined) throw new Error('EXPLAIN returned no plan');
  return parsed[0] as ExplainResult;
}

function summary(result: ExplainResult): string {
  const ledger = scans(result.Plan)
    .filter((scan) => scan.relation === 'transactions' || scan.index?.startsWith('transactions') === true)
    .map((scan) => `${scan.type}${scan.index !== undefined ? ` using ${scan.index}` : ''}`);
  return `${[...new Set(ledger)].join(', ')}; ${result['Execution Time'].toFixed(2)} ms`;
}

describe('query plans on a big ledger', () => {
  let database: TestDatabase;
  let organizationId: string;
  let departmentIds: string[];

  beforeAll(async () => {
    database = await createTestDatabase();
    const db = database.db;
    organizationId = await addOrganization(db, NOW);
    await seedSandboxData(db, { organizationId, now: NOW });
    // Another organization's records share the table, as they would in production.
    const neighbour = await addOrganization(db, NOW);
    await seedSandboxData(db, { organizationId: neighbour, now: NOW });
    await insertBulkTransactions(db, { organizationId, count: BULK_ROWS, now: NOW });
    await insertBulkTransactions(db, { organizationId: neighbour, count: BULK_ROWS / 4, now: NOW });
    await sql`analyze`.execute(db);
    const departments = await db
      .selectFrom('departments')
      .select('id')
      .where('organization_id', '=', organizationId)
      .orderBy('name')
      .execute();
    departmentIds = departments.map((d) => d.id);
  }, 240_000);
  afterAll(async () => {
    await database?.close();
  });

  const older = { sort: NOW - 120 * DAY, id: 'txn_zzzzzzzzzzzzzzzzzzzzzzzz' };
  const cases: [string, () => TransactionFilters, boolean][] = [
    ['no filter', () => ({}), false],
    ['no filter, a later page', () => ({}), true],
    ['one week', () => ({ fromDate: NOW - 150 * DAY, toDate: NOW - 143 * DAY }), false],
    ['a rare status', () => ({ statuses: ['REVERSED'] }), true],
    ['two statuses', () => ({ statuses: ['DECLINED', 'REVERSED'] }), false],
    ['a rare category', () => ({ categories: ['TOWING'] }), true],
    ['two rare categories', () => ({ categories: ['AGRICULTURE', 'ART'] }), false],
    ['a review status', () => ({ reviewStatuses: ['REJECTED'] }), false],
    ['a merchant', () => ({ merchant: 'talabat' }), true],
    ['a merchant text many names contain', () => ({ merchant: 'e' }), false],
    ['one department', () => ({ departmentIds: departmentIds.slice(0, 1) }), true],
    [
      'everything combined',
      () => ({
        fromDate: NOW - 300 * DAY,
        toDate: NOW,
        statuses: ['SUCCEEDED'],
        categories: ['TRAVEL', 'HOSPITALITY'],
        reviewStatuses: ['APPROVED', 'UNDER_REVIEW'],
        merchant: 'air',
        departmentIds: departmentIds.slice(0, 3),
      }),
      false,
    ],
    ['rare filters combined', () => ({ categories: ['TOWING'], statuses: ['REVERSED'], merchant: 'road' }), false],
  ];

  it.for(cases)('a page with %s reaches the ledger through an index', async ([, filters, later], { annotate }) => {
    const query = await transactionListQuery(database.db, {
      organizationId,
      filters: filters(),
      after: later ? older : undefined,
      take: 11,
    });
    if (query === undefined) throw new Error('the filters were expected to match something');
    const result = explainJson(await query.explain('json', sql`analyze`));
    await annotate(summary(result));
    const ledgerScans = scans(result.Plan).filter((scan) => scan.relation === 'transactions');
    expect(ledgerScans.length).toBeGreaterThan(0);
    expect(ledgerScans.filter((scan) => scan.type === 'Seq Scan')).toEqual([]);
  });

  it('a merchant text no name contains is served without the main query', async () => {
    expect(
      await transactionListQuery(database.db, {
        organizationId,
        filters: { merchant: 'no such shop' },
        after: undefined,
        take: 11,
      }),
    ).toBeUndefined();
  });

  it("a page of cards' balances sums the ledger through its indexes", async ({ annotate }) => {
    const cards = await cardRows(database.db, organizationId);
    const query = cardWithUsageQuery(
      organizationId,
      cairoPeriods(NOW),
      sql`and c.id = any(${cards.map((card) => card.id)}::text[])`,
    );
    const result = explainJson(
      (await sql<Record<string, unknown>>`explain (analyze, format json) ${query}`.execute(database.db)).rows,
    );
    await annotate(summary(result));
    const all = scans(result.Plan);
    expect(all.filter((scan) => scan.relation === 'transactions' && scan.type === 'Seq Scan')).toEqual([]);
    const indexes = new Set(all.map((scan) => scan.index));
    expect([...indexes].some((index) => index?.startsWith('transactions_card_usage'))).toBe(true);
    // The holders' outstanding cash is kept on their rows (card_holders.outstanding_cash_cents):
    // the card's own sum is the plan's one scan of the ledger.
    expect(all.filter((scan) => scan.relation === 'transactions')).toHaveLength(1);
  });

  it('a batch of card reads reaches each card by its key and sums its ledger through the usage index', async ({
    annotate,
  }) => {
    // Cards enough that reading them all costs more than finding each: 50,000 in an organization
    // of their own, copies of one card under new ids (only the plan is looked at).
    const other = await addOrganization(database.db);
    const model = await addCard(database.db, other, await addHolder(database.db, other));
    await sql`
      insert into cards
      select 'crd_copy_' || n, organization_id, card_holder_id, nickname, last4, daily_limit, monthly_limit,
        atm_limit, approval_based_limit, created_at + n, record
      from cards, generate_series(1, 50000) n where id = ${model}`.execute(database.db);
    await sql`analyze cards`.execute(database.db);
    const cards = await cardRows(database.db, organizationId);
    const keys = [
      ...cards.slice(0, 10).map((card) => ({ organizationId, cardId: card.id })),
      ...[1, 20_000, 49_999].map((n) => ({ organizationId: other, cardId: `crd_copy_${n}` })),
    ];
    const query = cardsByKeyQuery(keys, cairoPeriods(NOW));
    const result = explainJson(
      (await sql<Record<string, unknown>>`explain (analyze, format json) ${query}`.execute(database.db)).rows,
    );
    await annotate(summary(result));
    const all = scans(result.Plan);
    expect(all.filter((scan) => scan.type === 'Seq Scan')).toEqual([]);
    expect(all.filter((scan) => scan.relation === 'cards').map((scan) => scan.index)).toEqual(['cards_pkey']);
    expect(all.some((scan) => scan.index?.startsWith('transactions_card_usage') === true)).toBe(true);
    expect(all.filter((scan) => scan.relation === 'transactions')).toHaveLength(1);
  });
});
