import type { Kysely, Transaction } from 'kysely';
import type { DB } from './schema.js';

/**
 * Runs `fn` in the caller's transaction when `db` already is one, otherwise in a new
 * transaction. Store functions whose steps must commit together use it, so that the HTTP
 * layer can still put several of them (and the stored idempotent response) into one
 * transaction of its own.
 */
export async function inTransaction<T>(db: Kysely<DB>, fn: (tx: Transaction<DB>) => Promise<T>): Promise<T> {
  if (db.isTransaction) return fn(db as Transaction<DB>);
  return db.transaction().execute(fn);
}
