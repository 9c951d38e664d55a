import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

// The dashboard's transfer list, pending first (listTransfersPendingFirst in transfers.ts): an
// index on its sort key, so that a page is a walk of the index from the cursor and never a sort
// of every transfer of the organization. The expression is the list's own, written the same way
// (PENDING_FIRST_OFFSET is 2^52): the planner uses an index on an expression only when the
// query's expression is the same.

export const pendingFirstIndexMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`
      create index transfers_pending_first_idx on transfers (
        organization_id,
        (case when status = 'PENDING' then submission_date + 4503599627370496::bigint else submission_date end) desc,
        id desc
      )
    `.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`drop index transfers_pending_first_idx`.execute(db);
  },
};
