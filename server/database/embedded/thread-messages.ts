/**
 * What crosses between the server's thread (thread.ts) and the embedded database's thread
 * (worker.ts): types, and the type ids of the values that cross as text, so that each side
 * imports the other's words and none of its code.
 */

/**
 * PostgreSQL's `json` and `jsonb` (PGlite's `types.JSON` and `types.JSONB`). A value of these
 * types crosses as its text, which the thread leaves unparsed and the server's side parses: a
 * string crosses as one copy, where parsed objects would be cloned object by object, written in
 * the database's thread and read again in the server's. A ledger page is one such value.
 */
export const JSON_TYPE_IDS: ReadonlySet<number> = new Set([114, 3802]);

/** What the database thread is started with (its `workerData`). */
export interface ThreadData {
  readonly dataDir: string | undefined;
  /** A dump (`dumpDataDir`) to start from instead of an empty cluster. */
  readonly loadDataDir: Blob | undefined;
  /**
   * How many statement texts PGlite keeps prepared (its `maxPreparedStatements`, from
   * patches/@electric-sql+pglite+0.5.16+001+prepared-statements.patch), and how many the thread
   * keeps under an id (StatementText).
   */
  readonly maxPreparedStatements: number;
  /**
   * How long a call may wait for the database to take it, and how long a transaction may stay
   * without a statement before it is rolled back (server/database/bounds.ts); absent: unbounded.
   */
  readonly bounds: { readonly acquireMs: number; readonly idleInTransactionMs: number } | undefined;
}

/**
 * A statement's text crosses once: with `textId` the first time, which the thread keeps it
 * under, then as `textId` alone (up to maxPreparedStatements texts; beyond them, as text each time).
 */
export type StatementText = { readonly text: string; readonly textId?: number } | { readonly textId: number };

export interface StatementOptions {
  readonly rowMode?: 'array' | 'object';
}

export type ThreadRequest =
  | ({
      readonly op: 'query';
      readonly params: unknown[] | undefined;
      readonly options: StatementOptions | undefined;
      /** The transaction it runs in (begun in the thread by its first statement); absent: by itself. */
      readonly tx?: number;
      /** The thread commits the transaction right after this statement, in the same crossing. */
      readonly commits?: boolean;
    } & StatementText)
  /** Ends the transaction: commits it, or rolls it back. A transaction that ran nothing has nothing to end. */
  | { readonly op: 'end'; readonly tx: number; readonly commit: boolean }
  | { readonly op: 'dump'; readonly compression: 'none' | 'gzip' | 'auto' | undefined }
  | { readonly op: 'close' };

/** A statement's response: PGlite's result, without what cannot cross or is not used; JSON values as their text. */
export interface ThreadQueryResult {
  readonly rows: unknown[];
  readonly affectedRows: number | undefined;
  readonly fields: { name: string; dataTypeID: number }[];
}

/** What each kind of request is served with. */
export interface ThreadReplies {
  readonly query: ThreadQueryResult;
  readonly end: null;
  readonly dump: Blob;
  readonly close: null;
}

/** A request as it crosses, with the id its response comes back under. */
export interface ThreadCall {
  readonly id: number;
  readonly request: ThreadRequest;
}

/** An error's own fields (code, detail, constraint, message, stack, …): what of it can cross. */
export type ErrorFields = Record<string, unknown>;

export type ThreadReply =
  | { readonly id: number; readonly result: ThreadReplies[keyof ThreadReplies] }
  | { readonly id: number; readonly error: ErrorFields }
  /** PGlite is open: requests are served from now on. */
  | { readonly ready: true }
  /** PGlite did not open; the thread serves nothing. */
  | { readonly failed: ErrorFields };
