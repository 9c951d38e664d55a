/**
 * `--analyze`: runs ANALYZE on a freshly seeded benchmark database, in its own process (the
 * embedded database belongs to one process at a time), so that the planner has statistics, as
 * autovacuum would give a long-running PostgreSQL. PGlite has no autovacuum, and this server's
 * may have it off: without statistics the planner estimates one row for every filter.
 *
 * The database is DATABASE_URL, or the embedded database under ./.data/ when it is unset.
 */
import { sql } from 'kysely';
import { openDatabase } from '../../server/store/connection.js';

const database = await openDatabase({ url: process.env['DATABASE_URL'] || undefined });
try {
  await sql`analyze`.execute(database.db);
} finally {
  await database.close();
}
