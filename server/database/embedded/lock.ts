import { randomUUID } from 'node:crypto';
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';

// PGlite takes no lock on its data directory: a second process opens it without error and
// one of the two loses its writes. The embedded database therefore belongs to one process,
// marked by a lock file created with O_EXCL beside the directory (README, "Design").

/** The content of a lock file: who holds it, since when, and a token unique to this holder. */
interface LockContent {
  pid: number;
  startedAt: number;
  token: string;
}

export class DatabaseLockedError extends Error {
  readonly lockPath: string;
  /** The holder's pid; undefined while the holder is still writing the file. */
  readonly pid: number | undefined;

  constructor(lockPath: string, pid: number | undefined) {
    const holder = pid === undefined ? 'another process' : `the server (pid ${pid})`;
    super(
      `The embedded database is in use by another process (${pid === undefined ? '' : `pid ${pid}, `}` +
        `lock file ${lockPath}). It belongs to one process at a time: stop ${holder} before running ` +
        `onboard, or set DATABASE_URL to use PostgreSQL, which any number of processes can share.`,
    );
    this.name = 'DatabaseLockedError';
    this.lockPath = lockPath;
    this.pid = pid;
  }
}

export interface DataDirLock {
  readonly path: string;
  /** Removes the lock file if it is still ours. Idempotent. */
  release(): void;
}

/** The lock file of a data directory: `<dataDir>.lock`, beside it. */
export function lockPathFor(dataDir: string): string {
  return `${dataDir.replace(/[\\/]+$/, '')}.lock`;
}

/**
 * Takes the exclusive lock at `lockPath`. Throws DatabaseLockedError when a live process holds
 * it (this one included: a second open in the same process would corrupt the data just the
 * same); takes over a lock whose process is gone (a crash or kill -9 leaves it behind).
 * The lock is released by `release()` and, best effort, when the process exits.
 */
export function acquireDataDirLock(lockPath: string): DataDirLock {
  const content: LockContent = { pid: process.pid, startedAt: Date.now(), token: randomUUID() };
  // Two attempts: the second follows the removal of a stale lock. Another process may win the
  // race for the freed name; it then holds the lock and we report it.
  for (let attempt = 0; attempt < 2; attempt += 1) {
    if (tryCreate(lockPath, content)) {
      return holdLock(lockPath, content.token);
    }
    const holder = readLock(lockPath);
    if (holder === undefined) {
      // Vanished (free: try again), being written by its new holder this very moment (held),
      // or garbage left behind (stale).
      const age = ageMs(lockPath);
      if (age !== undefined && age < FRESH_LOCK_MS) throw new DatabaseLockedError(lockPath, undefined);
      removeIfUnchanged(lockPath, undefined);
      continue;
    }
    if (isAlive(holder.pid)) {
      throw new DatabaseLockedError(lockPath, holder.pid);
    }
    removeIfUnchanged(lockPath, holder.token);
  }
  throw new DatabaseLockedError(lockPath, readLock(lockPath)?.pid);
}

/**
 * 1 s: a lock file is written right after it is created, so an unreadable one younger than
 * this may be a holder mid-write; an older one is garbage.
 */
const FRESH_LOCK_MS = 1_000;

function ageMs(lockPath: string): number | undefined {
  try {
    return Date.now() - statSync(lockPath).mtimeMs;
  } catch (error) {
    if (isErrnoException(error) && error.code === 'ENOENT') return undefined;
    throw error;
  }
}

function tryCreate(lockPath: string, content: LockContent): boolean {
  let fd: number;
  try {
    fd = openSync(lockPath, 'wx', 0o644);
  } catch (error) {
    if (isErrnoException(error) && error.code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, `${JSON.stringify(content)}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

function readLock(lockPath: string): LockContent | undefined {
  let text: string;
  try {
    text = readFileSync(lockPath, 'utf8');
  } catch (error) {
    if (isErrnoException(error) && error.code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (
      typeof parsed === 'object' &&
      parsed !== null &&
      'pid' in parsed &&
      'startedAt' in parsed &&
      'token' in parsed &&
      Number.isSafeInteger(parsed.pid) &&
      typeof parsed.startedAt === 'number' &&
      typeof parsed.token === 'string'
    ) {
      return { pid: Number(parsed.pid), startedAt: parsed.startedAt, token: parsed.token };
    }
  } catch {
    // not JSON: treated like a missing holder below
  }
  return undefined;
}

/**
 * Deletes the lock file only if it still holds `token` (undefined: unreadable content), so
 * that we never delete a lock another process took in the meantime. A narrow race remains
 * between the read and the unlink; it needs two processes taking over the same stale lock
 * within microseconds, which start-up and onboarding never do.
 */
function removeIfUnchanged(lockPath: string, token: string | undefined): void {
  const current = readLock(lockPath);
  if (current?.token !== token) return;
  try {
    unlinkSync(lockPath);
  } catch (error) {
    if (!(isErrnoException(error) && error.code === 'ENOENT')) throw error;
  }
}

function holdLock(lockPath: string, token: string): DataDirLock {
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    process.removeListener('exit', release);
    try {
      removeIfUnchanged(lockPath, token);
    } catch {
      // best effort: a lock left behind is stale once this process is gone
    }
  };
  process.once('exit', release);
  return { path: lockPath, release };
}

/** Signal 0 checks existence: ESRCH means gone; EPERM means alive under another user. */
function isAlive(pid: number): boolean {
  if (pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return isErrnoException(error) && error.code === 'EPERM';
  }
}

function isErrnoException(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && 'code' in error;
}
