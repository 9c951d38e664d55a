import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import {
  Kysely,
  PGliteAdapter,
  PGliteDialect,
  PGliteDriver,
  PostgresDialect,
  type DatabaseConnection,
  type Driver,
  type PostgresPool,
  type PostgresPoolClient,
} from 'kysely';
import pg from 'pg';
import { INT8_OID, parseInt8 } from './int8.js';
import type { DatabaseBounds } from './bounds.js';
import { acquireDataDirLock, lockPathFor } from './lock.js';
import type { CreatePGliteOptions, PGliteInstance } from './pglite-instance.js';
import { startPGliteThread } from './pglite-thread.js';
import type { DB } from './schema.js';

export type { CreatePGliteOptions, PGliteInstance, PGliteInstanceTransaction } from './pglite-instance.js';
// The int8 rule lives in int8.ts, which the embedded database's thread imports too.
export { INT8_OID, int8FromJson, parseInt8 } from './int8.js';

export type DatabaseKind = 'pglite' | 'postgres';

export interface Database {
  readonly db: Kysely<DB>;
  readonly kind: DatabaseKind;
  /** Closes the pool or the embedded database and releases its lock file. Idempotent. */
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /**
   * undefined: the embedded database in files under `dataDir`; `memory://`: an in-memory
   * embedded database; `postgres://` or `postgresql://`: a PostgreSQL server.
   */
  url?: string | undefined;
  /** Data directory of the embedded database; default `./.data/pglite`. */
  dataDir?: string;
  /** Lock file of the embedded database; default `<dataDir>.lock`. */
  lockPath?: string;
  /**
   * Starting content of a NEW embedded database (file or memory): a `dumpDataDir` dump. Tests
   * start from a migrated template this way instead of paying for initdb.
   */
  loadDataDir?: Blob;
  /** PostgreSQL pool size; default DEFAULT_MAX_CONNECTIONS. */
  maxConnections?: number;
  /** Told when an idle PostgreSQL connection fails (the pool replaces it); default: ignored. */
  onConnectionError?: (error: Error) => void;
  /**
   * Told when the embedded database's thread ends without being closed (pglite-thread.ts); every
   * statement after it fails. Default: ignored.
   */
  onLost?: (error: Error) => void;
  /**
   * How long a call may take (bounds.ts): the server's SERVER_BOUNDS. Absent: unbounded, for the
   * command-line tools, whose bulk writes of a ledger take longer than any request should.
   */
  bounds?: DatabaseBounds;
  /**
   * The mechanisms the benchmark measures by turning them off (scripts/bench, `--without`), each on
   * unless false: on PostgreSQL a transaction's begin and commit sent with its statements
   * (`pipeline`); on the embedded database, statements kept prepared (`preparedStatements`) and the
   * database in a thread of its own (`ownThread`).
   */
  pipeline?: boolean;
  preparedStatements?: boolean;
  ownThread?: boolean;
}

/** Where the embedded database lives when DATABASE_URL is unset (under `./.data/`, git-ignored). */
export const DEFAULT_DATA_DIR = './.data/pglite';

/**
 * PostgreSQL connections a process opens at most, unless told otherwise (`DATABASE_POOL_SIZE`,
 * server/main.ts). A process runs one request's JavaScript at a time, and its transactions are
 * short: a few connections keep the database busy meanwhile. More let more transactions wait on
 * one another at once (every execute of an organization takes its balance row), which costs the
 * database CPU; fewer cap the reads served again, each of which checks its organization's version
 * in one round trip. The runs that chose 6 over pg's own default of 10 (and over 4) are in the
 * README, "What changed", the sixteenth change.
 */
export const DEFAULT_MAX_CONNECTIONS = 6;

/**
 * At most this many distinct statement texts are kept prepared, per PostgreSQL connection and in
 * the embedded database; texts beyond it run unnamed, so no process collects statements without end.
 */
const MAX_PREPARED_TEXTS = 2_000;

/**
 * A statement whose text begins with this SQL comment is the last of its transaction and commits
 * it; the transaction's own `commit` then sends nothing, and any other statement after it fails
 * with an error instead of running outside the transaction.
 * - As the transaction's only statement it runs by itself, without begin and commit, on both
 *   databases: one statement is atomic on its own, and it is committed when it returns or not at
 *   all (a transaction that does nothing else needs no more).
 * - After other statements, on PostgreSQL it is sent together with the prepared `commit`, one
 *   round trip for both: when it fails PostgreSQL skips the `commit` (an error discards the
 *   messages up to Sync) and the transaction is rolled back as after any failed statement. The
 *   embedded database's thread commits right after it, in the same crossing (pglite-thread.ts).
 */
export const COMMITS_ITS_TRANSACTION = '/* commits its transaction */ ';

/**
 * Starts an embedded database in a thread of its own (pglite-thread.ts), whose program
 * (pglite-worker.ts) installs the int8 parser of int8.ts. Each query text is parsed and planned
 * once, then bound and executed by name (`maxPreparedStatements` comes from
 * patches/@electric-sql+pglite+0.5.16+001+prepared-statements.patch):
 * parsing and planning were most of a statement's cost in the WebAssembly build (the card read
 * 1,374 µs unprepared, 384 µs prepared; README, "Where the time goes"). PGlite's package is loaded
 * by the thread, so a server on PostgreSQL never loads the WebAssembly build.
 */
export function startEmbeddedDatabase(
  options: CreatePGliteOptions & Pick<OpenDatabaseOptions, 'onLost' | 'bounds' | 'preparedStatements' | 'ownThread'> = {},
): Promise<PGliteInstance> {
  const { preparedStatements, ...rest } = options;
  return startPGliteThread({
    ...rest,
    maxPreparedStatements: preparedStatements === false ? 0 : MAX_PREPARED_TEXTS,
    commitsItsTransaction: COMMITS_ITS_TRANSACTION,
  });
}

/** Wraps a started embedded database; `onClose` runs after it is closed (lock release). */
export function databaseFromPGlite(pglite: PGliteInstance, onClose: () => void = () => {}): Database {
  const db = new Kysely<DB>({ dialect: new ConcurrentPGliteDialect(pglite) });
  return {
    db,
    kind: 'pglite',
    close: once(async () => {
      try {
        await db.destroy();
        // Kysely closes the instance only if a query ran; close it in any case.
        if (!pglite.closed) await pglite.close();
      } finally {
        onClose();
      }
    }),
  };
}

/**
 * Kysely's PGlite dialect, with a connection for each caller instead of one for all. Kysely gives
 * a dialect without several connections one lock, held from a statement's or a transaction's
 * start to its end; with the database in its own thread (pglite-thread.ts) that lock would also
 * be held while each statement crosses to the thread and back, and the next request's statement
 * could not be on its way meanwhile (creates were capped at some 1,450 a second, both threads
 * half idle). PGlite orders its callers itself: a statement waits for an open transaction to end.
 * Each connection is Kysely's own PGliteDriver's, with its own transaction state.
 */
class ConcurrentPGliteDialect extends PGliteDialect {
  constructor(private readonly pglite: PGliteInstance) {
    super({ pglite });
  }

  override createAdapter(): PGliteAdapter {
    return new ConcurrentPGliteAdapter();
  }

  override createDriver(): Driver {
    return new ConnectionPerCallerDriver(this.pglite);
  }
}

class ConcurrentPGliteAdapter extends PGliteAdapter {
  override get supportsMultipleConnections(): boolean {
    return true;
  }
}

/** A connection of Kysely's PGliteDriver. */
type PGliteConnection = Parameters<PGliteDriver['beginTransaction']>[0];

/** Hands each caller a connection of its own (kept for reuse when released); each is a PGliteDriver's. */
class ConnectionPerCallerDriver implements Driver {
  private readonly free: PGliteConnection[] = [];
  private readonly drivers = new WeakMap<DatabaseConnection, { driver: PGliteDriver; connection: PGliteConnection }>();

  constructor(private readonly pglite: PGliteInstance) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const reused = this.free.pop();
    if (reused !== undefined) return reused;
    const driver = new PGliteDriver({ pglite: this.pglite });
    await driver.init();
    // PGliteDriver's declarations name its connection's class only as its methods' parameter.
    const connection = (await driver.acquireConnection()) as PGliteConnection;
    this.drivers.set(connection, { driver, connection });
    return connection;
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    this.free.push(this.own(connection).connection);
  }

  private own(connection: DatabaseConnection): { driver: PGliteDriver; connection: PGliteConnection } {
    const own = this.drivers.get(connection);
    if (own === undefined) throw new Error('not a connection of this driver');
    return own;
  }

  beginTransaction(connection: DatabaseConnection): Promise<void> {
    const own = this.own(connection);
    return own.driver.beginTransaction(own.connection);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    const own = this.own(connection);
    return own.driver.commitTransaction(own.connection);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const own = this.own(connection);
    return own.driver.rollbackTransaction(own.connection);
  }

  savepoint(connection: DatabaseConnection, ...rest: Tail<Parameters<PGliteDriver['savepoint']>>): Promise<void> {
    const own = this.own(connection);
    return own.driver.savepoint(own.connection, ...rest);
  }

  rollbackToSavepoint(connection: DatabaseConnection, ...rest: Tail<Parameters<PGliteDriver['rollbackToSavepoint']>>): Promise<void> {
    const own = this.own(connection);
    return own.driver.rollbackToSavepoint(own.connection, ...rest);
  }

  releaseSavepoint(connection: DatabaseConnection, ...rest: Tail<Parameters<PGliteDriver['releaseSavepoint']>>): Promise<void> {
    const own = this.own(connection);
    return own.driver.releaseSavepoint(own.connection, ...rest);
  }

  async destroy(): Promise<void> {
    if (!this.pglite.closed) await this.pglite.close();
  }
}

type Tail<T extends unknown[]> = T extends [unknown, ...infer Rest] ? Rest : never;

export async function openDatabase(options: OpenDatabaseOptions = {}): Promise<Database> {
  const { url } = options;
  if (url === undefined) return openFilePGlite(options);
  if (url === 'memory://') {
    return databaseFromPGlite(
      await startEmbeddedDatabase({
        ...(options.loadDataDir === undefined ? {} : { loadDataDir: options.loadDataDir }),
        ...(options.onLost === undefined ? {} : { onLost: options.onLost }),
        ...(options.bounds === undefined ? {} : { bounds: options.bounds }),
        ...embeddedSwitches(options),
      }),
    );
  }
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    return openPostgres(url, options.maxConnections ?? DEFAULT_MAX_CONNECTIONS, options.onConnectionError, options.bounds, options.pipeline !== false);
  }
  // Never echo the URL: it may hold a password.
  throw new Error(
    'Unsupported database URL: use postgres://… or postgresql://… for PostgreSQL, memory:// for an ' +
      'in-memory embedded database, or leave DATABASE_URL unset for the embedded database under ./.data/',
  );
}

/** The embedded database's switches that are set. */
function embeddedSwitches(options: OpenDatabaseOptions): Pick<OpenDatabaseOptions, 'preparedStatements' | 'ownThread'> {
  return {
    ...(options.preparedStatements === undefined ? {} : { preparedStatements: options.preparedStatements }),
    ...(options.ownThread === undefined ? {} : { ownThread: options.ownThread }),
  };
}

async function openFilePGlite(options: OpenDatabaseOptions): Promise<Database> {
  const dataDir = resolve(options.dataDir ?? DEFAULT_DATA_DIR);
  mkdirSync(dirname(dataDir), { recursive: true });
  // The lock comes first: a second process must not even start PGlite on the directory.
  const lock = acquireDataDirLock(resolve(options.lockPath ?? lockPathFor(dataDir)));
  let pglite: PGliteInstance;
  try {
    pglite = await startEmbeddedDatabase({
      dataDir,
      ...(options.onLost === undefined ? {} : { onLost: options.onLost }),
      ...(options.loadDataDir === undefined ? {} : { loadDataDir: options.loadDataDir }),
      ...(options.bounds === undefined ? {} : { bounds: options.bounds }),
      ...embeddedSwitches(options),
    });
  } catch (error) {
    lock.release();
    throw error;
  }
  return databaseFromPGlite(pglite, lock.release);
}

function openPostgres(url: string, max: number, onConnectionError: ((error: Error) => void) | undefined, bounds: DatabaseBounds | undefined, pipeline: boolean): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    // PostgreSQL's own bounds on each connection (bounds.ts), and the pool's on waiting for one.
    ...(bounds === undefined
      ? {}
      : {
          statement_timeout: bounds.statementMs,
          lock_timeout: bounds.lockMs,
          idle_in_transaction_session_timeout: bounds.idleInTransactionMs,
          connectionTimeoutMillis: bounds.acquireMs,
        }),
    // Per-pool parsers, so that this module changes nothing global in `pg`.
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID && format !== 'binary'
          ? parseInt8
          : pg.types.getTypeParser(oid, format ?? 'text')) as typeof pg.types.getTypeParser,
    },
  });
  // An idle client that loses its connection emits 'error' on the pool; without a listener
  // that would crash the process. The next query simply gets a fresh connection.
  pool.on('error', (error) => onConnectionError?.(error));
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: preparingPool(pool, onConnectionError, pipeline) }) });
  return { db, kind: 'postgres', close: once(() => db.destroy()) };
}

/**
 * Statements are sent as named prepared statements, so that each connection parses and plans a
 * statement once instead of on every execution (PostgreSQL's plan cache then keeps a generic
 * plan when it costs no more than the custom ones). Planning is most of the database's work
 * for this service's short queries: the card read with its two lateral sums costs the server
 * about 700 µs of CPU unnamed and 120 µs prepared (measured on PostgreSQL 15 here).
 *
 * The name is a hash of the text, so equal texts share a statement and a different text can
 * never reuse one. Bounded: statements with many parameters (bulk inserts) stay unnamed, and
 * after MAX_PREPARED_TEXTS distinct texts new ones stay unnamed too. A connection pooler in front of
 * PostgreSQL must keep prepared statements per client (session pooling, or PgBouncer 1.21+ with
 * max_prepared_statements).
 */
/** SQLSTATE feature_not_supported, which PostgreSQL answers with "cached plan must not change result type". */
const CACHED_PLAN_CHANGED = '0A000';
/** Above this many parameters a statement is a bulk write, run rarely and with ever-new shapes. */
const MAX_PREPARED_PARAMETERS = 100;

function preparingPool(pool: pg.Pool, onConnectionError: ((error: Error) => void) | undefined, pipeline: boolean): PostgresPool {
  const names = new Map<string, string>();
  const nameOf = (text: string, parameterCount: number): string | undefined => {
    const known = names.get(text);
    if (known !== undefined || parameterCount > MAX_PREPARED_PARAMETERS || names.size >= MAX_PREPARED_TEXTS) return known;
    const name = `pps_${createHash('sha256').update(text).digest('base64url').slice(0, 32)}`;
    names.set(text, name);
    return name;
  };
  const wrapped = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    // Set when one of this connection's statements outlived a change of its table (below), or
    // when the connection itself failed.
    let stale = false;
    // A connection that fails while a request holds it (the server ended its backend, the network
    // dropped) emits 'error' besides failing its query; without a listener that would end the
    // process. The request fails with its query; the connection is dropped when it is released.
    client.on('error', (error) => {
      stale = true;
      onConnectionError?.(error);
    });
    // A `begin` not yet sent: it goes out with the transaction's first statement (below).
    let beginPending = false;
    // The transaction was ended by its last statement (COMMITS_ITS_TRANSACTION): committed by it,
    // or run without begin and commit as the only one, however that went. Nothing is open on the server.
    let ended = false;
    let controlPrepared: Promise<void> | undefined;
    const pipelined = async (config: pg.QueryConfig, sentWith: { begin: boolean; commit: boolean }): Promise<pg.QueryResult> => {
      controlPrepared ??= submitted<void>((done) => client.query(new PrepareTransactionControl(done) as unknown as pg.Submittable));
      await controlPrepared.catch((error: unknown) => {
        controlPrepared = undefined;
        throw error;
      });
      return submitted<pg.QueryResult>((callback) =>
        client.query(new Pipelined({ ...config, queryMode: 'extended', callback }, sentWith) as unknown as pg.Submittable),
      );
    };
    const query = ((textOrCursor: unknown, parameters?: readonly unknown[]): unknown => {
      if (ended) {
        ended = false;
        if (textOrCursor === 'commit' || textOrCursor === 'rollback') return Promise.resolve(emptyResult(textOrCursor.toUpperCase()));
        const what = typeof textOrCursor === 'string' ? `"${textOrCursor.slice(0, 60)}"` : 'a statement';
        return Promise.reject(new Error(`The transaction was committed by its last statement; ${what} came after it and was not run.`));
      }
      // Without the pipeline, each statement goes as it comes, begin and commit included, prepared all the same.
      if (!pipeline && typeof textOrCursor === 'string') {
        const values = [...(parameters ?? [])];
        const name = nameOf(textOrCursor, values.length);
        return client.query({ ...(name === undefined ? {} : { name }), text: textOrCursor, values });
      }
      if (typeof textOrCursor !== 'string') {
        if (!beginPending) return client.query(textOrCursor as pg.Submittable);
        beginPending = false;
        return client.query('begin').then(() => client.query(textOrCursor as pg.Submittable));
      }
      if (textOrCursor === 'begin') {
        beginPending = true;
        return Promise.resolve(emptyResult('BEGIN'));
      }
      const values = [...(parameters ?? [])];
      const name = nameOf(textOrCursor, values.length);
      const withBegin = beginPending;
      beginPending = false;
      // A transaction that ran no statement has nothing to end.
      if (withBegin && (textOrCursor === 'commit' || textOrCursor === 'rollback')) {
        return Promise.resolve(emptyResult(textOrCursor.toUpperCase()));
      }
      const withCommit = textOrCursor.startsWith(COMMITS_ITS_TRANSACTION);
      const config = { ...(name === undefined ? {} : { name }), text: textOrCursor, values };
      // The transaction's only statement, which commits it: it runs by itself (COMMITS_ITS_TRANSACTION).
      const alone = withBegin && withCommit;
      if (alone) ended = true;
      const sent = !alone && (withBegin || withCommit) ? pipelined(config, { begin: withBegin, commit: withCommit }) : client.query(config);
      return sent.then(
        (result) => {
          if (withCommit) ended = true;
          return result;
        },
        (error: unknown) => {
          // A migration run by another instance (a rolling deploy) changed the columns a prepared
          // statement returns: PostgreSQL refuses it on this connection from then on. The request
          // fails (a 500, which a client may retry); the connection is closed when it goes back to
          // the pool, and its replacement prepares the statement afresh.
          if ((error as { code?: unknown }).code === CACHED_PLAN_CHANGED) stale = true;
          throw error;
        },
      );
    }) as PostgresPoolClient['query'];
    return {
      query,
      release: (destroy) => {
        beginPending = false;
        ended = false;
        client.release(destroy === true || stale);
      },
      // Known once the connection is up; Kysely reads it to cancel a query (an undocumented pg field).
      get processID() {
        return (client as { processID?: number }).processID ?? 0;
      },
    };
  };
  return {
    options: pool.options,
    async connect() {
      const client = await pool.connect();
      let view = wrapped.get(client);
      if (view === undefined) {
        view = wrap(client);
        wrapped.set(client, view);
      }
      return view;
    },
    end: () => pool.end(),
  };
}

/** What `pg` answers for a statement that returns no rows, for the transaction control run here. */
function emptyResult(command: string): pg.QueryResult {
  return { command, rowCount: null, oid: 0, fields: [], rows: [] };
}

/** The parts of pg's connection written to here (pg's own Query writes the same way). */
interface ProtocolWriter {
  parse(message: { text: string; name?: string }): void;
  bind(message: { statement?: string }): void;
  execute(message: { portal?: string | undefined; rows?: number }): void;
  sync(): void;
  readonly stream: { cork(): void; uncork(): void };
}

/** pg's Query as it is at run time (its type declarations leave these members out). */
interface PgQuery {
  readonly portal: string | undefined;
  submit(connection: ProtocolWriter): Error | null;
  /** Writes the Execute (of `rows` rows, or all) and then Sync or Flush. */
  _getRows(connection: ProtocolWriter, rows: number | undefined): void;
  handleCommandComplete(message: unknown, connection: unknown): void;
}
type QueryConfigWithCallback = pg.QueryConfig & {
  queryMode: 'extended';
  callback: (error: Error | null, result: pg.QueryResult) => void;
};
const PgQuery = pg.Query as unknown as new (config: QueryConfigWithCallback) => PgQuery;

/** The names `begin` and `commit` are prepared under on each connection, once, by PrepareTransactionControl. */
const BEGIN_STATEMENT = 'pps_begin';
const COMMIT_STATEMENT = 'pps_commit';

/**
 * Prepares `begin` and `commit` on a connection (Parse and Sync, nothing executed). A Submittable
 * of its own, without a name, so that pg's bookkeeping of named statements is not touched.
 */
class PrepareTransactionControl {
  constructor(private readonly done: (error: Error | null) => void) {}
  submit(connection: ProtocolWriter): void {
    connection.stream.cork();
    connection.parse({ name: BEGIN_STATEMENT, text: 'begin' });
    connection.parse({ name: COMMIT_STATEMENT, text: 'commit' });
    connection.sync();
    connection.stream.uncork();
  }
  handleError(error: Error): void {
    this.done(error);
  }
  handleReadyForQuery(): void {
    this.done(null);
  }
}

/**
 * A statement sent together with the `begin` of its transaction, its `commit`, or both: the
 * connection writes the bind and execute of the prepared `begin`, the statement's own messages,
 * then the bind and execute of the prepared `commit`, with one Sync, so a transaction costs a
 * round trip less for each (each is a socket write and a read, about 60-85 µs of the server's CPU
 * on a loopback connection; README, "Where the time goes"). `pg` has no pipeline mode; this is its
 * Query, which serves any Submittable, with the completion of the `begin` set aside. PostgreSQL
 * runs the messages in order: a `begin` before Sync opens the transaction as the simple one does;
 * an error in the statement leaves it aborted, skipping everything after it up to the Sync, the
 * `commit` included, to be rolled back as before; that error, or one in the `commit` (it rolled
 * back), is the statement's error.
 */
class Pipelined extends PgQuery {
  private completions = 0;
  private readonly withBegin: boolean;
  private readonly withCommit: boolean;

  constructor(config: QueryConfigWithCallback, sentWith: { begin: boolean; commit: boolean }) {
    super(config);
    this.withBegin = sentWith.begin;
    this.withCommit = sentWith.commit;
  }

  override submit(connection: ProtocolWriter): Error | null {
    connection.stream.cork();
    try {
      if (this.withBegin) {
        connection.bind({ statement: BEGIN_STATEMENT });
        connection.execute({});
      }
      return super.submit(connection);
    } finally {
      connection.stream.uncork();
    }
  }

  /** pg's Query ends its messages here (execute, then Sync); the commit goes in before the Sync. */
  override _getRows(connection: ProtocolWriter, rows: number | undefined): void {
    if (!this.withCommit || rows !== undefined) {
      super._getRows(connection, rows);
      return;
    }
    connection.execute({ portal: this.portal });
    connection.bind({ statement: COMMIT_STATEMENT });
    connection.execute({});
    connection.sync();
  }

  override handleCommandComplete(message: unknown, connection: unknown): void {
    // The `begin`'s completion comes first, when it was sent.
    const index = this.completions++;
    if (index === (this.withBegin ? 1 : 0)) super.handleCommandComplete(message, connection);
  }
}

function submitted<T>(start: (callback: (error: Error | null, result?: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => start((error, result) => (error === null ? resolve(result as T) : reject(error))));
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => {
    closing ??= fn();
    return closing;
  };
}
