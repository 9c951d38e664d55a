import { randomUUID } from 'node:crypto';
import { sql, type CompiledQuery, type KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomIds, systemClock } from '../../server/clock-and-ids.js';
import { onboardOrganization } from '../../server/onboarding.js';
import { inTransactionWithStatementAtCommit, withAlongside } from '../../server/database/at-commit.js';
import { idempotencyKeyTakenOf, storedResponseStatement } from '../../server/store/idempotency.js';
import { createRowsTogether, insertRows, type RunOverRows } from '../../server/database/rows-together.js';
import { insertTransfer, type NewTransfer } from '../../server/store/transfers.js';
import { createTestDatabase, type TestDatabase } from '../../scripts/proof/database.js';
import { counted } from '../helpers/statement-count.js';

// The writes of one turn of the event loop whose transactions run nothing but their statement at
// the commit go as one statement over all their rows (server/database/rows-together.ts): each write
// must end as it would alone, whatever else shares its statement.

describe('writes run together', () => {
  let database: TestDatabase;
  let organizationId = '';
  let clientId = '';
  let otherClientId = '';

  beforeAll(async () => {
    database = await createTestDatabase();
    const deps = { ids: randomIds, clock: systemClock };
    ({ organizationId, clientId } = await onboardOrganization(database.db, deps, {
      name: 'Together Ltd',
      balanceCents: 0,
    }));
    ({ clientId: otherClientId } = await onboardOrganization(database.db, deps, {
      name: 'Other Ltd',
      balanceCents: 0,
    }));
  });
  afterAll(async () => {
    await database?.close();
  });

  const transferOf = (key: string, memo: string | null = `memo of ${key}`): NewTransfer => ({
    id: randomIds.next('trf'),
    organizationId,
    clientId,
    idempotencyKey: key,
    amountCents: 12_345,
    currency: 'EGP',
    category: 'TRAVEL',
    submissionDate: 1_764_400_000_000,
    bankId: 'NBE',
    accountNumber: '1234567890123',
    accountName: 'Some Name',
    memo,
  });

  const responseOf = (transfer: NewTransfer, body: string, options: { retentionMs?: number } = {}) =>
    storedResponseStatement({
      clientId: transfer.clientId,
      key: transfer.idempotencyKey,
      fingerprint: `POST /v1/transfer ${transfer.idempotencyKey}`,
      nowMs: systemClock.now(),
      status: 200,
      body,
      ...(options.retentionMs === undefined ? {} : { retentionMs: options.retentionMs }),
    });

  /** A create's statement as the unit of work sends it at the commit: the insert with its response alongside. */
  const createStatement = async (
    transfer: NewTransfer,
    options: { retentionMs?: number } = {},
  ): Promise<CompiledQuery> => {
    let deferred: CompiledQuery | undefined;
    const stored = await insertTransfer(database.db, transfer, (statement) => (deferred = statement.compile()));
    if (deferred === undefined) throw new Error('the insert was not deferred');
    return withAlongside(deferred, responseOf(transfer, JSON.stringify(stored), options));
  };

  /** Runs the creates' statements in one moment, as the writes of one turn of the event loop hand them over. */
  const inOneMoment = async (
    run: RunOverRows,
    transfers: readonly NewTransfer[],
    options: { retentionMs?: number }[] = [],
  ) => {
    const statements = await Promise.all(transfers.map((transfer, index) => createStatement(transfer, options[index])));
    return Promise.allSettled(statements.map((statement) => run(statement)));
  };

  const storedTransfer = (id: string) =>
    database.db.selectFrom('transfers').selectAll().where('id', '=', id).executeTakeFirst();
  const storedResponse = (key: string) =>
    database.db
      .selectFrom('idempotency_keys')
      .select(['client_id', 'response_status', 'response_body'])
      .where('key', '=', key)
      .executeTakeFirst();

  it('runs the creates of one moment as one statement, each stored as it would be alone', async () => {
    const { db, statements } = counted(database.db);
    const transfers = Array.from({ length: 5 }, () => transferOf(randomUUID()));
    const outcomes = await inOneMoment(createRowsTogether(db, { together: true }), transfers);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(transfers.map(() => 'fulfilled'));
    expect(statements()).toBe(1);
    for (const transfer of transfers) {
      const row = await storedTransfer(transfer.id);
      expect(row).toMatchObject({
        organization_id: organizationId,
        idempotency_key: transfer.idempotencyKey,
        amount_cents: 12_345,
        memo: transfer.memo,
        status: 'PENDING',
        note: null,
      });
      const received = await storedResponse(transfer.idempotencyKey);
      expect(received).toMatchObject({ client_id: clientId, response_status: 200 });
      expect(JSON.parse(received?.response_body ?? 'null')).toMatchObject({ id: transfer.id, memo: transfer.memo });
    }
  });

  it('sends a lone statement at once; those that come while it runs go together after it', async () => {
    let statements = 0;
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    // The first statement's run ends only when the test says so.
    const plugin: KyselyPlugin = {
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        statements += 1;
        if (statements === 1) await held;
        return args.result;
      },
    };
    const run = createRowsTogether(database.db.withPlugin(plugin), { together: true });
    const [lone, ...later] = [
      transferOf(randomUUID()),
      transferOf(randomUUID()),
      transferOf(randomUUID()),
      transferOf(randomUUID()),
    ];
    const first = run(await createStatement(lone as NewTransfer));
    const laterStatements = await Promise.all(later.map((transfer) => createStatement(transfer)));
    for (let turns = 0; turns < 50 && statements === 0; turns += 1)
      await new Promise((resolve) => setTimeout(resolve, 5));
    expect(statements).toBe(1);
    const rest = laterStatements.map((statement) => run(statement));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(statements).toBe(1);
    release();
    await Promise.all([first, ...rest]);
    expect(statements).toBe(2);
    for (const transfer of [lone, ...later])
      expect((await storedTransfer((transfer as NewTransfer).id))?.id).toBe((transfer as NewTransfer).id);
  });

  it('runs each alone when not together, and apart when their other parameters differ', async () => {
    const apart = counted(database.db);
    await inOneMoment(createRowsTogether(apart.db, { together: false }), [
      transferOf(randomUUID()),
      transferOf(randomUUID()),
      transferOf(randomUUID()),
    ]);
    expect(apart.statements()).toBe(3);
    const retentions = counted(database.db);
    const outcomes = await inOneMoment(
      createRowsTogether(retentions.db, { together: true }),
      [transferOf(randomUUID()), transferOf(randomUUID()), transferOf(randomUUID())],
      [{}, { retentionMs: 60_000 }, {}],
    );
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    expect(retentions.statements()).toBe(2);
  });

  it('fails only the write that cannot commit; the others of its moment commit', async () => {
    const run = createRowsTogether(database.db, { together: true });
    const responded = transferOf(randomUUID());
    await run(await createStatement(responded));
    const ok = [transferOf(randomUUID()), transferOf(randomUUID()), transferOf(randomUUID())] as const;
    const again = transferOf(responded.idempotencyKey);
    // A transfer naming another organization's client: its foreign key rejects it.
    const foreign = { ...transferOf(randomUUID()), clientId: otherClientId };
    const outcomes = await inOneMoment(run, [ok[0], again, ok[1], foreign, ok[2]]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    const [, taken, , crossed] = outcomes;
    expect(idempotencyKeyTakenOf((taken as PromiseRejectedResult).reason)?.outcome).toBe('exists');
    expect(((crossed as PromiseRejectedResult).reason as { code?: string }).code).toBe('23503');
    for (const transfer of ok) expect((await storedTransfer(transfer.id))?.id).toBe(transfer.id);
    expect(await storedTransfer(again.id)).toBeUndefined();
    expect(await storedTransfer(foreign.id)).toBeUndefined();
    expect(await storedResponse(foreign.idempotencyKey)).toBeUndefined();
  });

  it('commits one of two creates with one key in one moment; the other finds the key taken', async () => {
    const key = randomUUID();
    const outcomes = await inOneMoment(createRowsTogether(database.db, { together: true }), [
      transferOf(key),
      transferOf(key),
    ]);
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    // Run again each by itself, the two may overlap on PostgreSQL: the loser finds the key being
    // stored (409 for its request, which then replays) or stored (a replay).
    const rejected = outcomes.flatMap((outcome) =>
      outcome.status === 'rejected' ? [idempotencyKeyTakenOf(outcome.reason)?.outcome] : [],
    );
    expect(rejected).toHaveLength(1);
    expect(['in-flight', 'exists']).toContain(rejected[0]);
    const stored = await database.db.selectFrom('transfers').select('id').where('idempotency_key', '=', key).execute();
    expect(stored).toHaveLength(1);
  });

  it('stores half of a surrogate pair as a bound text stores it, U+FFFD', async () => {
    const text = 'a\ud800b\udc00c';
    const together = transferOf(randomUUID(), text);
    const alone = transferOf(randomUUID(), text);
    // A backslash before "ud" is text, kept as sent.
    const backslash = transferOf(randomUUID(), 'C:\\udata \\ud800');
    await inOneMoment(createRowsTogether(database.db, { together: true }), [together, backslash]);
    await insertTransfer(database.db, alone);
    const { rows } = await sql<{ memo: string }>`select ${text}::text as memo`.execute(database.db);
    expect(rows[0]?.memo).toBe('a\ufffdb\ufffdc');
    expect((await storedTransfer(together.id))?.memo).toBe(rows[0]?.memo);
    expect((await storedTransfer(alone.id))?.memo).toBe(rows[0]?.memo);
    expect((await storedTransfer(backslash.id))?.memo).toBe('C:\\udata \\ud800');
  });

  it('hands over the statement of a write whose transaction ran nothing else; sends one in place after another statement', async () => {
    const together = createRowsTogether(database.db, { together: true });
    let handedOver = 0;
    const run: RunOverRows = (statement) => {
      handedOver += 1;
      return together(statement);
    };
    const create = (transfer: NewTransfer, readFirst: boolean) =>
      inTransactionWithStatementAtCommit(
        database.db,
        async (tx, atCommit) => {
          if (readFirst) await tx.selectFrom('organizations').select('id').where('id', '=', organizationId).execute();
          return insertTransfer(tx, transfer, atCommit);
        },
        (stored) => responseOf(transfer, JSON.stringify(stored)),
        run,
      );
    const handed = [transferOf(randomUUID()), transferOf(randomUUID())];
    await Promise.all(handed.map((transfer) => create(transfer, false)));
    expect(handedOver).toBe(2);
    const inPlace = [transferOf(randomUUID()), transferOf(randomUUID())];
    await Promise.all(inPlace.map((transfer) => create(transfer, true)));
    expect(handedOver).toBe(2);
    for (const transfer of [...handed, ...inPlace]) {
      expect((await storedTransfer(transfer.id))?.id).toBe(transfer.id);
      expect((await storedResponse(transfer.idempotencyKey))?.response_status).toBe(200);
    }
  });

  it('writes one text for every insert of a table, its columns and its clauses, and runs it on its own', async () => {
    const department = (name: string) => ({ id: randomIds.next('dep'), organization_id: organizationId, name });
    const [first, second] = [department('Sales'), department('Field sales')];
    const one = insertRows('departments', [first]);
    const other = insertRows('departments', [second]);
    expect(other.sql).toBe(one.sql);
    expect(insertRows('departments', [first], { onConflict: '(id) do nothing' }).sql).not.toBe(one.sql);
    await database.db.executeQuery(one);
    await database.db.executeQuery(insertRows('departments', [first, second], { onConflict: '(id) do nothing' }));
    const names = await database.db
      .selectFrom('departments')
      .select('name')
      .where('id', 'in', [first.id, second.id])
      .orderBy('name')
      .execute();
    expect(names.map((row) => row.name)).toEqual(['Field sales', 'Sales']);
    const unsafe = { ...first, 'name; drop table departments': 'x' } as typeof first;
    expect(() => insertRows('departments', [unsafe])).toThrow(/is not a column name/);
  });
});
