/**
 * The database, as the rest of the server uses it: opened by URL (PostgreSQL when DATABASE_URL is
 * set, else the embedded PGlite), its schema and migrations, transactions, and the statements a
 * write sends at its commit. The queries of server/store/ are Kysely over these; how each engine
 * runs them (the embedded database's thread, statements at commit, writes of several requests in
 * one statement, pipelining) stays behind this module.
 */
export {
  DEFAULT_MAX_CONNECTIONS,
  int8FromJson,
  openDatabase,
  type Database,
  type DatabaseKind,
  type OpenDatabaseOptions,
} from './open.js';
export * from './schema.js';
export { migrateToLatest, MigrationError } from './migrate.js';
export { inTransaction } from './in-transaction.js';
export { conditionHolds, ConditionNotMet, inTransactionWithStatementAtCommit, type AtCommit } from './at-commit.js';
export {
  createRowsTogether,
  insertRows,
  WRITES_TOGETHER,
  type InsertRowsClauses,
  type RunOverRows,
} from './rows-together.js';
export { DatabaseBoundError, passedItsBound, SERVER_BOUNDS, type DatabaseBounds } from './bounds.js';
