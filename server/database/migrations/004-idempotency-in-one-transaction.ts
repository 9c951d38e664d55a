import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

// An idempotency key is now written only together with its answer, in the transaction of the
// write it answers: a key row always holds an answer, and no row marks a request as running (a
// request in flight holds the key's advisory lock instead, which its transaction releases however
// it ends). Rows of requests that were running when the service stopped are forgotten: their
// transactions never committed, so a retry runs as new.

export const idempotencyInOneTransactionMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`delete from idempotency_keys where response_status is null`.execute(db);
    await sql`
      alter table idempotency_keys
        drop column lock_id,
        drop column locked_at,
        alter column response_status set not null,
        alter column response_body set not null
    `.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`
      alter table idempotency_keys
        add column lock_id text,
        add column locked_at bigint,
        alter column response_status drop not null,
        alter column response_body drop not null,
        add check ((lock_id is null) = (locked_at is null)),
        add check (lock_id is null or response_status is null)
    `.execute(db);
  },
};
