import {
  PostgresIntrospector,
  PostgresQueryCompiler,
  type CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import { isLastOfItsTransaction } from '../last-statement.js';
import type { PGliteInstance, PGliteInstanceTransaction } from './instance.js';

/**
 * Kysely's dialect for the embedded database in its thread (thread.ts), built from Kysely's
 * public interfaces: PostgreSQL's SQL and introspection, and a connection for each caller. Each
 * connection runs its statements by itself or in a transaction of its own; the thread orders the
 * callers (a statement waits while another caller's transaction is open). With one connection for
 * all, a statement on its way to the thread and back would hold every other caller's statement
 * back meanwhile (creates were capped at some 1,450 a second, both threads half idle; README, "The
 * embedded database runs in a thread of its own"). A transaction's last statement
 * (last-statement.ts) commits it in the same crossing.
 */
export class EmbeddedDialect implements Dialect {
  /** `lastStatement: false` runs a transaction's last statement as any other (the benchmark's measure of what it buys). */
  constructor(
    private readonly pglite: PGliteInstance,
    private readonly options: { readonly lastStatement: boolean } = { lastStatement: true },
  ) {}

  createAdapter(): DialectAdapter {
    return EMBEDDED_ADAPTER;
  }

  createDriver(): Driver {
    return new EmbeddedDriver(this.pglite, this.options.lastStatement);
  }

  createQueryCompiler(): QueryCompiler {
    return new PostgresQueryCompiler();
  }

  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new PostgresIntrospector(db);
  }
}

/**
 * PostgreSQL's capabilities, several connections, and no migration lock: one process holds the
 * embedded database (its lock file, lock.ts), and the migrator runs its migrations in one
 * transaction of that process.
 */
const EMBEDDED_ADAPTER: DialectAdapter = {
  supportsCreateIfNotExists: true,
  supportsTransactionalDdl: true,
  supportsReturning: true,
  supportsMultipleConnections: true,
  acquireMigrationLock: async () => {},
  releaseMigrationLock: async () => {},
};

class EmbeddedConnection implements DatabaseConnection {
  private transaction: PGliteInstanceTransaction | undefined;

  constructor(
    private readonly pglite: PGliteInstance,
    private readonly lastStatement: boolean,
  ) {}

  begin(): void {
    this.transaction = this.pglite.begin();
  }

  /** Ends the open transaction: a commit, or a rollback. */
  async end(commit: boolean): Promise<void> {
    const transaction = this.transaction;
    this.transaction = undefined;
    if (transaction === undefined) return;
    await (commit ? transaction.commit() : transaction.rollback());
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const parameters = [...compiled.parameters];
    const options = { rowMode: 'object' as const };
    const run =
      this.transaction === undefined
        ? this.pglite.query<R>(compiled.sql, parameters, options)
        : this.lastStatement && isLastOfItsTransaction(compiled)
          ? this.transaction.queryAndCommit<R>(compiled.sql, parameters, options)
          : this.transaction.query<R>(compiled.sql, parameters, options);
    const { rows, affectedRows } = await run;
    return { rows, ...(affectedRows === undefined ? {} : { numAffectedRows: BigInt(affectedRows) }) };
  }

  /** The interface asks for a generator; the embedded database streams nothing. */
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('The embedded database does not stream rows.');
  }
}

/** A connection for each caller, kept for reuse when released. */
class EmbeddedDriver implements Driver {
  private readonly free: EmbeddedConnection[] = [];

  constructor(
    private readonly pglite: PGliteInstance,
    private readonly lastStatement: boolean,
  ) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return this.free.pop() ?? new EmbeddedConnection(this.pglite, this.lastStatement);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    // The embedded database runs one transaction at a time (service.ts), which every
    // isolation level allows; a read-only transaction it would not enforce, so it is rejected.
    if (settings.accessMode === 'read only')
      throw new Error('The embedded database does not run read-only transactions.');
    (connection as EmbeddedConnection).begin();
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as EmbeddedConnection).end(true);
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as EmbeddedConnection).end(false);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    this.free.push(connection as EmbeddedConnection);
  }

  async destroy(): Promise<void> {
    if (!this.pglite.closed) await this.pglite.close();
  }
}
