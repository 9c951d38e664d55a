import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transfersPendingFirstQuery } from '../../server/store/transfers.js';
import { createTestDatabase, type TestDatabase } from '../../scripts/proof/database.js';

// The dashboard's transfer list, pending first, on an organization with many transfers: a page
// must be a walk of transfers_pending_first_idx from the cursor, never a sort of every transfer
// of the organization (which would grow with the organization's history).

const TRANSFERS = 20_000;

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

function nodes(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(nodes)];
}

describe('the dashboard list of transfers, pending first', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
    const { db } = database;
    await sql`insert into organizations (id, name, balance_cents, created_at) values ('org_plan', 'Plans', 0, 0), ('org_other', 'Other', 0, 0)`.execute(
      db,
    );
    await sql`insert into clients (id, organization_id, secret_hash, scopes, created_at) values ('cli_plan', 'org_plan', 'x', '{}', 0), ('cli_other', 'org_other', 'x', '{}', 0)`.execute(
      db,
    );
    // One in ten PENDING, the rest CANCELLED; two organizations.
    await sql`
      insert into transfers (id, organization_id, client_id, idempotency_key, amount_cents, currency, status, category,
                             submission_date, bank_id, account_number, account_name, cancelled_at)
      select 'trf_plan_' || g, case when g % 2 = 0 then 'org_plan' else 'org_other' end, case when g % 2 = 0 then 'cli_plan' else 'cli_other' end,
             'key-' || g, 100 + g, 'EGP', case when g % 10 = 0 then 'PENDING' else 'CANCELLED' end, 'OTHER',
             1700000000000 + g * 1000, 'nbe', '123456789', 'Plan', case when g % 10 = 0 then null else 1 end
      from generate_series(1, ${TRANSFERS}) g
    `.execute(db);
    await sql`analyze transfers`.execute(db);
  });
  afterAll(async () => {
    await database?.close();
  });

  it.each([
    ['the first page', {}],
    [
      'a page after a cursor in the pending group',
      { after: { sort: 1700000000000 + 15_000 * 1000 + 2 ** 52, id: 'trf_plan_15000' } },
    ],
    [
      'a page after a cursor past the pending group',
      { after: { sort: 1700000000000 + 9_000 * 1000, id: 'trf_plan_9000' } },
    ],
  ])('%s walks the index and sorts nothing', async (_name, options) => {
    const compiled = transfersPendingFirstQuery(database.db, 'org_plan', { limit: 25, ...options }).compile();
    // The generic plan, which a prepared statement settles on after a few executions: its
    // parameters are unknown to the planner, so only the expression as written can match the index.
    const literal = (value: unknown): string =>
      typeof value === 'number' ? String(value) : `'${String(value).replaceAll("'", "''")}'`;
    const { rows } = await database.db.transaction().execute(async (tx) => {
      await sql.raw(`prepare pending_first_plan as ${compiled.sql}`).execute(tx);
      await sql`set local plan_cache_mode = force_generic_plan`.execute(tx);
      const explained = await sql
        .raw<{ 'QUERY PLAN': unknown }>(
          `explain (format json) execute pending_first_plan(${compiled.parameters.map(literal).join(', ')})`,
        )
        .execute(tx);
      await sql`deallocate pending_first_plan`.execute(tx);
      return explained;
    });
    const value = rows[0]?.['QUERY PLAN'];
    const plan = (typeof value === 'string' ? JSON.parse(value) : value) as { Plan: PlanNode }[];
    const all = nodes(plan[0]?.Plan ?? { 'Node Type': 'none' });
    expect(
      all.some((node) => node['Index Name'] === 'transfers_pending_first_idx'),
      JSON.stringify(plan),
    ).toBe(true);
    expect(all.map((node) => node['Node Type'])).not.toContain('Sort');
    expect(all.map((node) => node['Node Type'])).not.toContain('Seq Scan');
  });

  it('pages through both groups in order, each transfer once', async () => {
    const seen: string[] = [];
    let after: { sort: number; id: string } | undefined;
    for (;;) {
      const rows = await transfersPendingFirstQuery(database.db, 'org_plan', { limit: 1000, after }).execute();
      const page = rows.slice(0, 1000);
      seen.push(...page.map((row) => `${row.status}:${row.id}`));
      const last = page.at(-1);
      if (rows.length <= 1000 || last === undefined) break;
      after = { sort: last.status === 'PENDING' ? last.submission_date + 2 ** 52 : last.submission_date, id: last.id };
    }
    expect(seen).toHaveLength(TRANSFERS / 2);
    expect(new Set(seen).size).toBe(TRANSFERS / 2);
    const firstOther = seen.findIndex((entry) => !entry.startsWith('PENDING:'));
    expect(seen.slice(firstOther).every((entry) => !entry.startsWith('PENDING:'))).toBe(true);
    expect(firstOther).toBe(TRANSFERS / 10);
  });
});
