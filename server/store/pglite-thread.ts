import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { CreatePGliteOptions, PGliteInstance, PGliteInstanceTransaction } from './pglite-instance.js';

// The embedded database in a thread of its own. PostgreSQL's WebAssembly build runs there, and
// the server's thread sends it each statement and takes its rows back (a message each way, some
// 35 µs of CPU the round trip where it was measured; README, "What changed", the nineteenth
// change): the HTTP side of one request then runs while the database executes another's
// statement, on the second core, instead of taking turns with it on one. The thread holds the one
// PGlite instance; a transaction stays open in it from its first statement to its end, and every
// other statement waits for that end inside PGlite, as it does in one thread (README, "Design").

/** What the database thread is started with. */
interface ThreadData {
  /** The ESM build of PGlite (the one patches/ fix). */
  readonly moduleUrl: string;
  readonly dataDir: string | undefined;
  readonly loadDataDir: Blob | undefined;
  readonly maxPreparedStatements: number;
  /** Source of the int8 parser (connection.ts's parseInt8), so that the thread and `pg` hold one rule. */
  readonly int8ParserSource: string;
  readonly int8Oid: number;
}

/**
 * A statement's text crosses once: with `textId` the first time, which the thread keeps it
 * under, then as `textId` alone (up to maxPreparedStatements texts; beyond them, as text each time).
 */
type StatementText = { text: string; textId?: number } | { textId: number };

type Request =
  | ({ op: 'query'; params: unknown[] | undefined; options: unknown; tx?: number; commits?: boolean } & StatementText)
  | { op: 'rollback'; tx: number }
  | { op: 'end'; tx: number; commit: boolean }
  | { op: 'dump'; compression: 'none' | 'gzip' | 'auto' | undefined }
  | { op: 'close' };

type Reply = { id: number; result: unknown } | { id: number; error: Record<string, unknown> } | { ready: true } | { failed: Record<string, unknown> };

/**
 * The thread's program, run with `eval` (as CommonJS or as a module, as the process's flags say;
 * hence getBuiltinModule, which both have): it opens PGlite, then answers each request in the order
 * it came. A transaction is PGlite's own (`transaction`), begun by its first statement and held
 * until its end comes; a database error crosses as its fields (code, detail, …).
 */
const THREAD_SOURCE = `
const { parentPort, workerData } = process.getBuiltinModule('node:worker_threads');
const parseInt8 = (__INT8_PARSER__);
const ROLL_BACK = Symbol('roll back');
const transactions = new Map();
let pglite;

function fieldsOf(error) {
  if (error === null || typeof error !== 'object') return { message: String(error) };
  const fields = {};
  for (const [name, value] of Object.entries(error)) {
    if (name !== 'queryOptions' && typeof value !== 'function') fields[name] = value;
  }
  fields.name = error.name;
  fields.message = error.message;
  fields.stack = error.stack;
  return fields;
}

function begin(id) {
  let end = () => {};
  const decided = new Promise((resolve) => { end = resolve; });
  let begun = () => {};
  const started = new Promise((resolve) => { begun = resolve; });
  const ended = pglite.transaction(async (tx) => {
    begun(tx);
    if (!(await decided)) throw ROLL_BACK;
  });
  const failedToBegin = ended.then(() => { throw new Error('The transaction ended before it began.'); });
  const transaction = {
    tx: Promise.race([started, failedToBegin]),
    end,
    ended: ended.catch((error) => { if (error !== ROLL_BACK) throw error; }),
  };
  transaction.tx.catch(() => {});
  transactions.set(id, transaction);
  return transaction;
}

function shape(result) {
  return { rows: result.rows, affectedRows: result.affectedRows, fields: result.fields };
}

const texts = new Map();
function textOf(request) {
  if (request.text === undefined) {
    const text = texts.get(request.textId);
    if (text === undefined) throw new Error('no statement text is kept under ' + request.textId);
    return text;
  }
  if (request.textId !== undefined) texts.set(request.textId, request.text);
  return request.text;
}

async function handle(request) {
  switch (request.op) {
    case 'query': {
      const text = textOf(request);
      if (request.tx === undefined) return shape(await pglite.query(text, request.params, request.options));
      const transaction = transactions.get(request.tx) ?? begin(request.tx);
      const result = shape(await (await transaction.tx).query(text, request.params, request.options));
      if (request.commits) {
        transactions.delete(request.tx);
        transaction.end(true);
        await transaction.ended;
      }
      return result;
    }
    case 'rollback': {
      const transaction = transactions.get(request.tx);
      if (transaction !== undefined) await (await transaction.tx).rollback();
      return null;
    }
    case 'end': {
      const transaction = transactions.get(request.tx);
      if (transaction === undefined) return null;
      transactions.delete(request.tx);
      transaction.end(request.commit);
      await transaction.ended;
      return null;
    }
    case 'dump':
      return pglite.dumpDataDir(request.compression);
    case 'close':
      await pglite.close();
      return null;
    default:
      throw new Error('unknown request ' + request.op);
  }
}

(async () => {
  const { PGlite } = await import(workerData.moduleUrl);
  pglite = await PGlite.create({
    ...(workerData.dataDir === undefined ? {} : { dataDir: workerData.dataDir }),
    ...(workerData.loadDataDir === undefined ? {} : { loadDataDir: workerData.loadDataDir }),
    parsers: { [workerData.int8Oid]: parseInt8 },
  });
  pglite.maxPreparedStatements = workerData.maxPreparedStatements;
  parentPort.on('message', ({ id, request }) => {
    handle(request).then(
      (result) => parentPort.postMessage({ id, result }),
      (error) => parentPort.postMessage({ id, error: fieldsOf(error) }),
    );
  });
  parentPort.postMessage({ ready: true });
})().catch((error) => parentPort.postMessage({ failed: fieldsOf(error) }));
`;

/** The ESM entry of PGlite, next to the CommonJS one `require.resolve` finds. */
function pgliteModuleUrl(): string {
  const commonJs = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const esm = join(dirname(commonJs), 'index.js');
  if (!existsSync(esm)) throw new Error(`PGlite's ESM build was not found at ${esm}`);
  return pathToFileURL(esm).href;
}

/** An error that crossed from the database thread: its fields, on an Error of this thread. */
function errorFrom(fields: Record<string, unknown>): Error {
  const error = new Error(typeof fields.message === 'string' ? fields.message : 'database error');
  Object.assign(error, fields);
  return error;
}

export interface PGliteThreadOptions extends CreatePGliteOptions {
  readonly maxPreparedStatements: number;
  /**
   * A statement of a transaction whose text begins with this commits it (connection.ts,
   * COMMITS_ITS_TRANSACTION): the thread commits right after it, in the same crossing, so the
   * transaction does not stay open while its end crosses; as the transaction's only statement it
   * runs by itself (`transaction` below).
   */
  readonly commitsItsTransaction: string;
  readonly int8Parser: (text: string) => number;
  readonly int8Oid: number;
  /** Told when the thread ends without being closed (an uncaught error in it, or it exited). */
  readonly onLost?: ((error: Error) => void) | undefined;
}

/**
 * Starts the embedded database in a thread of its own and answers with the instance the store
 * uses, whose every call is a message to that thread. The thread keeps the process alive only
 * while a call is waiting for its answer.
 */
export async function startPGliteThread(options: PGliteThreadOptions): Promise<PGliteInstance> {
  const data: ThreadData = {
    moduleUrl: pgliteModuleUrl(),
    dataDir: options.dataDir,
    loadDataDir: options.loadDataDir,
    maxPreparedStatements: options.maxPreparedStatements,
    int8ParserSource: options.int8Parser.toString(),
    int8Oid: options.int8Oid,
  };
  const worker = new Worker(THREAD_SOURCE.replace('__INT8_PARSER__', () => data.int8ParserSource), { eval: true, workerData: data });
  const waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
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
    const onMessage = (message: Reply): void => {
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
    const onStartExit = (code: number): void => reject(new Error(`The database thread exited with code ${code} while starting.`));
    worker.once('message', onMessage);
    worker.once('error', onStartError);
    worker.once('exit', onStartExit);
  });
  worker.unref();
  worker.on('message', (message: Reply) => {
    if (!('id' in message)) return;
    const call = waiting.get(message.id);
    if (call === undefined) return;
    waiting.delete(message.id);
    if (waiting.size === 0) worker.unref();
    if ('error' in message) call.reject(errorFrom(message.error));
    else call.resolve(message.result);
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

  const call = <T>(request: Request): Promise<T> => {
    if (gone !== undefined) return Promise.reject(gone);
    const id = ++nextId;
    return new Promise<T>((resolve, reject) => {
      // Throws when a parameter cannot cross (a function, say): then nothing waits for an answer,
      // and a text it carried is not taken as kept.
      worker.postMessage({ id, request });
      if (request.op === 'query' && 'text' in request && request.textId !== undefined) textIds.set(request.text, request.textId);
      if (waiting.size === 0) worker.ref();
      waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
    });
  };

  let closing: Promise<void> | undefined;
  const instance: PGliteInstance = {
    get closed() {
      return closed;
    },
    ready: true,
    waitReady: Promise.resolve(),
    query: (text, params, queryOptions) => call({ op: 'query', ...statementText(text), params, options: queryOptions }),
    /**
     * A transaction begins in the thread with its first statement; one that runs none opens none.
     * A statement that commits it (commitsItsTransaction) is committed in the same crossing; as the
     * transaction's only statement it runs by itself, without begin and commit, one call into the
     * database instead of a BEGIN and a COMMIT of two calls each around it (a create's write, 330 µs
     * of CPU alone against 450 with them; README, "What changed", the seventeenth change). A
     * statement after it is refused.
     */
    async transaction<T>(callback: (tx: PGliteInstanceTransaction) => Promise<T>): Promise<T> {
      const tx = ++nextTransaction;
      let open = false;
      let ended = false;
      const handle: PGliteInstanceTransaction = {
        query: async <R>(text: string, params?: unknown[], queryOptions?: { rowMode?: 'array' | 'object' }) => {
          if (ended) throw new Error(`The transaction was committed by its last statement; "${text.slice(0, 60)}" came after it and was not run.`);
          const commits = text.startsWith(options.commitsItsTransaction);
          type Result = Awaited<ReturnType<PGliteInstance['query']>> & { rows: R[] };
          if (commits && !open) {
            ended = true;
            return call<Result>({ op: 'query', ...statementText(text), params, options: queryOptions });
          }
          open = true;
          const result = await call<Result>({ op: 'query', ...statementText(text), params, options: queryOptions, tx, commits });
          if (commits) {
            ended = true;
            open = false;
          }
          return result;
        },
        rollback: async () => {
          if (open) await call<null>({ op: 'rollback', tx });
        },
      };
      let result: T;
      try {
        result = await callback(handle);
      } catch (error) {
        if (open) await call<null>({ op: 'end', tx, commit: false }).catch(() => {});
        throw error;
      }
      if (open) await call<null>({ op: 'end', tx, commit: true });
      return result;
    },
    dumpDataDir: (compression) => call<Blob>({ op: 'dump', compression }),
    close() {
      closing ??= (async () => {
        if (gone === undefined) {
          try {
            await call<null>({ op: 'close' });
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
