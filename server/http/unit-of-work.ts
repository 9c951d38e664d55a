import { hash } from 'node:crypto';
import type { Request } from 'express';
import type { AnyOperationResult, Invoke } from '../../generated/server.js';
import { inTransactionWithStatementAtCommit } from '../database/index.js';
import { findStoredResponse, idempotencyKeyTakenOf, storedResponseStatement } from '../store/idempotency.js';
import { PRINCIPAL, type AuthenticatedLocals } from './authenticate.js';
import { RAW_BODY, type RawBodyRequest } from './body-parsers.js';
import { ApiError } from './errors.js';
import type { OperationContext, Services, UnitOfWork, WriteContext, WriteServices } from './handler-kinds.js';
import { isSignedWrite } from './route-policy.js';
import { sendResult, serializedAs } from 'contract-first/runtime';

/**
 * The idempotency fingerprint: method, path (as signed: no query string) and a SHA-256 of the
 * exact body bytes. Retries must send the same bytes, which every SDK does.
 */
export function fingerprintOf(req: Request): string {
  const path = req.originalUrl.split('?')[0] ?? req.path;
  return requestFingerprint(req.method, path, (req as RawBodyRequest)[RAW_BODY] ?? Buffer.alloc(0));
}

/** The fingerprint of a request from its parts (tests use it to store a key as a request would). */
export function requestFingerprint(method: string, path: string, body: Uint8Array): string {
  return hash('sha256', `${method.toUpperCase()} ${path}\n${hash('sha256', body, 'hex')}`, 'hex');
}

/** Rolls the write's transaction back and is served as is: a 5xx stores nothing, so a retry runs again. */
class UnstoredResponse extends Error {
  constructor(readonly received: AnyOperationResult) {
    super(`operation responded ${received.status}`);
  }
}

const inFlight = (): ApiError =>
  new ApiError('idempotencyKeyInFlight', 'A request with this Idempotency-Key is still being processed.', {
    details: 'Retry after a short wait to get its response.',
    headers: { 'Retry-After': '1' },
  });

/**
 * Runs one operation for a request with the kind of unit of work its handler declares, and sends
 * the response. An idempotent write is one transaction: the handler's statements, then its response
 * stored under the request's key (storedResponseStatement) with the commit, inside the statement the
 * handler deferred to the commit if it did (atCommit); a 5xx response or a thrown error
 * rolls everything back. When the key turns out to hold a response already, the write rolls back too
 * and the stored response is sent (a replay, marked Idempotent-Replayed) or the request is rejected
 * (422 when it differs from the key's first request, 409 while another request is committing one).
 */
export function createInvoke(services: Services): Invoke<UnitOfWork> {
  // What a write handler gets of the services: not the database or what reads it (WriteServices).
  const { db: _db, readCard: _readCard, runOverRows: _runOverRows, ...writeServices } = services;
  const forWrites: WriteServices = writeServices;
  return async (route, req, res, run) => {
    const principal = (res.locals as AuthenticatedLocals)[PRINCIPAL];
    const now = services.clock.now();
    const header = (name: string): string | undefined => req.get(name);
    const signed = isSignedWrite(route);
    const kindError = (declared: string): Error =>
      new Error(
        `${route.operationId}: its handler is declared ${declared}, but the document ${signed ? 'makes it' : 'does not make it'} a signed write`,
      );

    const unit: UnitOfWork = {
      operation: (handler) => {
        if (signed) throw kindError('an operation');
        const ctx: OperationContext = { db: services.db, now, principal, services, header };
        return handler(ctx);
      },
      idempotentWrite: async <R extends AnyOperationResult>(handler: (ctx: WriteContext) => Promise<R>): Promise<R> => {
        if (!signed) throw kindError('an idempotent write');
        if (principal === undefined) throw new Error(`${route.operationId}: a signed write must be authenticated`);
        const key = {
          clientId: principal.clientId,
          key: req.get('idempotency-key') ?? '',
          fingerprint: fingerprintOf(req),
          nowMs: now,
        };
        try {
          return await inTransactionWithStatementAtCommit(
            services.db,
            (tx, atCommit) => handler({ tx, now, principal, services: forWrites, header, atCommit }),
            (received) => {
              if (received.status >= 500) throw new UnstoredResponse(received);
              // Sent with the commit, inside the statement the handler deferred to the commit if it
              // did. It fails when the key is taken, and then nothing commits.
              const body = JSON.stringify(received.body ?? null);
              serializedAs(received.body, body);
              return storedResponseStatement({ ...key, status: received.status, body });
            },
            services.runOverRows,
          );
        } catch (error) {
          if (error instanceof UnstoredResponse) return error.received as R;
          // A taken key fails the statement that stores the response, whichever statement carried it.
          if (idempotencyKeyTakenOf(error) === undefined) throw error;
        }
        // The key is taken. Whether it was held by a transaction still storing a response or by
        // one committed before, a committed response is what this request gets: a transaction
        // holding the key beside a committed response is another retry of this request, which
        // rolls back just as this one did. No committed response means the first request is still
        // running (or the key expired and was purged in the moment between): 409, retry shortly.
        const found = await findStoredResponse(services.db, key);
        if (found === undefined) throw inFlight();
        if (found.kind === 'mismatch') {
          throw new ApiError('idempotencyKeyReused', 'This Idempotency-Key was used for a different request.', {
            details: 'A key fixes the method, path and body of its first request; use a new key for a new request.',
          });
        }
        // The stored response of this same operation: the type its handler declared.
        const replay: AnyOperationResult = {
          status: found.status,
          body: JSON.parse(found.body) as unknown,
          headers: { 'Idempotent-Replayed': 'true' },
        };
        // Sent as the bytes first sent.
        serializedAs(replay.body, found.body);
        return replay as R;
      },
    };
    sendResult(res, await run(unit));
  };
}
