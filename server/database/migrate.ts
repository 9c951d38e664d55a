import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { Migrator } from 'kysely/migration';
import type { Migration, MigrationProvider } from 'kysely/migration';
import { baselineMigration } from './migrations/001-baseline.js';
import type { DB } from './schema.js';

/**
 * Every migration, by name. The names sort in the order they run; a new migration gets the
 * next number and is added here (no filesystem scanning: the list is part of the build, so
 * a bundled or compiled server migrates exactly like the sources). Released migrations are
 * never edited, renumbered or folded
 * (server/decisions/0015-migrations-fold-into-a-baseline-then-only-move-forward.md).
 */
export const migrations: Readonly<Record<string, Migration>> = Object.freeze({
  '001-baseline': baselineMigration,
});

/** The migrations folded into 001-baseline before the first release: together they built exactly its schema. */
const FOLDED = [
  '001-initial',
  '002-ledger-indexes',
  '003-token-revocation',
  '004-idempotency-in-one-transaction',
  '005-dashboard-operators',
  '006-pending-first-index',
  '007-idempotency-key-taken',
  '008-condition-holds',
  '009-organization-versions',
  '010-drop-organization-versions',
  '011-ledger-records',
  '012-ledger-answers',
  '013-card-records',
  '014-money-domains',
] as const;

class StaticMigrationProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    return { ...migrations };
  }
}

export class MigrationError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MigrationError';
  }
}

/**
 * Brings the schema to the latest version and returns the names of the migrations it applied
 * (empty when the schema was already current). Throws MigrationError on failure.
 *
 * Safe when several instances start at once against one PostgreSQL database: Kysely's
 * PostgreSQL adapter holds a session advisory lock (`pg_advisory_lock`) on one connection
 * while it reads the applied migrations and runs the pending ones in one transaction, so the
 * second instance waits and then finds nothing to do. On PGlite there is one backend and
 * Kysely reserves its only connection for the whole run.
 */
export async function migrateToLatest(db: Kysely<DB>): Promise<{ applied: string[] }> {
  await takeFoldedAsBaseline(db);
  const migrator = new Migrator({ db, provider: new StaticMigrationProvider() });
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((result) => result.status === 'Error')?.migrationName;
    const reason = error instanceof Error ? error.message : String(error);
    throw new MigrationError(
      failed === undefined ? `Migration failed: ${reason}` : `Migration ${failed} failed: ${reason}`,
      { cause: error },
    );
  }
  return {
    applied: (results ?? []).filter((result) => result.status === 'Success').map((result) => result.migrationName),
  };
}

/**
 * A database migrated by all the folded migrations has exactly the baseline's schema: its
 * migration table (Kysely's `kysely_migration`) then records `001-baseline`, applied at the latest
 * of their times, instead of them, so that the migrator takes it as migrated. A database that
 * records only some of them has a schema no migration leads on from: MigrationError, and nothing
 * changes. One transaction, which takes the table's lock before it reads the rows, so that
 * instances starting together take the database as the baseline once and all go on.
 */
async function takeFoldedAsBaseline(db: Kysely<DB>): Promise<void> {
  const folded = sql.join(FOLDED.map((name) => sql.lit(name)));
  const { rows: found } = await sql<{ table: boolean }>`
    select to_regclass('kysely_migration') is not null as "table"`.execute(db);
  if (found[0]?.table !== true) return;
  const { rows: recorded } = await sql<{ count: number }>`
    select count(*)::int as count from kysely_migration where name in (${folded})`.execute(db);
  if ((recorded[0]?.count ?? 0) === 0) return;

  await db.transaction().execute(async (tx) => {
    await sql`lock table kysely_migration in exclusive mode`.execute(tx);
    const { rows } = await sql<{ timestamp: string }>`
      select timestamp from kysely_migration where name in (${folded})`.execute(tx);
    // Kysely's times are ISO 8601 texts of one length: the greatest is the latest.
    const latest = rows
      .map((row) => row.timestamp)
      .sort()
      .at(-1);
    if (latest === undefined) return; // another instance took it as the baseline meanwhile
    if (rows.length < FOLDED.length) {
      throw new MigrationError(
        `This database was migrated by ${rows.length} of the ${FOLDED.length} migrations that were folded into ` +
          '001-baseline before the first release (001-initial … 014-money-domains), so no migration leads on ' +
          "from its schema. Create it again: delete the embedded database's directory (./.data/pglite) when " +
          'DATABASE_URL is unset, or drop and create the PostgreSQL database DATABASE_URL names; then migrate.',
      );
    }
    await sql`delete from kysely_migration where name in (${folded})`.execute(tx);
    await sql`insert into kysely_migration (name, timestamp) values ('001-baseline', ${latest})`.execute(tx);
  });
}
