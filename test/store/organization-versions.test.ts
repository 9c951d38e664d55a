import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { organizationVersion } from '../../server/store/organization-versions.js';
import { createTestDatabase, type TestDatabase } from '../../scripts/proof/database.js';
import { addCard, addDepartment, addHolder, addOrganization, addRecords } from '../helpers/ledger.js';
import { eventually, gate } from '../http/support.js';

// An organization's version moves in the same transaction as any change of its cards, card
// holders, departments or ledger (migration 009), and only then: what the service keeps of a
// read (server/http/kept-reads.ts) is exact only if no such change leaves the version as it was.

const NOW = Date.parse('2025-03-17T10:30:00Z');

describe('organization versions', () => {
  let database: TestDatabase;
  let organizationId: string;
  let bystander: string;
  let holderId: string;
  let departmentId: string;
  let cardId: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    organizationId = await addOrganization(database.db);
    bystander = await addOrganization(database.db);
    departmentId = await addDepartment(database.db, organizationId);
    holderId = await addHolder(database.db, organizationId, { departmentId });
    cardId = await addCard(database.db, organizationId, holderId);
  });
  afterAll(async () => {
    await database?.close();
  });

  /** Runs `change` and returns whether the organization's version moved, and the bystander's did not. */
  const moves = async (change: () => Promise<unknown>): Promise<boolean> => {
    const before = await organizationVersion(database.db, organizationId);
    const bystanderBefore = await organizationVersion(database.db, bystander);
    await change();
    expect(await organizationVersion(database.db, bystander)).toBe(bystanderBefore);
    return (await organizationVersion(database.db, organizationId)) > before;
  };

  it('is 0 for an organization none of whose rows changed', async () => {
    expect(await organizationVersion(database.db, await addOrganization(database.db))).toBe(0);
  });

  it.each([
    ['a ledger record written', () => addRecords(database.db, organizationId, [{ personId: holderId, cardId, authorizationDate: NOW }])],
    ['a ledger record changed', () => sql`update transactions set note = 'checked' where organization_id = ${organizationId}`.execute(database.db)],
    ['a card added', () => addCard(database.db, organizationId, holderId)],
    ['a card changed', () => sql`update cards set daily_limit = daily_limit + 1 where id = ${cardId}`.execute(database.db)],
    ['a card holder added', () => addHolder(database.db, organizationId)],
    ['a card holder renamed', () => sql`update card_holders set full_name = 'Mona Adel' where id = ${holderId}`.execute(database.db)],
    ['a department added', () => addDepartment(database.db, organizationId, 'Finance')],
    ['a department renamed', () => sql`update departments set name = 'Treasury' where id = ${departmentId}`.execute(database.db)],
    ['a ledger record deleted', () => sql`delete from transactions where organization_id = ${organizationId}`.execute(database.db)],
    ['a card holder moved out of every department', () => sql`update card_holders set department_id = null where id = ${holderId}`.execute(database.db)],
    ['a department deleted', () => sql`delete from departments where id = ${departmentId}`.execute(database.db)],
  ])('moves with %s', async (_what, change) => {
    expect(await moves(change)).toBe(true);
  });

  it('moves for every organization one statement touches, once each', async () => {
    const holder = await addHolder(database.db, bystander);
    const before = [await organizationVersion(database.db, organizationId), await organizationVersion(database.db, bystander)];
    await addRecords(database.db, organizationId, [{ personId: holderId, authorizationDate: NOW }]);
    await sql`
      insert into transactions (id, organization_id, person_id, authorization_date, merchant, method, category, status, currency,
        amount_cents, refund, cleared)
      select 'txn_both_' || h.organization_id, h.organization_id, h.id, ${NOW}, 'Talabat', 'CARD', 'FOOD_BEVERAGE', 'SUCCEEDED', 'EGP', 100, false, true
      from card_holders h where h.id in (${holderId}, ${holder})
    `.execute(database.db);
    const after = [await organizationVersion(database.db, organizationId), await organizationVersion(database.db, bystander)];
    expect(after[0]).toBeGreaterThan(before[0] ?? 0);
    expect(after[1]).toBeGreaterThan(before[1] ?? 0);
  });

  it('stays as it was when the change rolls back', async () => {
    const before = await organizationVersion(database.db, organizationId);
    await expect(
      database.db.transaction().execute(async (tx) => {
        await addRecords(tx, organizationId, [{ personId: holderId, cardId, authorizationDate: NOW }]);
        expect(await organizationVersion(tx, organizationId)).toBeGreaterThan(before);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await organizationVersion(database.db, organizationId)).toBe(before);
  });

  // Two writers of one organization: the second waits for the first's lock on the version row.
  // Whatever value the second took before it waited is older than what the first committed after
  // it; the version must still move past what the first committed. PostgreSQL only: PGlite runs
  // one transaction at a time.
  it.skipIf(process.env.DATABASE_URL === undefined)('moves past what another writer committed while this one waited', async () => {
    const record = () => [{ personId: holderId, cardId, authorizationDate: NOW }];
    const firstWrote = gate();
    const firstMayCommit = gate();
    let committedByFirst = 0;
    const first = database.db.transaction().execute(async (tx) => {
      await addRecords(tx, organizationId, record());
      firstWrote.open();
      await firstMayCommit.opened;
      await addRecords(tx, organizationId, record());
      committedByFirst = await organizationVersion(tx, organizationId);
    });
    await firstWrote.opened;
    const second = database.db.transaction().execute(async (tx) => {
      await addRecords(tx, organizationId, record());
    });
    await eventually(async () => {
      const waiting = await sql<{ n: number }>`
        select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(database.db);
      return (waiting.rows[0]?.n ?? 0) > 0;
    });
    firstMayCommit.open();
    await first;
    await second;
    expect(await organizationVersion(database.db, organizationId)).toBeGreaterThan(committedByFirst);
  });

  it('moves, and never comes back to an earlier value, when the ledger is emptied and the versions with it', async () => {
    await addRecords(database.db, organizationId, [{ personId: holderId, cardId, authorizationDate: NOW }]);
    const before = await organizationVersion(database.db, organizationId);
    // TRUNCATE names no rows: every organization's version moves.
    await sql`truncate transactions`.execute(database.db);
    const truncated = await organizationVersion(database.db, organizationId);
    await sql`truncate organization_versions`.execute(database.db);
    await addRecords(database.db, organizationId, [{ personId: holderId, cardId, authorizationDate: NOW }]);
    expect(truncated).toBeGreaterThan(before);
    expect(await organizationVersion(database.db, organizationId)).toBeGreaterThan(truncated);
  });
});
