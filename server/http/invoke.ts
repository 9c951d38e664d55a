import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Kysely } from 'kysely';
import type { AnyOperationResult, Invoke, OperationId, RouteDefinition } from '../../generated/server.js';
import type { CursorCodec } from '../domain/cursor.js';
import type { Principal, TokenService } from '../domain/tokens.js';
import type { Logger } from '../logger.js';
import type { Clock, IdGenerator } from '../runtime.js';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  makeGuardedChange,
  releaseIdempotencyKey,
  storeNewAnswer,
  type GuardedChange,
  IDEMPOTENCY_LOCK_TIMEOUT_MS,
  IDEMPOTENCY_RETENTION_MS,
} from '../store/idempotency.js';
import type { DB } from '../store/schema.js';
import { inTransaction } from '../store/in-transaction.js';
import { PRINCIPAL, type AuthenticatedLocals } from './authenticate.js';
import { ApiError } from './errors.js';
import { RAW_BODY, type RawBodyRequest } from './body-parsers.js';
import { isSignedWrite } from './route-policy.js';

/** Long-lived parts every handler may use. */
export interface Services {
  readonly db: Kysely<DB>;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly logger: Logger;
  readonly tokens: TokenService;
  /** Issues tokens dated `ms` instead of now (the token endpoint, in the second of a revocation). */
  readonly tokensDatedAt: (ms: number) => TokenService;
  readonly cursors: CursorCodec;
  readonly paymentNetworkDelayMs: number;
}

/** What a handler gets besides its validated input. */
export interface OperationContext {
  /** The database; for a write operation, the transaction that also stores the idempotent answer. */
  readonly db: Kysely<DB>;
  /** One clock reading for the whole request, in Unix milliseconds. */
  readonly now: number;
  /** The caller, for operations that require a bearer token. */
  readonly principal: Principal | undefined;
  readonly services: Services;
  /** A request header the document cannot declare as a parameter (Authorization on the token endpoint). */
  header(name: string): string | undefined;
  /**
   * Write operations: makes `change` (an insert that runs only under a new idempotency key) as
   * part of storing the answer, and returns `answer`. The handlers of `oneStatementWrites` make
   * their change this way: it then goes in one statement with the stored answer.
   */
  changeWithAnswer<R>(change: GuardedChange, answer: R): Promise<R>;
}

/** The organization of the authenticated caller; only operations with a security requirement call it. */
export function organizationOf(ctx: OperationContext): string {
  if (ctx.principal === undefined) throw new Error('organizationOf called on an operation without authentication');
  return ctx.principal.organizationId;
}

/**
 * The idempotency fingerprint of decisions §3: method, path (as signed: no query string) and a
 * SHA-256 of the exact body bytes. Retries must send the same bytes, which every SDK does.
 */
export function fingerprintOf(req: Request): string {
  const path = req.originalUrl.split('?')[0] ?? req.path;
  return requestFingerprint(req.method, path, (req as RawBodyRequest)[RAW_BODY] ?? Buffer.alloc(0));
}

/** The fingerprint of a request from its parts (tests use it to hold a key as a request would). */
export function requestFingerprint(method: string, path: string, body: Uint8Array): string {
  return createHash('sha256')
    .update(`${method.toUpperCase()} ${path}\n`)
    .update(createHash('sha256').update(body).digest('hex'))
    .digest('hex');
}

function send(res: Response, result: AnyOperationResult, extraHeaders: Record<string, string> = {}): void {
  res.set({ ...result.headers, ...extraHeaders });
  res.status(result.status);
  if (result.body === undefined) res.end();
  else res.json(result.body);
}

/** A 5xx from a handler: the transaction rolls back and the key is released (decisions §3). */
class ServerFailure extends Error {
  constructor(readonly result: AnyOperationResult) {
    super(`operation answered ${result.status}`);
  }
}

/** The database of a handler that must not use it (oneStatementWrites): any use is a bug, and says so. */
const NO_DATABASE = new Proxy({} as Kysely<DB>, {
  get(): never {
    throw new Error('a handler of oneStatementWrites read or wrote ctx.db; its one change goes through ctx.changeWithAnswer');
  },
});

const readOnly = (): never => {
  throw new Error('changeWithAnswer is for write operations');
};

/**
 * Runs one operation: reads go straight to the handler; writes follow decisions §3 step 7.
 * The key is claimed in its own short transaction; the handler then runs in one transaction that
 * also stores its answer, so the change and the answer commit together or not at all
 * (a crash in between leaves a lock that expires, never a change without its answer).
 *
 * `oneStatementWrites` are the writes whose handler reads nothing from the database and makes its
 * one change through ctx.changeWithAnswer (a new transfer): for them the handler runs first, and
 * a new key, its answer and the change are stored in one statement; a key that exists (a retry,
 * another request, an expired key) goes the way above, where the handler runs again.
 */
export function createInvoke(services: Services, oneStatementWrites: ReadonlySet<OperationId>): Invoke<OperationContext> {
  return async (route: RouteDefinition, req: Request, res: Response, run) => {
    const principal = (res.locals as AuthenticatedLocals)[PRINCIPAL];
    const now = services.clock.now();
    const header = (name: string): string | undefined => req.get(name);
    const context = (db: Kysely<DB>, changeWithAnswer: OperationContext['changeWithAnswer']): OperationContext => ({
      db,
      now,
      principal,
      services,
      header,
      changeWithAnswer,
    });

    if (!isSignedWrite(route)) {
      send(res, await run(context(services.db, readOnly)));
      return;
    }
    if (principal === undefined) throw new Error(`${route.operationId}: a write operation must be authenticated`);

    const key = req.get('idempotency-key') ?? '';
    const scope = { clientId: principal.clientId, key };
    const fingerprint = fingerprintOf(req);

    let taken = false;
    if (oneStatementWrites.has(route.operationId)) {
      let change: GuardedChange | undefined;
      const answer = await run(
        context(NO_DATABASE, async (made, result) => {
          change = made;
          return result;
        }),
      );
      // A 5xx stores nothing (decisions §3): as if claimed and released.
      if (answer.status >= 500) {
        send(res, answer);
        return;
      }
      const body = JSON.stringify(answer.body ?? null);
      if (await storeNewAnswer(services.db, { ...scope, fingerprint, nowMs: now, status: answer.status, body }, change)) {
        send(res, answer);
        return;
      }
      taken = true;
    }

    const claim = await claimIdempotencyKey(services.db, {
      ...scope,
      fingerprint,
      nowMs: now,
      taken,
      lockTimeoutMs: IDEMPOTENCY_LOCK_TIMEOUT_MS,
      retentionMs: IDEMPOTENCY_RETENTION_MS,
    });
    switch (claim.kind) {
      case 'replay':
        res.set('Idempotent-Replayed', 'true');
        res.status(claim.status).json(JSON.parse(claim.body) as unknown);
        return;
      case 'in-flight':
        throw new ApiError('idempotencyKeyInFlight', 'A request with this Idempotency-Key is still being processed.', {
          details: 'Retry after a short wait to get its answer.',
          headers: { 'Retry-After': '1' },
        });
      case 'mismatch':
        throw new ApiError('idempotencyKeyReused', 'This Idempotency-Key was used for a different request.', {
          details: 'A key fixes the method, path and body of its first request; use a new key for a new request.',
        });
      case 'claimed':
        break;
    }

    try {
      const result = await inTransaction(services.db, async (tx) => {
        const answer = await run(
          context(tx, async (change, result) => {
            await makeGuardedChange(tx, change);
            return result;
          }),
        );
        if (answer.status >= 500) throw new ServerFailure(answer);
        await completeIdempotencyKey(tx, {
          ...scope,
          lockId: claim.lockId,
          status: answer.status,
          body: JSON.stringify(answer.body ?? null),
        });
        return answer;
      });
      send(res, result);
    } catch (error) {
      await releaseIdempotencyKey(services.db, { ...scope, lockId: claim.lockId }).catch((releaseError: unknown) =>
        services.logger.error({ err: releaseError, operationId: route.operationId }, 'could not release idempotency key'),
      );
      if (error instanceof ServerFailure) send(res, error.result);
      else throw error;
    }
  };
}
