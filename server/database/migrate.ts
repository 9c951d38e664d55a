import type { Kysely } from 'kysely';
import { Migrator } from 'kysely/migration';
import type { Migration, MigrationProvider } from 'kysely/migration';
import { initialMigration } from './migrations/001-initial.js';
import { ledgerIndexesMigration } from './migrations/002-ledger-indexes.js';
import { tokenRevocationMigration } from './migrations/003-token-revocation.js';
import { idempotencyInOneTransactionMigration } from './migrations/004-idempotency-in-one-transaction.js';
import { dashboardOperatorsMigration } from './migrations/005-dashboard-operators.js';
import { pendingFirstIndexMigration } from './migrations/006-pending-first-index.js';
import { idempotencyKeyTakenMigration } from './migrations/007-idempotency-key-taken.js';
import { conditionHoldsMigration } from './migrations/008-condition-holds.js';
import { organizationVersionsMigration } from './migrations/009-organization-versions.js';
import { dropOrganizationVersionsMigration } from './migrations/010-drop-organization-versions.js';
import { ledgerRecordsMigration } from './migrations/011-ledger-records.js';
import { ledgerAnswersMigration } from './migrations/012-ledger-answers.js';
import { cardRecordsMigration } from './migrations/013-card-records.js';
import { moneyDomainsMigration } from './migrations/014-money-domains.js';
import type { DB } from './schema.js';

/**
 * Every migration, by name. The names sort in the order they run; a new migration gets the
 * next number and is added here (no filesystem scanning: the list is part of the build, so
 * a bundled or compiled server migrates exactly like the sources).
 */
export const migrations: Readonly<Record<string, Migration>> = Object.freeze({
  '001-initial': initialMigration,
  '002-ledger-indexes': ledgerIndexesMigration,
  '003-token-revocation': tokenRevocationMigration,
  '004-idempotency-in-one-transaction': idempotencyInOneTransactionMigration,
  '005-dashboard-operators': dashboardOperatorsMigration,
  '006-pending-first-index': pendingFirstIndexMigration,
  '007-idempotency-key-taken': idempotencyKeyTakenMigration,
  '008-condition-holds': conditionHoldsMigration,
  '009-organization-versions': organizationVersionsMigration,
  '010-drop-organization-versions': dropOrganizationVersionsMigration,
  '011-ledger-records': ledgerRecordsMigration,
  '012-ledger-answers': ledgerAnswersMigration,
  '013-card-records': cardRecordsMigration,
  '014-money-domains': moneyDomainsMigration,
});

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
