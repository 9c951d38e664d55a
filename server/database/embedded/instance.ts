/**
 * The embedded database as the database thread (thread.ts) offers it to the store: PGlite's
 * statements and dumps, and transactions with an explicit end. Declared here so that no other file
 * of the store depends on the package's own types.
 */
export interface PGliteInstance {
  close(): Promise<void>;
  readonly closed: boolean;
  query<T>(
    query: string,
    params?: unknown[],
    options?: { rowMode?: 'array' | 'object' },
  ): Promise<{
    rows: T[];
    affectedRows?: number;
    fields: { name: string; dataTypeID: number }[];
  }>;
  /** A transaction; it begins in the database with its first statement. */
  begin(): PGliteInstanceTransaction;
  /** Runs `callback` in a transaction (begin), committed when it returns, rolled back when it throws. */
  transaction<T>(callback: (tx: PGliteInstanceTransaction) => Promise<T>): Promise<T>;
  dumpDataDir(compression?: 'none' | 'gzip' | 'auto'): Promise<Blob>;
}

export interface PGliteInstanceTransaction {
  query: PGliteInstance['query'];
  /**
   * The transaction's last statement: the transaction commits with it, in the same crossing to
   * the database's thread; as its only statement it runs by itself, without begin and commit. A
   * statement after it is rejected.
   */
  queryAndCommit: PGliteInstance['query'];
  /** Rolls back what ran so far; the transaction ends with it. */
  rollback(): Promise<void>;
  /** Commits what ran; nothing to do when nothing ran, or its last statement committed it. */
  commit(): Promise<void>;
}

export interface CreatePGliteOptions {
  /** A directory for a file database; absent for an in-memory one. */
  dataDir?: string;
  /** A dump (`dumpDataDir`) to start from instead of an empty cluster. */
  loadDataDir?: Blob;
}
