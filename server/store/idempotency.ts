import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import { inTransaction } from './in-transaction.js';
import type { DB, IdempotencyKeyRow } from './schema.js';

// Idempotency keys in the database (decisions §3), in atomic phases after
// brandur/rocket-rides-atomic:
//   1. claim: a short transaction of its own marks the key as running (a lock id and time);
//   2. the operation runs in ONE transaction that also stores its answer
//      (completeIdempotencyKey), so the change and the stored answer commit together;
//   3. on a 5xx the key is released (releaseIdempotencyKey) so that a retry can run.
// A write whose whole change is one insert known before it runs (a new transfer) goes faster:
// storeNewAnswer inserts the key with its answer already stored and the change in ONE statement,
// so that a new key costs one round trip and one commit; a key that exists takes the phases above.
// A request that dies between 1 and 2 leaves a lock that expires after IDEMPOTENCY_LOCK_TIMEOUT_MS;
// the next attempt takes it over, and the dead request's transaction, should it wake up, can
// no longer store an answer (IdempotencyLockLostError rolls it back).

/** 24 hours: the retention of spec §5 and §8; after it the key is forgotten and may be used as new. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;

/**
 * 60 s: longer than any request can take (the writes are a few short queries; a request still
 * running after a minute has lost its client anyway), and short enough that a client retrying
 * after a crashed instance waits only a minute. Until then a repeat answers 409.
 */
export const IDEMPOTENCY_LOCK_TIMEOUT_MS = 60 * 1000;

export type ClaimResult =
  | { kind: 'claimed'; lockId: string }
  /** `body` is the stored JSON text, byte for byte as first sent. */
  | { kind: 'replay'; status: number; body: string }
  | { kind: 'in-flight' }
  | { kind: 'mismatch' };

export interface ClaimInput {
  clientId: string;
  key: string;
  /** Method, path and SHA-256 of the body (decisions §3). */
  fingerprint: string;
  nowMs: number;
  lockTimeoutMs?: number;
  retentionMs?: number;
  /** The caller has just found the key taken (storeNewAnswer returned false): skip the insert, look first. */
  taken?: boolean;
}

/** The operation's lock on its key was taken over by another request: roll back. */
export class IdempotencyLockLostError extends Error {
  constructor(clientId: string, key: string) {
    super(
      `The idempotency key ${JSON.stringify(key)} of client ${clientId} was taken over by another request ` +
        `after its lock timed out; this request's changes are rolled back.`,
    );
    this.name = 'IdempotencyLockLostError';
  }
}

/**
 * Claims a key for a request, never in the caller's transaction (the claim must be visible to
 * other requests before the operation runs). Outcomes on an existing key, in this order:
 * - older than the retention: forgotten, claimed as new;
 * - another fingerprint: 'mismatch' (422);
 * - an answer stored: 'replay' with it;
 * - locked less than lockTimeoutMs ago: 'in-flight' (409);
 * - locked longer ago: the request holding it is presumed dead; claimed with a new lock id.
 *
 * Round trips, the cost that counts here: a new key is one insert; a replay, a mismatch or a
 * request in flight one insert and one plain read (a row within its retention never changes its
 * fingerprint, and a stored answer never changes, so no lock is needed to report them); only
 * claiming an existing key (expired, or its lock timed out) takes the row lock, in a transaction.
 */
export async function claimIdempotencyKey(db: Kysely<DB>, input: ClaimInput): Promise<ClaimResult> {
  if (db.isTransaction) {
    throw new Error('claimIdempotencyKey runs its own transaction; call it with the database, not a transaction');
  }
  const limits = {
    lockTimeoutMs: input.lockTimeoutMs ?? IDEMPOTENCY_LOCK_TIMEOUT_MS,
    retentionMs: input.retentionMs ?? IDEMPOTENCY_RETENTION_MS,
  };
  const fresh = input.taken === true ? undefined : await insertClaim(db, input);
  if (fresh !== undefined) return fresh;
  const seen = await selectKey(db, input, false);
  if (seen !== undefined) {
    const state = stateOf(seen, input, limits);
    if (state.kind !== 'claimable') return state;
  }
  return db.transaction().execute(async (tx) => {
    // The row that made the insert do nothing can be deleted (released) before we select it;
    // then the next round's insert succeeds or finds a newer row. Three rounds are plenty.
    for (let round = 0; round < 3; round += 1) {
      const row = await selectKey(tx, input, true);
      if (row !== undefined) {
        const state = stateOf(row, input, limits);
        return state.kind === 'claimable' ? reclaim(tx, input, state.expired) : state;
      }
      const inserted = await insertClaim(tx, input);
      if (inserted !== undefined) return inserted;
    }
    throw new Error(`Could not claim idempotency key ${JSON.stringify(input.key)}: it keeps being released`);
  });
}

/** Inserts the key as running under a new lock id; undefined when the key already exists. */
async function insertClaim(db: Kysely<DB>, input: ClaimInput): Promise<ClaimResult | undefined> {
  const lockId = randomUUID();
  const inserted = await db
    .insertInto('idempotency_keys')
    .values({
      client_id: input.clientId,
      key: input.key,
      fingerprint: input.fingerprint,
      lock_id: lockId,
      locked_at: input.nowMs,
      created_at: input.nowMs,
    })
    .onConflict((oc) => oc.columns(['client_id', 'key']).doNothing())
    .returning('lock_id')
    .executeTakeFirst();
  return inserted === undefined ? undefined : { kind: 'claimed', lockId };
}

async function selectKey(db: Kysely<DB>, input: ClaimInput, lock: boolean): Promise<IdempotencyKeyRow | undefined> {
  const query = db.selectFrom('idempotency_keys').selectAll().where('client_id', '=', input.clientId).where('key', '=', input.key);
  return (lock ? query.forUpdate() : query).executeTakeFirst();
}

/** What an existing key means for this request; 'claimable' when it may be taken over. */
function stateOf(
  row: IdempotencyKeyRow,
  input: ClaimInput,
  limits: { lockTimeoutMs: number; retentionMs: number },
): Exclude<ClaimResult, { kind: 'claimed' }> | { kind: 'claimable'; expired: boolean } {
  if (input.nowMs - row.created_at >= limits.retentionMs) return { kind: 'claimable', expired: true };
  if (row.fingerprint !== input.fingerprint) return { kind: 'mismatch' };
  if (row.response_status !== null) {
    return { kind: 'replay', status: row.response_status, body: row.response_body ?? 'null' }; // never null: a check pairs them
  }
  if (row.locked_at !== null && input.nowMs - row.locked_at < limits.lockTimeoutMs) return { kind: 'in-flight' };
  return { kind: 'claimable', expired: false };
}

/**
 * Takes over a key whose row the transaction has locked: an expired key starts afresh with this
 * request's fingerprint; a key whose holder timed out gets a new lock id.
 */
async function reclaim(tx: Transaction<DB>, input: ClaimInput, expired: boolean): Promise<ClaimResult> {
  const lockId = randomUUID();
  const fresh = expired
    ? { fingerprint: input.fingerprint, response_status: null, response_body: null, created_at: input.nowMs }
    : {};
  await tx
    .updateTable('idempotency_keys')
    .set({ ...fresh, lock_id: lockId, locked_at: input.nowMs })
    .where('client_id', '=', input.clientId)
    .where('key', '=', input.key)
    .execute();
  return { kind: 'claimed', lockId };
}

/**
 * A change made only when the request's key is new: one `INSERT … SELECT … FROM new_key` (zero
 * rows from new_key, zero rows inserted), as SQL text. It runs on both paths: storeNewAnswer's one
 * statement, where new_key is the key's insert, and the operation's transaction after a claim
 * (makeGuardedChange), where new_key is one row. Written as SQL rather than built node by node:
 * it runs with every new transfer, and building it cost more than a tenth of a create's CPU.
 */
export type GuardedChange = RawBuilder<unknown>;

/**
 * The fast path of a write whose answer and change are known before anything is read: in one
 * statement, inserts the key with the answer stored and, only if the key was new, makes
 * `change`. Returns false when the key exists (nothing written); the caller then takes the
 * phases above (claimIdempotencyKey), which answer a replay, a mismatch, a request in flight, or
 * take over an expired key. A concurrent request with the same key waits for this statement to
 * commit, then finds its answer.
 */
export async function storeNewAnswer(
  db: Kysely<DB>,
  input: Omit<ClaimInput, 'lockTimeoutMs' | 'retentionMs' | 'taken'> & { status: number; body: string },
  change: GuardedChange | undefined,
): Promise<boolean> {
  if (db.isTransaction) throw new Error('storeNewAnswer is a statement of its own; call it with the database');
  const statement = sql`
    with new_key as (
      insert into idempotency_keys (client_id, key, fingerprint, response_status, response_body, created_at)
      values (${input.clientId}, ${input.key}, ${input.fingerprint}, ${input.status}, ${input.body}, ${input.nowMs})
      on conflict (client_id, key) do nothing
      returning 1 as stored
    )
    ${change ?? sql`select stored from new_key`}`;
  const result = await statement.execute(db);
  return change === undefined ? result.rows.length > 0 : (result.numAffectedRows ?? 0n) > 0n;
}

/** Makes a guarded change in a transaction that holds the key's claim (new_key is one row). */
export async function makeGuardedChange(tx: Transaction<DB>, change: GuardedChange): Promise<void> {
  await sql`with new_key as (select 1 as stored) ${change}`.execute(tx);
}

/**
 * Stores the operation's answer (`body`: its JSON text, as sent) and clears the lock. Call it INSIDE the operation's
 * transaction, as its last step, so that the answer commits with the change it describes.
 * Throws IdempotencyLockLostError when the lock is no longer `lockId` (taken over after a
 * timeout): the caller's transaction must roll back, and the request that took over runs.
 */
export async function completeIdempotencyKey(
  tx: Kysely<DB>,
  input: { clientId: string; key: string; lockId: string; status: number; body: string },
): Promise<void> {
  await inTransaction(tx, async (trx) => {
    const result = await trx
      .updateTable('idempotency_keys')
      .set({
        response_status: input.status,
        response_body: input.body,
        lock_id: null,
        locked_at: null,
      })
      .where('client_id', '=', input.clientId)
      .where('key', '=', input.key)
      .where('lock_id', '=', input.lockId)
      .executeTakeFirst();
    if (result.numUpdatedRows === 0n) throw new IdempotencyLockLostError(input.clientId, input.key);
  });
}

/**
 * Forgets a key that `lockId` still holds, so that a retry can run (after a 5xx, or a
 * failure before the operation: decisions §3 stores neither). Returns false when the lock was
 * no longer ours (nothing deleted).
 */
export async function releaseIdempotencyKey(
  db: Kysely<DB>,
  input: { clientId: string; key: string; lockId: string },
): Promise<boolean> {
  const result = await db
    .deleteFrom('idempotency_keys')
    .where('client_id', '=', input.clientId)
    .where('key', '=', input.key)
    .where('lock_id', '=', input.lockId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
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
