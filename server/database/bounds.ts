/**
 * How long the server lets a database call take. A request's statements are short (its responses
 * come in milliseconds at the 99th percentile), so a call far past that is stuck: a statement that
 * scans what it should not, a row lock held by a transaction that does not end, a pool with every
 * connection taken. Such a call ends with an error the HTTP layer responds with 503 (its transaction
 * rolled back, nothing stored under the idempotency key), instead of holding a connection and its
 * locks until the client gives up.
 *
 * PostgreSQL enforces them itself (its statement_timeout, lock_timeout and
 * idle_in_transaction_session_timeout settings on each of the pool's connections). The embedded
 * database cannot stop a statement once it runs (WebAssembly has no timer to interrupt it), so
 * there a call is bounded while it waits to run, and a transaction left idle is rolled back
 * (embedded/thread.ts).
 */
export interface DatabaseBounds {
  /** A statement's run, from when the database starts it. */
  readonly statementMs: number;
  /** A wait for a row or table lock another transaction holds. */
  readonly lockMs: number;
  /** A transaction that runs no statement for this long is rolled back and its locks released. */
  readonly idleInTransactionMs: number;
  /** A wait for a connection of the pool, or for the embedded database to take the call. */
  readonly acquireMs: number;
}

/**
 * The server's bounds: some hundred times what the slowest request's statements take at the 99th
 * percentile under load (tens of milliseconds), so that only a stuck call meets them.
 */
export const SERVER_BOUNDS: DatabaseBounds = {
  statementMs: 5_000,
  lockMs: 2_000,
  idleInTransactionMs: 10_000,
  acquireMs: 5_000,
};

/** A database call ended because it passed one of its bounds. */
export class DatabaseBoundError extends Error {
  override readonly name = 'DatabaseBoundError';
}

/**
 * PostgreSQL's SQLSTATEs of a bound passed: query_canceled (statement_timeout), lock_not_available
 * (lock_timeout), idle_in_transaction_session_timeout.
 */
const BOUND_SQLSTATES = new Set(['57014', '55P03', '25P03']);

/** Whether `error` is a database call that passed its bound (the HTTP layer responds with 503). */
export function passedItsBound(error: unknown): boolean {
  if (error instanceof DatabaseBoundError) return true;
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && BOUND_SQLSTATES.has(code)) return true;
  // pg's pool, when no connection came free within connectionTimeoutMillis.
  return typeof message === 'string' && message === 'timeout exceeded when trying to connect';
}
