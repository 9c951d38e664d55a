import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Kysely } from 'kysely';
import pg from 'pg';
import { EmbeddedDialect } from './embedded/dialect.js';
import { INT8_OID, parseInt8 } from './int8.js';
import type { DatabaseBounds } from './bounds.js';
import { acquireDataDirLock, lockPathFor } from './embedded/lock.js';
import type { CreatePGliteOptions, PGliteInstance } from './embedded/instance.js';
import { startPGliteThread } from './embedded/thread.js';
import { MAX_PREPARED_TEXTS, PreparingPostgresDialect } from './postgres/dialect.js';
import type { DB } from './schema.js';

export type { CreatePGliteOptions, PGliteInstance, PGliteInstanceTransaction } from './embedded/instance.js';
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
   * Told when the embedded database's thread ends without being closed (embedded/thread.ts); every
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
   * unless false: on both databases, a transaction's last statement (last-statement.ts) committing
   * it at once, by itself when it is the only one (`lastStatement`); on PostgreSQL, a transaction's
   * begin sent with its first statement and its commit with its last (`pipeline`, pg's pipeline
   * mode); on the embedded database, statements kept prepared (`preparedStatements`) and the
   * database in a thread of its own (`ownThread`).
   */
  lastStatement?: boolean;
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
 * database CPU (server/decisions/0013-six-postgresql-connections-a-process.md).
 */
export const DEFAULT_MAX_CONNECTIONS = 6;

/**
 * Starts an embedded database in a thread of its own (embedded/thread.ts), whose program
 * (embedded/worker.ts) installs the int8 parser of int8.ts. Each query text is parsed and planned
 * once, then bound and executed by name (`maxPreparedStatements` comes from
 * patches/@electric-sql+pglite+0.5.16+001+prepared-statements.patch):
 * parsing and planning were most of a statement's cost in the WebAssembly build (the card read
 * 1,374 µs unprepared, 384 µs prepared, measured in a loop on a seeded database). PGlite's
 * package is loaded by the thread, so a server on PostgreSQL never loads the WebAssembly build.
 */
export function startEmbeddedDatabase(
  options: CreatePGliteOptions &
    Pick<OpenDatabaseOptions, 'onLost' | 'bounds' | 'preparedStatements' | 'ownThread'> = {},
): Promise<PGliteInstance> {
  const { preparedStatements, ...rest } = options;
  return startPGliteThread({
    ...rest,
    maxPreparedStatements: preparedStatements === false ? 0 : MAX_PREPARED_TEXTS,
  });
}

/** Wraps a started embedded database; `onClose` runs after it is closed (lock release). */
export function databaseFromPGlite(
  pglite: PGliteInstance,
  onClose: () => void = () => {},
  options: Pick<OpenDatabaseOptions, 'lastStatement'> = {},
): Database {
  const db = new Kysely<DB>({
    dialect: new EmbeddedDialect(pglite, { lastStatement: options.lastStatement !== false }),
  });
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
      () => {},
      options,
    );
  }
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    return openPostgres(
      url,
      options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
      options.onConnectionError,
      options.bounds,
      {
        lastStatement: options.lastStatement !== false,
        pipeline: options.pipeline !== false,
      },
    );
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
  return databaseFromPGlite(pglite, lock.release, options);
}

function openPostgres(
  url: string,
  max: number,
  onConnectionError: ((error: Error) => void) | undefined,
  bounds: DatabaseBounds | undefined,
  { lastStatement, pipeline }: { readonly lastStatement: boolean; readonly pipeline: boolean },
): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    // pg's pipeline mode (https://node-postgres.com/features/pipelining): a query is sent without
    // waiting for the responses of those before it, and each is served on its own. The dialect
    // sends a transaction's begin with its first statement and its commit with its last
    // (postgres/dialect.ts): an execute is two round trips instead of four.
    pipeline,
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
  const db = new Kysely<DB>({ dialect: new PreparingPostgresDialect(pool, { onConnectionError, lastStatement }) });
  return { db, kind: 'postgres', close: once(() => db.destroy()) };
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => {
    closing ??= fn();
    return closing;
  };
}
