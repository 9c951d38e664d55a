import type { AddressInfo } from 'node:net';
import express from 'express';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes, type AnyOperationResult, type RouteDefinition } from '../../generated/server.js';
import { createCursorCodec } from '../../server/domain/cursor.js';
import { createTokenService } from '../../server/domain/tokens.js';
import { PRINCIPAL, type AuthenticatedLocals } from '../../server/http/authenticate.js';
import { RAW_BODY, type RawBodyRequest } from '../../server/http/body-parsers.js';
import { errorHandler } from '../../server/http/errors.js';
import type { Services, UnitOfWork } from '../../server/http/handler-kinds.js';
import { createInvoke, requestFingerprint } from '../../server/http/unit-of-work.js';
import { onboardOrganization } from '../../server/onboarding.js';
import { randomIds, systemClock } from '../../server/clock-and-ids.js';
import { conditionHolds } from '../../server/database/at-commit.js';
import { createCardReads } from '../../server/store/card-reads.js';
import { createRowsTogether } from '../../server/database/rows-together.js';

import { outcomeOf, storeResponse } from '../helpers/store-response.js';
import { getBalance } from '../../server/store/organizations.js';
import { createTestDatabase, type TestDatabase } from '../../scripts/proof/database.js';
import { gate, recordingLogger } from './support.js';

// The unit of work of createInvoke, driven directly with handlers of the test's own: each write
// adds one cent to the organization's balance, so the balance counts the writes that committed.

let database: TestDatabase;
let baseUrl = '';
let close: () => void = () => undefined;
let clientId = '';
let organizationId = '';
const log = recordingLogger();
/** The route and handler the next request runs. */
let route: RouteDefinition = routes.createTransfer;
let handler: (unit: UnitOfWork) => Promise<AnyOperationResult> = async () => ({ status: 200, body: {} });

beforeAll(async () => {
  database = await createTestDatabase();
  const onboarded = await onboardOrganization(
    database.db,
    { ids: randomIds, clock: systemClock },
    { name: 'Unit Ltd', balanceCents: 0 },
  );
  clientId = onboarded.clientId;
  organizationId = onboarded.organizationId;
  const key = Buffer.alloc(32, 7);
  const services: Services = {
    db: database.db,
    clock: systemClock,
    ids: randomIds,
    logger: log.logger,
    tokens: createTokenService(key, systemClock),
    tokensDatedAt: (ms) => createTokenService(key, { now: () => ms }),
    cursors: createCursorCodec(key),
    paymentNetworkDelayMs: 0,
    readCard: createCardReads(database.db, { batched: true }),
    runOverRows: createRowsTogether(database.db, { together: true }),
  };
  const invoke = createInvoke(services);
  const app = express();
  app.post('/write', express.raw({ type: () => true }), (req, res, next) => {
    (req as RawBodyRequest)[RAW_BODY] = req.body as Buffer;
    (res.locals as AuthenticatedLocals)[PRINCIPAL] = { clientId, organizationId, scopes: ['transfers:write'] };
    invoke(route, req, res, (unit) => handler(unit)).catch(next);
  });
  app.use(errorHandler({ logger: log.logger, tokenPath: '/token' }));
  const server = app.listen(0);
  await new Promise((resolve) => server.once('listening', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => server.close();
});

afterAll(async () => {
  close();
  await database.close();
});

interface WriteResult {
  status: number;
  body: unknown;
  replayed: boolean;
}

async function write(key: string, body = 'one'): Promise<WriteResult> {
  const response = await fetch(`${baseUrl}/write`, { method: 'POST', headers: { 'Idempotency-Key': key }, body });
  return {
    status: response.status,
    body: (await response.json()) as unknown,
    replayed: response.headers.get('idempotent-replayed') === 'true',
  };
}

async function storedKeys(key: string): Promise<number> {
  const { rows } = await sql<{
    n: number;
  }>`select count(*)::int as n from idempotency_keys where client_id = ${clientId} and key = ${key}`.execute(
    database.db,
  );
  return rows[0]?.n ?? 0;
}

const balance = async (): Promise<number> => (await getBalance(database.db, organizationId)) ?? Number.NaN;

/** A write handler that adds a cent in its transaction, then responds with what `respond` says. */
function addingCent(
  respond: (run: number) => AnyOperationResult | Promise<AnyOperationResult>,
): (unit: UnitOfWork) => Promise<AnyOperationResult> {
  let runs = 0;
  return (unit) =>
    unit.idempotentWrite(async (ctx) => {
      await sql`update organizations set balance_cents = balance_cents + 1 where id = ${ctx.principal.organizationId}`.execute(
        ctx.tx,
      );
      return respond(++runs);
    });
}

describe('an idempotent write', () => {
  it('commits its change with its stored response, and a retry replays the response without a second change', async () => {
    route = routes.createTransfer;
    handler = addingCent((run) => ({ status: 200, body: { run } }));
    const before = await balance();
    expect(await write('unit-key-0001')).toEqual({ status: 200, body: { run: 1 }, replayed: false });
    expect(await write('unit-key-0001')).toEqual({ status: 200, body: { run: 1 }, replayed: true });
    expect(await storedKeys('unit-key-0001')).toBe(1);
    expect(await balance()).toBe(before + 1);
  });

  it('a handler that throws rolls back its change and stores no key: the retry runs as new', async () => {
    log.entries.length = 0;
    handler = addingCent((run) => {
      if (run === 1) throw new Error('the handler died half way');
      return { status: 200, body: { run } };
    });
    const before = await balance();
    expect(await write('unit-key-0002')).toMatchObject({ status: 500, body: { type: 'InternalError' } });
    expect(await storedKeys('unit-key-0002')).toBe(0);
    expect(await balance()).toBe(before);
    expect(await write('unit-key-0002')).toEqual({ status: 200, body: { run: 2 }, replayed: false });
    expect(await balance()).toBe(before + 1);
    expect(log.entries.map((entry) => (entry.object['err'] as Error | undefined)?.message)).toContain(
      'the handler died half way',
    );
  });

  it('a 5xx response rolls back its change and is not stored, so that a retry runs again', async () => {
    handler = addingCent((run) =>
      run === 1 ? { status: 503, body: { message: 'down', type: 'InternalError' } } : { status: 200, body: { run } },
    );
    const before = await balance();
    expect(await write('unit-key-0003')).toEqual({
      status: 503,
      body: { message: 'down', type: 'InternalError' },
      replayed: false,
    });
    expect(await storedKeys('unit-key-0003')).toBe(0);
    expect(await balance()).toBe(before);
    expect(await write('unit-key-0003')).toEqual({ status: 200, body: { run: 2 }, replayed: false });
    expect(await balance()).toBe(before + 1);
  });

  it('a 4xx response is stored like any other, and replayed', async () => {
    handler = addingCent((run) => ({ status: 400, body: { message: `rejected ${run}`, type: 'InvalidRequest' } }));
    expect(await write('unit-key-0004')).toEqual({
      status: 400,
      body: { message: 'rejected 1', type: 'InvalidRequest' },
      replayed: false,
    });
    expect(await write('unit-key-0004')).toEqual({
      status: 400,
      body: { message: 'rejected 1', type: 'InvalidRequest' },
      replayed: true,
    });
  });

  it('another request under a used key is rejected with 422 and its change rolled back', async () => {
    handler = addingCent((run) => ({ status: 200, body: { run } }));
    await write('unit-key-0005', 'first');
    const before = await balance();
    expect(await write('unit-key-0005', 'second')).toMatchObject({
      status: 422,
      body: { type: 'DuplicateIdempotencyKey' },
    });
    expect(await balance()).toBe(before);
  });

  it('while another transaction is storing the same key: 409 on PostgreSQL; on the embedded database the request waits and replays', async () => {
    handler = addingCent((run) => ({ status: 200, body: { run } }));
    const key = 'unit-key-0006';
    const fingerprint = requestFingerprint('POST', '/write', Buffer.from('one'));
    const { open: release, opened: released } = gate();
    const { open: holding, opened: held } = gate();
    const before = await balance();
    const holder = database.db.transaction().execute(async (tx) => {
      const outcome = await outcomeOf(
        storeResponse(tx, { clientId, key, fingerprint, nowMs: Date.now(), status: 201, body: '{"held":true}' }),
      );
      holding();
      await released;
      return outcome;
    });
    // Nothing else may use the database while the holder runs: on the embedded one it would wait for it.
    await held;
    const pending = write(key);
    if (database.kind === 'postgres') {
      expect(await pending).toMatchObject({ status: 409, body: { type: 'DuplicateIdempotencyKey' } });
      release();
    } else {
      // One backend: the request's transaction starts after the holder's commits.
      setTimeout(release, 50);
      expect(await pending).toEqual({ status: 201, body: { held: true }, replayed: true });
    }
    expect(await holder).toBe('stored');
    expect(await balance()).toBe(before);
    expect(await write(key)).toEqual({ status: 201, body: { held: true }, replayed: true });
  });

  it.runIf(process.env['DATABASE_URL'] !== undefined)(
    'a retry of an acknowledged key gets the stored response, not 409, while another retry of it holds the key (PostgreSQL)',
    async () => {
      handler = addingCent((run) => ({ status: 200, body: { run } }));
      const key = 'unit-key-0016';
      const first = await write(key);
      expect(first).toMatchObject({ status: 200, replayed: false });
      const before = await balance();
      // Another retry of the same request, between its storeResponse and its rollback: it holds the key's lock.
      const { open: release, opened: released } = gate();
      const { open: holding, opened: held } = gate();
      const retry = database.db.transaction().execute(async (tx) => {
        await sql`select pg_advisory_xact_lock(hashtextextended(${clientId} || ' ' || ${key}, 0))`.execute(tx);
        holding();
        await released;
      });
      await held;
      try {
        expect(await write(key)).toEqual({ status: 200, body: first.body, replayed: true });
        expect(await write(key, 'another')).toMatchObject({ status: 422, body: { type: 'DuplicateIdempotencyKey' } });
      } finally {
        release();
        await retry;
      }
      expect(await balance()).toBe(before);
    },
  );

  it('a key older than the retention is forgotten: the request runs as new', async () => {
    handler = addingCent((run) => ({ status: 200, body: { run } }));
    const key = 'unit-key-0007';
    const fingerprint = requestFingerprint('POST', '/write', Buffer.from('other'));
    await sql`insert into idempotency_keys (client_id, key, fingerprint, response_status, response_body, created_at)
      values (${clientId}, ${key}, ${fingerprint}, 200, '{"old":true}', ${Date.now() - 25 * 60 * 60 * 1000})`.execute(
      database.db,
    );
    expect(await write(key)).toEqual({ status: 200, body: { run: 1 }, replayed: false });
    expect(await write(key)).toEqual({ status: 200, body: { run: 1 }, replayed: true });
  });
});

/**
 * A write handler that adds a cent in place, then defers (when it may) a statement adding a cent
 * to `target`'s balance, on the condition that the organization exists, and responds with its run and
 * whether it deferred; run in place, it responds with 400 when `target` does not exist.
 */
function deferringCent(
  target: () => string,
  runs: { atCommit: boolean }[],
): (unit: UnitOfWork) => Promise<AnyOperationResult> {
  return (unit) =>
    unit.idempotentWrite(async (ctx) => {
      runs.push({ atCommit: ctx.atCommit !== undefined });
      await sql`update organizations set balance_cents = balance_cents + 1 where id = ${ctx.principal.organizationId}`.execute(
        ctx.tx,
      );
      const adding = ctx.tx.with('added', (db) =>
        db
          .updateTable('organizations')
          .set((eb) => ({ balance_cents: eb('balance_cents', '+', 1) }))
          .where('id', '=', target())
          .returning('id'),
      );
      if (ctx.atCommit !== undefined) {
        ctx.atCommit(
          adding.selectNoFrom((eb) =>
            conditionHolds(eb.exists(eb.selectFrom('added').select('added.id')), 'the organization exists').as('held'),
          ),
        );
        return { status: 200, body: { run: runs.length, deferred: true } };
      }
      const added = await adding
        .selectNoFrom((eb) => eb.exists(eb.selectFrom('added').select('added.id')).as('held'))
        .executeTakeFirstOrThrow();
      return added.held
        ? { status: 200, body: { run: runs.length, deferred: false } }
        : { status: 400, body: { message: 'no such organization', type: 'InvalidRequest' } };
    });
}

describe('a statement sent at the commit', () => {
  it('carries the stored response and commits with it when its condition holds: the handler runs once', async () => {
    const runs: { atCommit: boolean }[] = [];
    handler = deferringCent(() => organizationId, runs);
    const before = await balance();
    expect(await write('unit-key-0101')).toEqual({ status: 200, body: { run: 1, deferred: true }, replayed: false });
    expect(runs).toEqual([{ atCommit: true }]);
    expect(await balance()).toBe(before + 2);
    // The stored response travels inside the deferred statement: the taken key fails that statement.
    for (let replay = 0; replay < 3; replay += 1) {
      expect(await write('unit-key-0101')).toEqual({ status: 200, body: { run: 1, deferred: true }, replayed: true });
    }
    expect(await balance()).toBe(before + 2);
  });

  it('when its condition does not hold nothing of the run commits, and the handler runs again in place; that response is stored', async () => {
    const runs: { atCommit: boolean }[] = [];
    handler = deferringCent(() => 'org_that_does_not_exist', runs);
    const before = await balance();
    const rejected = { status: 400, body: { message: 'no such organization', type: 'InvalidRequest' } };
    expect(await write('unit-key-0102')).toEqual({ ...rejected, replayed: false });
    expect(runs).toEqual([{ atCommit: true }, { atCommit: false }]);
    // The first run's cent was rolled back with its deferred statement; the second run's committed.
    expect(await balance()).toBe(before + 1);
    expect(await storedKeys('unit-key-0102')).toBe(1);
    // A replay's deferred statement, which carries its stored response, fails on its condition first
    // (PostgreSQL runs a statement's main query before the data-modifying CTEs it does not read):
    // the handler runs again in place, the stored response then fails, and nothing of either run commits.
    expect(await write('unit-key-0102')).toEqual({ ...rejected, replayed: true });
    expect(runs).toEqual([{ atCommit: true }, { atCommit: false }, { atCommit: true }, { atCommit: false }]);
    expect(await balance()).toBe(before + 1);
    expect(await storedKeys('unit-key-0102')).toBe(1);
  });

  it('a handler that defers two statements fails loudly and commits nothing', async () => {
    const before = await balance();
    handler = (unit) =>
      unit.idempotentWrite(async (ctx) => {
        await sql`update organizations set balance_cents = balance_cents + 1 where id = ${ctx.principal.organizationId}`.execute(
          ctx.tx,
        );
        const statement = ctx.tx.selectNoFrom(sql<boolean>`true`.as('held'));
        ctx.atCommit?.(statement);
        ctx.atCommit?.(statement);
        return { status: 200, body: {} };
      });
    expect(await write('unit-key-0103')).toMatchObject({ status: 500, body: { type: 'InternalError' } });
    expect(await storedKeys('unit-key-0103')).toBe(0);
    expect(await balance()).toBe(before);
  });
});

describe('the kind of a handler', () => {
  it('an operation declared as an idempotent write where the document declares no write headers fails loudly', async () => {
    log.entries.length = 0;
    route = routes.getTransfer;
    handler = addingCent(() => ({ status: 200, body: {} }));
    expect(await write('unit-key-0008')).toMatchObject({ status: 500, body: { type: 'InternalError' } });
    expect(log.entries.map((entry) => (entry.object['err'] as Error | undefined)?.message)).toContain(
      'getTransfer: its handler is declared an idempotent write, but the document does not make it a signed write',
    );
  });

  it('a signed write declared as an operation fails loudly', async () => {
    log.entries.length = 0;
    route = routes.createTransfer;
    handler = (unit) => unit.operation(async () => ({ status: 200, body: {} }));
    expect(await write('unit-key-0009')).toMatchObject({ status: 500, body: { type: 'InternalError' } });
    expect(log.entries.map((entry) => (entry.object['err'] as Error | undefined)?.message)).toContain(
      'createTransfer: its handler is declared an operation, but the document makes it a signed write',
    );
  });
});
