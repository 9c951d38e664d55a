import { CompiledQuery, type Kysely } from 'kysely';
import { type DB, type IdempotencyKeyRow, insertRows, type InsertRowsClauses } from '../database/index.js';

// Idempotency keys in the database. A key is stored only with its response, by the last statement
// of the write it responds to, in that write's own transaction: the change, the key and its response
// commit together or not at all, and a request that dies (or responds with 5xx) leaves nothing behind
// (its transaction rolls back), so a retry runs as new.
//
// While the write runs, nothing marks the key; from the statement that stores its response until
// its commit the transaction holds the key's advisory lock (pg_try_advisory_xact_lock on a 64-bit
// hash of the client and the key), which a transaction releases however it ends. A second request
// with the key that reaches that statement meanwhile does not wait: it is told 'in-flight' and
// rolls back, then reads the key (findStoredResponse): 409 while no response is committed, the stored response
// when the holder was only another retry of an acknowledged request. One that comes after the commit
// finds the stored response (a replay, or 422 when its request differs). Two writes with one key can
// therefore both run their handlers, but only one of them commits. The unit of work sends the
// respond with the commit, inside the statement the write sends at its commit when it defers one
// (at-commit.ts), so on PostgreSQL that window is a single round trip. On the embedded database
// transactions run one at a time, so a second request always comes after the commit.

/** 24 hours: a key's response is kept this long; after it the key is forgotten and may be used as new. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;

export interface StoreResponseInput {
  clientId: string;
  key: string;
  /** Method, path and SHA-256 of the body: what makes two requests the same request. */
  fingerprint: string;
  nowMs: number;
  status: number;
  /** The response's JSON text, stored verbatim so that a replay sends the same bytes. */
  body: string;
  retentionMs?: number;
}

/**
 * - 'in-flight': another transaction is storing a response for the key right now;
 * - 'exists': the key holds a response already (committed before this statement ran).
 */
export type KeyTakenOutcome = 'in-flight' | 'exists';

/**
 * The response could not be stored: the key is taken. Its transaction is aborted (the
 * statement failed); the caller rolls it back, then reads the key with findStoredResponse.
 */
export class IdempotencyKeyTaken extends Error {
  constructor(readonly outcome: KeyTakenOutcome) {
    super(`idempotency key ${outcome}`);
    this.name = 'IdempotencyKeyTaken';
  }
}

/** The SQLSTATE of idempotency_key_taken (server/database/migrations/001-baseline.ts); its detail is the outcome. */
const IDEMPOTENCY_KEY_TAKEN = 'PK001';

/** The IdempotencyKeyTaken a failed statement stands for: storedResponseStatement's, however it travelled; undefined for any other error. */
export function idempotencyKeyTakenOf(error: unknown): IdempotencyKeyTaken | undefined {
  if (error instanceof IdempotencyKeyTaken) return error;
  const e = error as { code?: unknown; detail?: unknown } | null;
  if (e?.code === IDEMPOTENCY_KEY_TAKEN && (e.detail === 'in-flight' || e.detail === 'exists'))
    return new IdempotencyKeyTaken(e.detail);
  return undefined;
}

/**
 * The statement that stores the response of a write, as that write's last statement: it takes the
 * key's advisory lock without waiting and inserts the key with its response, replacing a row older
 * than the retention. When the key is taken it fails with the error idempotencyKeyTakenOf
 * recognizes, so that nothing of the write can commit. A data-modifying statement with no WITH of
 * its own and no `$` but its parameters' placeholders, so that it can also travel inside the
 * statement a write sends at its commit (withAlongside in at-commit.ts).
 */
export function storedResponseStatement(input: StoreResponseInput): CompiledQuery {
  const row = {
    client_id: input.clientId,
    key: input.key,
    fingerprint: input.fingerprint,
    response_status: input.status,
    response_body: input.body,
    created_at: input.nowMs,
  } satisfies IdempotencyKeyRow;
  return insertRows('idempotency_keys', [row], {
    ...STORE_RESPONSE,
    parameters: [input.retentionMs ?? IDEMPOTENCY_RETENTION_MS],
  });
}

// A row is inserted only when its key's advisory lock was free (a CASE evaluates its branches in
// order, so the lock is tried first and the statement fails at once when another transaction holds
// it, never waiting on the key's index entry); a row already there is replaced only when older than
// the retention ($2) at the new row's time, and otherwise fails the statement (OR evaluates left to
// right and stops at the first true).
const STORE_RESPONSE = {
  where: `case
      when pg_try_advisory_xact_lock(hashtextextended(row.client_id || ' ' || row.key, 0)) then true
      else idempotency_key_taken('in-flight')
    end`,
  onConflict: `(client_id, key) do update
      set fingerprint = excluded.fingerprint, response_status = excluded.response_status,
          response_body = excluded.response_body, created_at = excluded.created_at
      where idempotency_keys.created_at <= excluded.created_at - $2::bigint or idempotency_key_taken('exists')`,
} as const satisfies InsertRowsClauses;

export type FoundResponse =
  /** `body` is the stored JSON text, byte for byte as first sent. */
  | { kind: 'replay'; status: number; body: string }
  /** The key was first used for another request. */
  | { kind: 'mismatch' };

/** The response a key holds for this request; undefined when the key holds none within the retention. */
export async function findStoredResponse(
  db: Kysely<DB>,
  input: { clientId: string; key: string; fingerprint: string; nowMs: number; retentionMs?: number },
): Promise<FoundResponse | undefined> {
  const row = await db
    .selectFrom('idempotency_keys')
    .select(['fingerprint', 'response_status', 'response_body'])
    .where('client_id', '=', input.clientId)
    .where('key', '=', input.key)
    .where('created_at', '>', input.nowMs - (input.retentionMs ?? IDEMPOTENCY_RETENTION_MS))
    .executeTakeFirst();
  if (row === undefined) return undefined;
  if (row.fingerprint !== input.fingerprint) return { kind: 'mismatch' };
  return { kind: 'replay', status: row.response_status, body: row.response_body };
}

/** Deletes keys older than the retention; returns how many. Keys are forgotten either way. */
export async function purgeExpiredIdempotencyKeys(
  db: Kysely<DB>,
  nowMs: number,
  retentionMs: number = IDEMPOTENCY_RETENTION_MS,
): Promise<number> {
  const result = await db
    .deleteFrom('idempotency_keys')
    .where('created_at', '<=', nowMs - retentionMs)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
