import type { Kysely } from 'kysely';
import type { DB } from '../database/index.js';

// Secrets the service generates for itself on first start (token signing, cursor signing),
// kept in the database so that every instance sharing it agrees on them (README, "Design").

/**
 * Returns the secret called `name`, creating it with `create()` when there is none.
 * Insert-if-absent, then read: when two instances start at once, both insert attempts run,
 * one wins, and both read the winner's value.
 */
export async function getOrCreateSecret(
  db: Kysely<DB>,
  name: string,
  create: () => string,
  now: number,
): Promise<string> {
  const existing = await readSecret(db, name);
  if (existing !== undefined) return existing;
  await db
    .insertInto('service_secrets')
    .values({ name, value: create(), created_at: now })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const value = await readSecret(db, name);
  if (value === undefined) throw new Error(`Secret ${name} vanished right after it was stored`);
  return value;
}

async function readSecret(db: Kysely<DB>, name: string): Promise<string | undefined> {
  const row = await db.selectFrom('service_secrets').select('value').where('name', '=', name).executeTakeFirst();
  return row?.value;
}
