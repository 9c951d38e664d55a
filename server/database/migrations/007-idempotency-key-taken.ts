import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

// The statement that stores an answer (storedResponseStatement, idempotency.ts) fails, rather than
// answers, when the key it would store is taken, so that the statement can travel with its
// transaction's commit: a failed statement aborts the transaction and the commit sent after it is
// never run. SQL has no statement that raises an
// error, so this function does; IDEMPOTENCY_KEY_TAKEN in idempotency.ts is its SQLSTATE.

export const idempotencyKeyTakenMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`
      create function idempotency_key_taken(outcome text) returns boolean
      language plpgsql volatile
      as $$
      begin
        raise exception 'idempotency key %', outcome using errcode = 'PK001', detail = outcome;
      end
      $$
    `.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`drop function idempotency_key_taken(text)`.execute(db);
  },
};
