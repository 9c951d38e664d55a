import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestFingerprint } from '../../server/http/unit-of-work.js';
import { SETTLEMENT_BATCH, settleDueTransfers, startSettlementWorker } from '../../server/settlement-worker.js';
import { openDatabase } from '../../server/database/open.js';
import { storeResponse } from '../helpers/store-response.js';
import { getBalance } from '../../server/store/organizations.js';
import { claimDueSettlements, executeTransfer, type NewTransfer } from '../../server/store/transfers.js';
import { insertTransfer } from '../../server/store/transfers.js';
import { startTestApp, type Partner, type TestApp } from '../../scripts/proof/app.js';
import {
  FAILING_IBAN,
  createTransfer,
  newTransferOf,
  eventually,
  recordingLogger,
  transferAction,
  transferBody,
  type LogEntry,
  type TransferJson,
} from './support.js';

// Crash safety: an operation interrupted before its commit leaves neither a stored key nor a
// change without its response or its money; settlement resumes after a restart and
// settles every transfer exactly once, also with two workers at once.

const DELAY_MS = 2_000;
const postgresUrl = process.env['DATABASE_URL'];
let app: TestApp;
let partner: Partner;

beforeAll(async () => {
  app = await startTestApp({ paymentNetworkDelayMs: DELAY_MS });
  partner = await app.onboard({ name: 'Crash Partner', balanceCents: 1_000_000_00 });
});
afterAll(async () => {
  await app.close();
});

const balanceOf = async (organizationId: string): Promise<number> =>
  (await getBalance(app.db, organizationId)) ?? Number.NaN;

async function transfersWithKey(key: string): Promise<number> {
  const row = await app.db
    .selectFrom('transfers')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('client_id', '=', partner.clientId)
    .where('idempotency_key', '=', key)
    .executeTakeFirstOrThrow();
  return row.n;
}

async function dueProcessing(): Promise<number> {
  const row = await app.db
    .selectFrom('transfers')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', '=', 'PROCESSING')
    .where('settle_after', '<=', app.clock.now())
    .executeTakeFirstOrThrow();
  return row.n;
}

const settledIn = (entries: readonly LogEntry[]): number =>
  entries.reduce((sum, entry) => sum + (typeof entry.object['settled'] === 'number' ? entry.object['settled'] : 0), 0);

describe('an interrupted write', () => {
  it('a write whose instance died before its commit stored nothing: the retry on another instance runs once', async () => {
    const bodyJson = transferBody({ amountCents: 4_242 });
    const body = JSON.stringify(bodyJson);
    const key = randomUUID();
    const crashed = await app.startInstance();
    // The crashed instance got as far as its transfer and its stored response, then went away
    // before its commit: its transaction rolls back, whatever its connection does next.
    await expect(
      crashed.db.transaction().execute(async (tx) => {
        const row = await insertTransfer(tx, newTransferOf(partner, key, bodyJson, app.clock.now()));
        const fingerprint = requestFingerprint('POST', '/v1/transfer', Buffer.from(body));
        await storeResponse(tx, {
          clientId: partner.clientId,
          key,
          fingerprint,
          nowMs: app.clock.now(),
          status: 200,
          body: JSON.stringify(row),
        });
        throw new Error('the process died here');
      }),
    ).rejects.toThrow('the process died here');
    await crashed.close();

    expect(await transfersWithKey(key)).toBe(0);
    const retried = await partner.request('POST', '/v1/transfer', { rawBody: body, idempotencyKey: key });
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(await transfersWithKey(key)).toBe(1);
    const again = await partner.request('POST', '/v1/transfer', { rawBody: body, idempotencyKey: key });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it.runIf(postgresUrl !== undefined)(
    'a write whose connection is cut before its commit (PostgreSQL) stored nothing: the key is free at once',
    async () => {
      const body = JSON.stringify(transferBody({ amountCents: 5_151 }));
      const key = randomUUID();
      const fingerprint = requestFingerprint('POST', '/v1/transfer', Buffer.from(body));
      const lost = await openDatabase({ url: app.databaseUrl, maxConnections: 1, onConnectionError: () => undefined });
      let stored: () => void = () => undefined;
      const storedYet = new Promise<void>((resolve) => {
        stored = resolve;
      });
      const dying = lost.db.transaction().execute(async (tx) => {
        await storeResponse(tx, {
          clientId: partner.clientId,
          key,
          fingerprint,
          nowMs: app.clock.now(),
          status: 200,
          body: '{}',
        });
        stored();
        // The server ends this backend as an instance's crash would end its connection.
        await sql`select pg_terminate_backend(pg_backend_pid())`.execute(tx);
      });
      await storedYet;
      await expect(dying).rejects.toThrow();
      await lost.close();

      const retried = await partner.request('POST', '/v1/transfer', { rawBody: body, idempotencyKey: key });
      expect(retried.status).toBe(200);
      expect(retried.headers.get('idempotent-replayed')).toBeNull();
      expect(await transfersWithKey(key)).toBe(1);
    },
  );

  it('no transfer without its reservation: a crash after execute reserved the money rolls back both', async () => {
    const created = await createTransfer(partner, { amountCents: 7_000 });
    const before = await balanceOf(partner.organizationId);
    await expect(
      app.db.transaction().execute(async (tx) => {
        const outcome = await executeTransfer(
          tx,
          partner.organizationId,
          created.id,
          app.clock.now(),
          app.clock.now() + DELAY_MS,
        );
        expect(outcome.kind).toBe('done');
        throw new Error('the process died here');
      }),
    ).rejects.toThrow('the process died here');
    const after = (await (await partner.request('GET', `/v1/transfer/${created.id}`)).json()) as TransferJson;
    expect(after.status).toBe('PENDING');
    expect(after.reviewedAt).toBeNull();
    expect(await balanceOf(partner.organizationId)).toBe(before);

    // And the execute can simply be done again.
    expect((await transferAction(partner, created.id, 'execute')).status).toBe(200);
    expect(await balanceOf(partner.organizationId)).toBe(before - 7_000);
  });

  it('a crash in the middle of a settlement leaves the transfer PROCESSING and its money reserved; the next pass settles it once', async () => {
    const owner = await app.onboard({ name: 'Mid-settlement', balanceCents: 10_000 });
    const failing = await createTransfer(owner, { amountCents: 3_000, accountNumber: FAILING_IBAN });
    expect((await transferAction(owner, failing.id, 'execute')).status).toBe(200);
    app.clock.advance(DELAY_MS);
    await expect(
      app.db.transaction().execute(async (tx) => {
        const settled = await claimDueSettlements(tx, app.clock.now(), 50, () => 'FAILED');
        expect(settled.map((t) => t.id)).toContain(failing.id);
        throw new Error('the worker died here');
      }),
    ).rejects.toThrow('the worker died here');
    const during = (await (await owner.request('GET', `/v1/transfer/${failing.id}`)).json()) as TransferJson;
    expect(during.status).toBe('PROCESSING');
    expect(await balanceOf(owner.organizationId)).toBe(7_000);

    await settleDueTransfers(app.db, app.clock.now());
    await settleDueTransfers(app.db, app.clock.now());
    const after = (await (await owner.request('GET', `/v1/transfer/${failing.id}`)).json()) as TransferJson;
    expect(after.status).toBe('FAILED');
    // Released once, not twice.
    expect(await balanceOf(owner.organizationId)).toBe(10_000);
  });
});

describe('settlement after a restart', () => {
  it('a worker started on a database holding PROCESSING transfers settles each exactly once', async () => {
    const owner = await app.onboard({ name: 'Restarted', balanceCents: 100_000 });
    const made: { id: string; amount: number; fails: boolean }[] = [];
    for (let i = 0; i < 8; i += 1) {
      const fails = i % 3 === 0;
      const amount = 1_000 + i;
      const created = await createTransfer(owner, {
        amountCents: amount,
        ...(fails ? { accountNumber: FAILING_IBAN } : {}),
      });
      expect((await transferAction(owner, created.id, 'execute')).status).toBe(200);
      made.push({ id: created.id, amount, fails });
    }
    const spent = made.reduce((sum, t) => sum + t.amount, 0);
    expect(await balanceOf(owner.organizationId)).toBe(100_000 - spent);

    // The instance that executed them is gone; a new one starts later, after the network delay.
    app.clock.advance(DELAY_MS);
    const due = await dueProcessing();
    expect(due).toBeGreaterThanOrEqual(made.length);
    const { entries, logger } = recordingLogger();
    const worker = startSettlementWorker({ db: app.db, clock: app.clock, logger, intervalMs: 5 });
    try {
      await eventually(async () => (await dueProcessing()) === 0);
    } finally {
      await worker.stop();
    }
    expect(settledIn(entries)).toBe(due);
    expect(entries.filter((entry) => entry.level === 'error')).toEqual([]);
    for (const transfer of made) {
      const settled = (await (await owner.request('GET', `/v1/transfer/${transfer.id}`)).json()) as TransferJson;
      expect(settled.status).toBe(transfer.fails ? 'FAILED' : 'SUCCEEDED');
    }
    const succeeded = made.filter((t) => !t.fails).reduce((sum, t) => sum + t.amount, 0);
    expect(await balanceOf(owner.organizationId)).toBe(100_000 - succeeded);
  });

  it('a worker draining several batches lets the process serve between them', async () => {
    const owner = await app.onboard({ name: 'Draining', balanceCents: 0 });
    const now = app.clock.now();
    for (let i = 0; i < 3 * SETTLEMENT_BATCH; i += 1) {
      await insertTransfer(app.db, {
        id: `trf_drn${String(i).padStart(4, '0')}${randomUUID().replaceAll('-', '').slice(0, 13)}`,
        organizationId: owner.organizationId,
        clientId: owner.clientId,
        idempotencyKey: randomUUID(),
        amountCents: 100,
        currency: 'EGP',
        category: 'OTHER',
        submissionDate: now,
        bankId: 'nbe',
        accountNumber: '5551234',
        accountName: 'Seeded',
        status: 'PROCESSING',
        reviewedAt: now,
        settleAfter: now - 1,
      });
    }
    // Turns of the event loop, counted as they happen; each settled batch notes the count it saw.
    let turns = 0;
    let counting = true;
    const tick = (): void => {
      turns += 1;
      if (counting) setImmediate(tick);
    };
    setImmediate(tick);
    const seen: number[] = [];
    const { logger } = recordingLogger();
    const worker = startSettlementWorker({
      db: app.db,
      clock: app.clock,
      logger: {
        ...logger,
        info: (object: object, message?: string) =>
          message === 'transfers settled' ? seen.push(turns) : logger.info(object, message),
      },
      intervalMs: 1,
    });
    try {
      await eventually(async () => (await dueProcessing()) === 0);
    } finally {
      await worker.stop();
      counting = false;
    }
    // On the embedded database a batch never waits for the network: without a turn between
    // batches, the drain would hold the process until the last one, every request waiting.
    expect(seen.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < seen.length; i += 1) expect(seen[i]).toBeGreaterThan(seen[i - 1] ?? Infinity);
  });

  it.skipIf(!postgresUrl)('two workers at once (PostgreSQL, two pools) settle each transfer exactly once', async () => {
    const owner = await app.onboard({ name: 'Two Workers', balanceCents: 0 });
    const now = app.clock.now();
    const rows: NewTransfer[] = Array.from({ length: 160 }, (_, i) => ({
      id: `trf_two${String(i).padStart(4, '0')}${randomUUID().replaceAll('-', '').slice(0, 13)}`,
      organizationId: owner.organizationId,
      clientId: owner.clientId,
      idempotencyKey: randomUUID(),
      amountCents: 100 + i,
      currency: 'EGP',
      category: 'OTHER',
      submissionDate: now,
      bankId: 'nbe',
      accountNumber: i % 4 === 0 ? '5550002' : '5551234',
      accountName: 'Seeded',
      status: 'PROCESSING',
      reviewedAt: now,
      settleAfter: now - 1,
    }));
    for (const row of rows) await insertTransfer(app.db, row);
    const released = rows
      .filter((row) => row.accountNumber.endsWith('0002'))
      .reduce((sum, row) => sum + row.amountCents, 0);
    const due = await dueProcessing();

    const second = await openDatabase({ url: app.databaseUrl ?? '' });
    const first = recordingLogger();
    const other = recordingLogger();
    const workers = [
      startSettlementWorker({ db: app.db, clock: app.clock, logger: first.logger, intervalMs: 1 }),
      startSettlementWorker({ db: second.db, clock: app.clock, logger: other.logger, intervalMs: 1 }),
    ];
    try {
      await eventually(async () => (await dueProcessing()) === 0);
    } finally {
      await Promise.all(workers.map((worker) => worker.stop()));
      await second.close();
    }
    expect(settledIn(first.entries) + settledIn(other.entries)).toBe(due);
    expect([...first.entries, ...other.entries].filter((entry) => entry.level === 'error')).toEqual([]);
    expect(await balanceOf(owner.organizationId)).toBe(released);
    const statuses = await app.db
      .selectFrom('transfers')
      .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
      .where('organization_id', '=', owner.organizationId)
      .groupBy('status')
      .orderBy('status')
      .execute();
    expect(statuses).toEqual([
      { status: 'FAILED', n: 40 },
      { status: 'SUCCEEDED', n: 120 },
    ]);
  });

  it.skipIf(!postgresUrl)('stop() waits for the settlement pass in progress to commit (PostgreSQL)', async () => {
    const owner = await app.onboard({ name: 'Stopping', balanceCents: 10_000 });
    const failing = await createTransfer(owner, { amountCents: 2_500, accountNumber: FAILING_IBAN });
    expect((await transferAction(owner, failing.id, 'execute')).status).toBe(200);
    app.clock.advance(DELAY_MS);

    // Another connection holds the organization's row: the pass blocks when it gives the money back.
    const holder = await openDatabase({ url: app.databaseUrl ?? '' });
    const { entries, logger } = recordingLogger();
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked: () => void = () => {};
    const lockTaken = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const holding = holder.db.transaction().execute(async (tx) => {
      await tx.selectFrom('organizations').select('id').where('id', '=', owner.organizationId).forUpdate().execute();
      locked();
      await released;
    });
    // The row must be held before the worker starts, or its pass may settle first and never wait.
    await lockTaken;
    const worker = startSettlementWorker({ db: app.db, clock: app.clock, logger, intervalMs: 1 });
    let stopped = false;
    try {
      await eventually(async () => {
        const waiting = await sql<{ n: number }>`
          select count(*)::int as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock'`.execute(holder.db);
        return (waiting.rows[0]?.n ?? 0) > 0;
      });
      const stopping = worker.stop().then(() => {
        stopped = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(stopped).toBe(false);
      release();
      await holding;
      await stopping;
      expect(stopped).toBe(true);
    } finally {
      release();
      await worker.stop();
      await holder.close();
    }
    expect(settledIn(entries)).toBeGreaterThanOrEqual(1);
    const after = (await (await owner.request('GET', `/v1/transfer/${failing.id}`)).json()) as TransferJson;
    expect(after.status).toBe('FAILED');
    expect(await balanceOf(owner.organizationId)).toBe(10_000);
  });
});
