/**
 * The subset of PGlite this store uses (the instance Kysely's dialect needs, plus dumps), as the
 * database thread (pglite-thread.ts) offers it. Declared here so that no other file of the store
 * depends on the package's own types.
 */
export interface PGliteInstance {
  close(): Promise<void>;
  readonly closed: boolean;
  readonly ready: boolean;
  readonly waitReady: Promise<void>;
  query<T>(query: string, params?: unknown[], options?: { rowMode?: 'array' | 'object' }): Promise<{
    rows: T[];
    affectedRows?: number;
    fields: { name: string; dataTypeID: number }[];
  }>;
  transaction<T>(callback: (tx: PGliteInstanceTransaction) => Promise<T>): Promise<T>;
  dumpDataDir(compression?: 'none' | 'gzip' | 'auto'): Promise<Blob>;
}

export interface PGliteInstanceTransaction {
  query: PGliteInstance['query'];
  rollback(): Promise<void>;
}

export interface CreatePGliteOptions {
  /** A directory for a file database; absent for an in-memory one. */
  dataDir?: string;
  /** A dump (`dumpDataDir`) to start from instead of an empty cluster. */
  loadDataDir?: Blob;
}
