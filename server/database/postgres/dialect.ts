import { createHash } from 'node:crypto';
import {
  AbortedTransactionError,
  PostgresAdapter,
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
import type pg from 'pg';
import { afterTheLastStatement, isLastOfItsTransaction } from '../last-statement.js';

/**
 * Kysely's dialect for PostgreSQL through a `pg` pool, built from Kysely's public interfaces and
 * `pg`'s public API (`pool.connect`, `client.query`, `client.release`):
 *
 * - Statements go as named prepared statements, so that each connection parses and plans a
 *   statement once instead of on every execution (PostgreSQL's plan cache then keeps a generic plan
 *   when it costs no more than the custom ones). Planning is most of the database's work for this
 *   service's short queries: the card read with its two lateral sums costs the server about 700 µs
 *   of CPU unnamed and 120 µs prepared (measured on PostgreSQL 15 here). The name is a hash of the
 *   text, so equal texts share a statement and a different text can never reuse one. Bounded:
 *   statements with many parameters (bulk inserts) stay unnamed, and after MAX_PREPARED_TEXTS
 *   distinct texts new ones stay unnamed too. A connection pooler in front of PostgreSQL must keep
 *   prepared statements per client (session pooling, or PgBouncer 1.21+ with
 *   max_prepared_statements).
 * - A transaction's `begin` waits for its first statement and goes with it, and a transaction's
 *   last statement (last-statement.ts) after others goes with the commit: on a client in pg's
 *   pipeline mode (`client.pipeline`, set by open.ts) each is sent without waiting for the
 *   response to the one before, so an execute (a lock, then its reservation) is two round trips
 *   instead of four. A transaction whose only statement is its last runs that statement by
 *   itself, without begin and commit: one round trip for a create's write instead of three.
 */
export interface PreparingDialectOptions {
  /** Told when an idle or busy connection fails (the pool replaces it). */
  readonly onConnectionError?: ((error: Error) => void) | undefined;
  /** false: a transaction's last statement runs as any other (the benchmark's measure of what it buys). */
  readonly lastStatement: boolean;
}

export class PreparingPostgresDialect implements Dialect {
  constructor(
    private readonly pool: pg.Pool,
    private readonly options: PreparingDialectOptions,
  ) {}

  createAdapter(): DialectAdapter {
    return new PostgresAdapter();
  }

  createDriver(): Driver {
    return new PreparingDriver(this.pool, this.options);
  }

  createQueryCompiler(): QueryCompiler {
    return new PostgresQueryCompiler();
  }

  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new PostgresIntrospector(db);
  }
}

/** At most this many distinct statement texts are kept prepared per process; beyond it they run unnamed. */
export const MAX_PREPARED_TEXTS = 2_000;
/** Above this many parameters a statement is a bulk write, run rarely and with ever-new shapes. */
const MAX_PREPARED_PARAMETERS = 100;
/** SQLSTATE feature_not_supported, which PostgreSQL responds with "cached plan must not change result type". */
const CACHED_PLAN_CHANGED = '0A000';

/** Where a connection's transaction is. */
type TransactionState = 'none' | 'begin-pending' | 'open' | 'ended';

class PreparingConnection implements DatabaseConnection {
  state: TransactionState = 'none';
  /** The statement that begins the pending transaction, with the settings its caller asked for. */
  beginText = 'begin';
  /** One of its statements outlived a change of its table (below), or the connection failed. */
  stale = false;

  constructor(
    readonly client: pg.PoolClient,
    private readonly nameOf: (text: string, parameterCount: number) => string | undefined,
    private readonly lastStatement: boolean,
  ) {}

  private send(text: string, values: readonly unknown[]): Promise<pg.QueryResult> {
    const name = this.nameOf(text, values.length);
    return this.client
      .query({ ...(name === undefined ? {} : { name }), text, values: [...values] })
      .catch((error: unknown) => {
        // A migration run by another instance (a rolling deploy) changed the columns a prepared
        // statement returns: PostgreSQL rejects it on this connection from then on. The request fails
        // (a 500, which a client may retry); the connection is closed when it goes back to the pool,
        // and its replacement prepares the statement afresh.
        if ((error as { code?: unknown }).code === CACHED_PLAN_CHANGED) this.stale = true;
        throw error;
      });
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    if (this.state === 'ended') throw afterTheLastStatement(compiled.sql);
    const last = this.lastStatement && isLastOfItsTransaction(compiled) && this.state !== 'none';
    let begun: Promise<unknown> | undefined;
    if (this.state === 'begin-pending') {
      // A transaction with settings of its own (an isolation level) keeps its begin.
      if (last && this.beginText === 'begin') {
        // The transaction's only statement: by itself, atomic, committed when it returns or not at all.
        this.state = 'ended';
        return resultOf<R>(await this.send(compiled.sql, compiled.parameters));
      }
      this.state = 'open';
      begun = this.client.query(this.beginText);
      if (!this.client.pipeline) await begun;
    }
    // On a pipelining client (open.ts) the begin, the statement and the commit go out
    // together and each is served on its own: PostgreSQL runs them in order, so the statement
    // runs inside the transaction and the commit right after it.
    const sent = this.send(compiled.sql, compiled.parameters);
    let committed: Promise<void> | undefined;
    if (last) {
      this.state = 'ended';
      committed = this.client.pipeline ? this.commit() : sent.then(() => this.commit());
    }
    if (begun === undefined && committed === undefined) return resultOf<R>(await sent);
    const [beginning, statement, ending] = await Promise.allSettled([begun, sent, committed]);
    // A begin fails only when its connection does, and PostgreSQL rolls back whatever ran after it
    // on a connection it lost: nothing sent behind a begin runs outside its transaction.
    if (beginning.status === 'rejected') {
      this.stale = true;
      throw beginning.reason;
    }
    if (statement.status === 'rejected') {
      // The commit sent after a failed statement ends its transaction with a rollback (PostgreSQL
      // responds with ROLLBACK); one not sent leaves the transaction open for Kysely's rollback.
      if (last && !this.client.pipeline) this.state = 'open';
      throw statement.reason;
    }
    if (ending.status === 'rejected') throw ending.reason;
    return resultOf<R>(statement.value);
  }

  /** Commits the open transaction; rejects one an earlier failure aborted (PostgreSQL responds with ROLLBACK). */
  async commit(): Promise<void> {
    const { command } = await this.client.query('commit');
    if (command === 'ROLLBACK') throw new AbortedTransactionError();
  }

  /** The interface asks for a generator; this dialect streams nothing. */
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('This dialect does not stream rows.');
  }
}

function resultOf<R>(result: pg.QueryResult): QueryResult<R> {
  const changes =
    result.command === 'INSERT' ||
    result.command === 'UPDATE' ||
    result.command === 'DELETE' ||
    result.command === 'MERGE';
  return { rows: (result.rows ?? []) as R[], ...(changes ? { numAffectedRows: BigInt(result.rowCount ?? 0) } : {}) };
}

class PreparingDriver implements Driver {
  private readonly names = new Map<string, string>();
  private readonly connections = new WeakMap<pg.PoolClient, PreparingConnection>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly options: PreparingDialectOptions,
  ) {}

  private readonly nameOf = (text: string, parameterCount: number): string | undefined => {
    const known = this.names.get(text);
    if (known !== undefined || parameterCount > MAX_PREPARED_PARAMETERS || this.names.size >= MAX_PREPARED_TEXTS)
      return known;
    const name = `pps_${createHash('sha256').update(text).digest('base64url').slice(0, 32)}`;
    this.names.set(text, name);
    return name;
  };

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const client = await this.pool.connect();
    let connection = this.connections.get(client);
    if (connection === undefined) {
      const created = new PreparingConnection(client, this.nameOf, this.options.lastStatement);
      // A connection that fails while a request holds it (the server ended its backend, the
      // network dropped) emits 'error' besides failing its query; without a listener that would end
      // the process. The request fails with its query; the connection is dropped when released.
      client.on('error', (error) => {
        created.stale = true;
        this.options.onConnectionError?.(error);
      });
      this.connections.set(client, created);
      connection = created;
    }
    return connection;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const own = connection as PreparingConnection;
    own.state = 'begin-pending';
    // Kysely checks the settings against its lists of levels and modes before they come here.
    const modes = [settings.isolationLevel && `isolation level ${settings.isolationLevel}`, settings.accessMode].filter(
      Boolean,
    );
    own.beginText = modes.length === 0 ? 'begin' : `start transaction ${modes.join(', ')}`;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const own = connection as PreparingConnection;
    const state = own.state;
    own.state = 'none';
    // A transaction that ran nothing has nothing to end; one its last statement ended is committed.
    if (state === 'open') await own.commit();
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const own = connection as PreparingConnection;
    const state = own.state;
    own.state = 'none';
    if (state !== 'open') return;
    try {
      await own.client.query('rollback');
    } catch (error) {
      own.stale = true;
      throw error;
    }
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const own = connection as PreparingConnection;
    own.state = 'none';
    own.client.release(own.stale);
  }

  async destroy(): Promise<void> {
    await this.pool.end();
  }
}
