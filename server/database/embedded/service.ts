/**
 * The embedded database's service: what responds to the server's requests (thread.ts) on a
 * message port, in the database's own thread (worker.ts) or, when the server asks for it,
 * in the server's thread. It opens PGlite (the ESM build, the one patches/ fix), installs the int8
 * parser, then responds to each request in the order it came (thread-messages.ts says what
 * crosses). A transaction is
 * PGlite's own (`transaction`), begun by its first statement and held until its end comes; a
 * database error crosses as its fields (code, detail, …).
 *
 * PGlite runs one thing at a time: a statement by itself, or a transaction from its first
 * statement to its end; the rest wait. The thread keeps that line itself (Line, below), so that
 * with bounds (ThreadData.bounds) a call that waits too long is rejected before it runs, and a
 * transaction left without a statement for too long is rolled back and the line moves on: the
 * errors are PostgreSQL's own for the same bounds, which the HTTP layer responds with 503.
 */
import type { MessagePort } from 'node:worker_threads';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { INT8_OID, parseInt8 } from '../int8.js';
import {
  JSON_TYPE_IDS,
  type ErrorFields,
  type StatementText,
  type ThreadReplies,
  type ThreadCall,
  type ThreadData,
  type ThreadQueryResult,
  type ThreadReply,
  type ThreadRequest,
} from './thread-messages.js';

/** Thrown inside PGlite's transaction callback to end it with a rollback instead of a commit. */
const ROLL_BACK = Symbol('roll back');

/** A database error with PostgreSQL's SQLSTATE for the bound it passed (server/database/bounds.ts). */
function boundError(code: '55P03' | '25P03', message: string): Error {
  return Object.assign(new Error(message), { code });
}

/**
 * Who holds the database, and who waits for it, in the order they came. A waiter past its
 * deadline leaves the line with an error, having run nothing.
 */
class Line {
  private holder = false;
  private readonly waiting: {
    readonly start: () => void;
    readonly fail: (error: Error) => void;
    timer: NodeJS.Timeout | undefined;
  }[] = [];

  constructor(private readonly acquireMs: number | undefined) {}

  /** Resolves when the caller holds the database; it must call `release` once done. */
  take(): Promise<void> {
    if (!this.holder && this.waiting.length === 0) {
      this.holder = true;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter = { start: resolve, fail: reject, timer: undefined as NodeJS.Timeout | undefined };
      if (this.acquireMs !== undefined) {
        waiter.timer = setTimeout(() => {
          const at = this.waiting.indexOf(waiter);
          if (at >= 0) this.waiting.splice(at, 1);
          reject(
            boundError('55P03', `the embedded database stayed busy for ${this.acquireMs} ms: the call was not run`),
          );
        }, this.acquireMs);
      }
      this.waiting.push(waiter);
    });
  }

  release(): void {
    const next = this.waiting.shift();
    if (next === undefined) {
      this.holder = false;
      return;
    }
    clearTimeout(next.timer);
    next.start();
  }
}

/** A transaction open in PGlite, waiting for its next statement or its end. */
interface OpenTransaction {
  /** PGlite's transaction, once it has begun (after every earlier one has ended). */
  readonly tx: Promise<Transaction>;
  /** Ends it: a commit (true) or a rollback. */
  readonly end: (commit: boolean) => void;
  /** Settles when PGlite has ended it; rejects when its commit failed. */
  readonly ended: Promise<void>;
  /** Counts the idle time from now (no statement of it runs), or stops counting (undefined). */
  idle(counting: boolean): void;
  /** Why it was rolled back by the thread (it stayed idle too long); then every request of it fails. */
  endedBy: Error | undefined;
}

function fieldsOf(error: unknown): ErrorFields {
  if (error === null || typeof error !== 'object') return { message: String(error) };
  const fields: ErrorFields = {};
  for (const [name, value] of Object.entries(error)) {
    if (name !== 'queryOptions' && typeof value !== 'function') fields[name] = value;
  }
  const { name, message, stack } = error as Partial<Error>;
  fields['name'] = name;
  fields['message'] = message;
  fields['stack'] = stack;
  return fields;
}

function shape(result: {
  rows: unknown[];
  affectedRows?: number;
  fields: ThreadQueryResult['fields'];
}): ThreadQueryResult {
  return { rows: result.rows, affectedRows: result.affectedRows, fields: result.fields };
}

function serve(port: MessagePort, pglite: PGlite, bounds: ThreadData['bounds']): void {
  const transactions = new Map<number, OpenTransaction>();
  const line = new Line(bounds?.acquireMs);

  /** Runs `work` when the database is the caller's, then lets the next one in. */
  const inLine = async <T>(work: () => Promise<T>): Promise<T> => {
    await line.take();
    try {
      return await work();
    } finally {
      line.release();
    }
  };

  const begin = (id: number): OpenTransaction => {
    let end: (commit: boolean) => void = () => {};
    const decided = new Promise<boolean>((resolve) => (end = resolve));
    let begun: (tx: Transaction) => void = () => {};
    const started = new Promise<Transaction>((resolve) => (begun = resolve));
    // The transaction holds the line from its first statement until PGlite has ended it.
    const ended = line.take().then(() =>
      pglite
        .transaction(async (tx) => {
          begun(tx);
          if (!(await decided)) throw ROLL_BACK;
        })
        .finally(() => line.release()),
    );
    const failedToBegin = ended.then((): never => {
      throw new Error('The transaction ended before it began.');
    });
    let idleTimer: NodeJS.Timeout | undefined;
    const transaction: OpenTransaction = {
      tx: Promise.race([started, failedToBegin]),
      end: (commit) => {
        clearTimeout(idleTimer);
        end(commit);
      },
      ended: ended.catch((error: unknown) => {
        if (error !== ROLL_BACK) throw error;
      }),
      idle(counting) {
        clearTimeout(idleTimer);
        if (!counting || bounds === undefined) return;
        idleTimer = setTimeout(() => {
          transaction.endedBy = boundError(
            '25P03',
            `the transaction ran no statement for ${bounds.idleInTransactionMs} ms and was rolled back`,
          );
          end(false);
        }, bounds.idleInTransactionMs);
      },
      endedBy: undefined,
    };
    // Awaited by the statement and the end that come for it; until they do, a failure to begin
    // (a wait past its bound) must not count as unhandled, which would end the thread.
    transaction.tx.catch(() => {});
    transaction.ended.catch(() => {});
    transactions.set(id, transaction);
    return transaction;
  };

  const texts = new Map<number, string>();
  const textOf = (request: StatementText): string => {
    if (!('text' in request)) {
      const text = texts.get(request.textId);
      if (text === undefined) throw new Error(`no statement text is kept under ${request.textId}`);
      return text;
    }
    if (request.textId !== undefined) texts.set(request.textId, request.text);
    return request.text;
  };

  const handle = async (request: ThreadRequest): Promise<ThreadReplies[keyof ThreadReplies]> => {
    switch (request.op) {
      case 'query': {
        const text = textOf(request);
        if (request.tx === undefined)
          return shape(await inLine(() => pglite.query(text, request.params, request.options)));
        const transaction = transactions.get(request.tx) ?? begin(request.tx);
        if (transaction.endedBy !== undefined) throw transaction.endedBy;
        transaction.idle(false);
        let result: ThreadQueryResult;
        try {
          result = shape(await (await transaction.tx).query(text, request.params, request.options));
        } finally {
          transaction.idle(true);
        }
        if (request.commits === true) {
          transactions.delete(request.tx);
          transaction.end(true);
          await transaction.ended;
        }
        return result;
      }
      case 'end': {
        const transaction = transactions.get(request.tx);
        if (transaction === undefined) return null;
        transactions.delete(request.tx);
        transaction.end(request.commit);
        await transaction.ended;
        // A commit asked of a transaction the thread rolled back is rejected with the reason.
        if (request.commit && transaction.endedBy !== undefined) throw transaction.endedBy;
        return null;
      }
      case 'dump':
        return inLine(() => pglite.dumpDataDir(request.compression));
      case 'close':
        await pglite.close();
        return null;
      default: {
        const unknown: never = request;
        throw new Error(`unknown request ${(unknown as { op: unknown }).op}`);
      }
    }
  };

  port.on('message', ({ id, request }: ThreadCall) => {
    handle(request).then(
      (result) => port.postMessage({ id, result } satisfies ThreadReply),
      (error: unknown) => port.postMessage({ id, error: fieldsOf(error) } satisfies ThreadReply),
    );
  });
}

/** JSON values stay text here; the server's side parses them (JSON_TYPE_IDS). */
const keepText = (text: string): string => text;

/** Opens PGlite as `data` says and responds on `port` from then on; says `ready` (or `failed`) first. */
export async function serveEmbeddedDatabase(port: MessagePort, data: ThreadData): Promise<void> {
  try {
    const pglite = await PGlite.create({
      ...(data.dataDir === undefined ? {} : { dataDir: data.dataDir }),
      ...(data.loadDataDir === undefined ? {} : { loadDataDir: data.loadDataDir }),
      parsers: { [INT8_OID]: parseInt8, ...Object.fromEntries([...JSON_TYPE_IDS].map((id) => [id, keepText])) },
    });
    pglite.maxPreparedStatements = data.maxPreparedStatements;
    serve(port, pglite, data.bounds);
    port.postMessage({ ready: true } satisfies ThreadReply);
  } catch (error) {
    port.postMessage({ failed: fieldsOf(error) } satisfies ThreadReply);
  }
}
