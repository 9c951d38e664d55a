import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

// Token revocation. Access tokens are self-contained JWTs valid for an hour, so a
// leaked token or a client that must be cut off needs a cut-off point the bearer check can read:
// every token of the client issued before `tokens_not_before` (Unix ms) is refused. Null: nothing
// revoked. A client that no longer exists is refused too, which needs no column.

export const tokenRevocationMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`alter table clients add column tokens_not_before bigint`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`alter table clients drop column tokens_not_before`.execute(db);
  },
};
