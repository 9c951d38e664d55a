import { MessageChannel, Worker } from 'node:worker_threads';
import type { DatabaseBounds } from '../bounds.js';
import { afterTheLastStatement } from '../last-statement.js';
import type { CreatePGliteOptions, PGliteInstance, PGliteInstanceTransaction } from './instance.js';
import {
  JSON_TYPE_IDS,
  type ErrorFields,
  type StatementOptions,
  type StatementText,
  type ThreadReplies,
  type ThreadCall,
  type ThreadData,
  type ThreadQueryResult,
  type ThreadReply,
  type ThreadRequest,
} from './thread-messages.js';

// The embedded database in a thread of its own. PostgreSQL's WebAssembly build runs there, and
// the server's thread sends it each statement and takes its rows back (a message each way, some
// 35 µs of CPU the round trip, measured in a loop of 10 callers on a 2-core machine): the HTTP
// side of one request then runs while the database executes another's
// statement, on the second core, instead of taking turns with it on one. The thread holds the one
// PGlite instance; a transaction stays open in it from its first statement to its end, and every
// other statement waits for that end inside PGlite, as it does in one thread (README, "Design").
// This is the server's side; the thread's program is worker.ts, and what crosses between
// them is typed in thread-messages.ts.

/**
 * Starts the thread's program, worker.ts, in the way this module runs.
 * - Compiled (`npm run build`; `npm start` runs .build/): the worker's compiled .js, beside this
 *   file's, as any module.
 * - From source (tsx: `npm run dev`, the scripts; vitest, whose processes load TypeScript through
 *   their own module runner): Node 20 starts no thread at a .ts file (ERR_UNKNOWN_FILE_EXTENSION),
 *   and tsx's loader given with `--import` registers itself in the main thread only, by tsx's own
 *   check, before Node 22.22 and 24.11. So the thread starts at typescript-thread-entry.mjs, which
 *   registers tsx's loader in that thread and then imports the worker's .ts, compiled by tsx as the
 *   rest of the source is. It is given none of the process's flags: on a Node where tsx's
 *   `--import` does register in a thread, it would register a second time.
 */
/** What the server's side uses of the database's thread: a Worker, or a port to the service in this thread. */
type Endpoint = Pick<Worker, 'postMessage' | 'on' | 'once' | 'off' | 'ref' | 'unref' | 'terminate'>;

/**
 * The service in the server's own thread (`ownThread: false`), over a pair of message ports: the
 * same messages, cloned as between threads, with PGlite sharing the server's one core. It exists
 * to measure what the thread of its own buys (scripts/bench, `--without database-thread`).
 */
async function startInThisThread(workerData: ThreadData): Promise<Endpoint> {
  const { port1, port2 } = new MessageChannel();
  const { serveEmbeddedDatabase } = await import('./service.js');
  void serveEmbeddedDatabase(port2, workerData);
  type Listener = (message: unknown) => void;
  // The port has no 'error' or 'exit' of a thread: a listener for them is never called.
  const endpoint = {
    postMessage: (message: unknown) => port1.postMessage(message),
    on: (event: string, listener: Listener) => (event === 'message' && port1.on('message', listener), endpoint),
    once: (event: string, listener: Listener) => (event === 'message' && port1.once('message', listener), endpoint),
    off: (event: string, listener: Listener) => (event === 'message' && port1.off('message', listener), endpoint),
    ref: () => port1.ref(),
    unref: () => port1.unref(),
    terminate: async () => {
      port1.close();
      port2.close();
      return 0;
    },
  };
  return endpoint as unknown as Endpoint;
}

function startThread(workerData: ThreadData): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./worker.js', import.meta.url), { workerData });
  return new Worker(new URL('./typescript-thread-entry.mjs', import.meta.url), {
    workerData,
    argv: [new URL('./worker.ts', import.meta.url).href],
    execArgv: [],
  });
}

/** The result with its JSON values parsed: they cross as text (JSON_TYPE_IDS says why). */
function withJsonParsed(result: ThreadQueryResult): ThreadQueryResult {
  const columns = result.fields.flatMap((field, index) =>
    JSON_TYPE_IDS.has(field.dataTypeID) ? [{ index, name: field.name }] : [],
  );
  if (columns.length === 0) return result;
  for (const row of result.rows) {
    const values = row as Record<string | number, unknown>;
    for (const { index, name } of columns) {
      const key = Array.isArray(row) ? index : name;
      const text = values[key];
      if (typeof text === 'string') values[key] = JSON.parse(text);
    }
  }
  return result;
}

/** A statement's result as the store types it: its rows are the caller's to name. */
type QueryResult<R> = Awaited<ReturnType<PGliteInstance['query']>> & { rows: R[] };

/** An error that crossed from the database thread: its fields, on an Error of this thread. */
function errorFrom(fields: ErrorFields): Error {
  const error = new Error(typeof fields['message'] === 'string' ? fields['message'] : 'database error');
  Object.assign(error, fields);
  return error;
}

export interface PGliteThreadOptions extends CreatePGliteOptions {
  readonly maxPreparedStatements: number;
  /** Told when the thread ends without being closed (an uncaught error in it, or it exited). */
  readonly onLost?: ((error: Error) => void) | undefined;
  /** How long a call may wait for the database, and a transaction stay idle (bounds.ts); absent: unbounded. */
  readonly bounds?: Pick<DatabaseBounds, 'acquireMs' | 'idleInTransactionMs'> | undefined;
  /** false: the database runs in the server's own thread (startInThisThread says why); default true. */
  readonly ownThread?: boolean;
}

/**
 * Starts the embedded database in a thread of its own and responds with the instance the store
 * uses, whose every call is a message to that thread. The thread keeps the process alive only
 * while a call is waiting for its response.
 */
export async function startPGliteThread(options: PGliteThreadOptions): Promise<PGliteInstance> {
  const data: ThreadData = {
    dataDir: options.dataDir,
    loadDataDir: options.loadDataDir,
    maxPreparedStatements: options.maxPreparedStatements,
    bounds:
      options.bounds === undefined
        ? undefined
        : { acquireMs: options.bounds.acquireMs, idleInTransactionMs: options.bounds.idleInTransactionMs },
  };
  const worker: Endpoint = options.ownThread === false ? await startInThisThread(data) : startThread(data);
  const waiting = new Map<
    number,
    { resolve: (value: unknown) => void; reject: (error: Error) => void; query: boolean }
  >();
  let nextId = 0;
  let closed = false;
  let gone: Error | undefined;

  const failAll = (error: Error): void => {
    if (gone === undefined) options.onLost?.(error);
    gone ??= error;
    closed = true;
    for (const { reject } of waiting.values()) reject(error);
    waiting.clear();
    worker.unref();
  };

  await new Promise<void>((resolve, reject) => {
    const onMessage = (message: ThreadReply): void => {
      if ('ready' in message) {
        worker.off('error', onStartError);
        worker.off('exit', onStartExit);
        resolve();
      } else if ('failed' in message) {
        void worker.terminate();
        reject(errorFrom(message.failed));
      }
    };
    const onStartError = (error: Error): void => reject(error);
    const onStartExit = (code: number): void =>
      reject(new Error(`The database thread exited with code ${code} while starting.`));
    worker.once('message', onMessage);
    worker.once('error', onStartError);
    worker.once('exit', onStartExit);
  });
  worker.unref();
  worker.on('message', (message: ThreadReply) => {
    if (!('id' in message)) return;
    const call = waiting.get(message.id);
    if (call === undefined) return;
    waiting.delete(message.id);
    if (waiting.size === 0) worker.unref();
    if ('error' in message) call.reject(errorFrom(message.error));
    else call.resolve(call.query ? withJsonParsed(message.result as ThreadQueryResult) : message.result);
  });
  worker.on('error', (error) => failAll(error));
  worker.on('exit', (code) => failAll(new Error(`The database thread exited (code ${code}).`)));

  const textIds = new Map<string, number>();
  const statementText = (text: string): StatementText => {
    const known = textIds.get(text);
    if (known !== undefined) return { textId: known };
    if (textIds.size >= options.maxPreparedStatements) return { text };
    // Kept under this number once it has been sent (call).
    return { text, textId: textIds.size + 1 };
  };

  const call = <Request extends ThreadRequest>(request: Request): Promise<ThreadReplies[Request['op']]> => {
    if (gone !== undefined) return Promise.reject(gone);
    const id = ++nextId;
    return new Promise((resolve, reject) => {
      // Throws when a parameter cannot cross (a function, say): then nothing waits for a response,
      // and a text it carried is not taken as kept.
      worker.postMessage({ id, request } satisfies ThreadCall);
      if (request.op === 'query' && 'text' in request && request.textId !== undefined)
        textIds.set(request.text, request.textId);
      if (waiting.size === 0) worker.ref();
      waiting.set(id, { resolve: resolve as (value: unknown) => void, reject, query: request.op === 'query' });
    });
  };

  let closing: Promise<void> | undefined;
  const instance: PGliteInstance = {
    get closed() {
      return closed;
    },
    query: <R>(text: string, params?: unknown[], queryOptions?: StatementOptions) =>
      call({ op: 'query', ...statementText(text), params, options: queryOptions }) as Promise<QueryResult<R>>,
    /**
     * A transaction begins in the thread with its first statement; one that runs none opens none.
     * Its last statement (queryAndCommit) is committed in the same crossing; as the transaction's
     * only statement it runs by itself, without begin and commit, one call into the database
     * instead of a BEGIN and a COMMIT of two calls each around it (a create's write costs 330 µs of
     * CPU alone against 450 with them). A statement after it is rejected.
     */
    begin() {
      const tx = ++nextTransaction;
      let open = false;
      let ended = false;
      const run = async <R>(
        text: string,
        params: unknown[] | undefined,
        queryOptions: StatementOptions | undefined,
        commits: boolean,
      ): Promise<QueryResult<R>> => {
        if (ended) throw afterTheLastStatement(text);
        if (commits && !open) {
          ended = true;
          return call({ op: 'query', ...statementText(text), params, options: queryOptions }) as Promise<
            QueryResult<R>
          >;
        }
        open = true;
        const result = (await call({
          op: 'query',
          ...statementText(text),
          params,
          options: queryOptions,
          tx,
          commits,
        })) as QueryResult<R>;
        if (commits) {
          ended = true;
          open = false;
        }
        return result;
      };
      const end = async (commit: boolean): Promise<void> => {
        ended = true;
        if (!open) return;
        open = false;
        await call({ op: 'end', tx, commit });
      };
      return {
        query: <R>(text: string, params?: unknown[], queryOptions?: StatementOptions) =>
          run<R>(text, params, queryOptions, false),
        queryAndCommit: <R>(text: string, params?: unknown[], queryOptions?: StatementOptions) =>
          run<R>(text, params, queryOptions, true),
        rollback: () => end(false),
        commit: () => end(true),
      };
    },
    async transaction<T>(callback: (tx: PGliteInstanceTransaction) => Promise<T>): Promise<T> {
      const handle = instance.begin();
      let result: T;
      try {
        result = await callback(handle);
      } catch (error) {
        await handle.rollback().catch(() => {});
        throw error;
      }
      await handle.commit();
      return result;
    },
    dumpDataDir: (compression) => call({ op: 'dump', compression }),
    close() {
      closing ??= (async () => {
        if (gone === undefined) {
          try {
            await call({ op: 'close' });
          } finally {
            closed = true;
            gone = new Error('The embedded database is closed.');
            await worker.terminate();
          }
        }
      })();
      return closing;
    },
  };
  let nextTransaction = 0;
  return instance;
}
