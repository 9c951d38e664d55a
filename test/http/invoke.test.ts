import type { AddressInfo } from 'node:net';
import express from 'express';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes, type AnyOperationResult } from '../../generated/server.js';
import { createCursorCodec } from '../../server/domain/cursor.js';
import { createTokenService } from '../../server/domain/tokens.js';
import { PRINCIPAL, type AuthenticatedLocals } from '../../server/http/authenticate.js';
import { errorHandler } from '../../server/http/errors.js';
import { createInvoke, type OperationContext, type Services } from '../../server/http/invoke.js';
import { onboardOrganization } from '../../server/onboarding.js';
import { randomIds, systemClock } from '../../server/runtime.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { recordingLogger } from './support.js';

// The one-statement path of createInvoke (oneStatementWrites), driven directly with handlers of
// the test's own: what the service's handlers never do must still fail safely.

const route = routes.createTransfer;
let database: TestDatabase;
let baseUrl = '';
let close: () => void = () => undefined;
let clientId = '';
const log = recordingLogger();
/** The handler the next request runs. */
let handler: (ctx: OperationContext) => Promise<AnyOperationResult> = async () => ({ status: 200, body: {} });

beforeAll(async () => {
  database = await createTestDatabase();
  const onboarded = await onboardOrganization(database.db, { ids: randomIds, clock: systemClock }, { name: 'Invoke Ltd', balanceCents: 0 });
  clientId = onboarded.clientId;
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
  };
  const invoke = createInvoke(services, new Set([route.operationId]));
  const app = express();
  app.post('/write', express.raw({ type: () => true }), (req, res, next) => {
    (res.locals as AuthenticatedLocals)[PRINCIPAL] = { clientId, organizationId: onboarded.organizationId, scopes: ['transfers:write'] };
    invoke(route, req, res, (ctx) => handler(ctx)).catch(next);
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

async function write(key: string): Promise<{ status: number; body: unknown; replayed: boolean }> {
  const response = await fetch(`${baseUrl}/write`, { method: 'POST', headers: { 'Idempotency-Key': key } });
  return { status: response.status, body: (await response.json()) as unknown, replayed: response.headers.get('idempotent-replayed') === 'true' };
}

async function storedKeys(key: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from idempotency_keys where client_id = ${clientId} and key = ${key}`.execute(database.db);
  return rows[0]?.n ?? 0;
}

describe('a write of oneStatementWrites', () => {
  it('stores a new key with its answer (here without a change), and replays it for the same key', async () => {
    let runs = 0;
    handler = async () => ({ status: 200, body: { run: ++runs } });
    expect(await write('invoke-key-0001')).toEqual({ status: 200, body: { run: 1 }, replayed: false });
    expect(await write('invoke-key-0001')).toEqual({ status: 200, body: { run: 1 }, replayed: true });
    expect(await storedKeys('invoke-key-0001')).toBe(1);
  });

  it('may not touch ctx.db: the request fails with a 500 and nothing is stored', async () => {
    log.entries.length = 0;
    handler = async (ctx) => {
      await ctx.db.selectFrom('transfers').select('id').execute();
      return { status: 200, body: {} };
    };
    const answer = await write('invoke-key-0002');
    expect(answer).toMatchObject({ status: 500, body: { type: 'InternalError' } });
    expect(await storedKeys('invoke-key-0002')).toBe(0);
    expect(log.entries.map((entry) => (entry.object['err'] as Error | undefined)?.message)).toEqual([
      'a handler of oneStatementWrites read or wrote ctx.db; its one change goes through ctx.changeWithAnswer',
    ]);
  });

  it('answers a 5xx of its handler without storing the key, so that a retry runs again', async () => {
    let runs = 0;
    handler = async () => (++runs === 1 ? { status: 503, body: { message: 'down', type: 'InternalError' } } : { status: 200, body: { run: runs } });
    expect(await write('invoke-key-0003')).toEqual({ status: 503, body: { message: 'down', type: 'InternalError' }, replayed: false });
    expect(await storedKeys('invoke-key-0003')).toBe(0);
    expect(await write('invoke-key-0003')).toEqual({ status: 200, body: { run: 2 }, replayed: false });
    expect(await storedKeys('invoke-key-0003')).toBe(1);
  });
});
