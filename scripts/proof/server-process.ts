import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';

// The real server as a separate process (`node --import tsx server/main.ts`), as `npm start`
// runs it: for the several-instance and crash proofs, which need processes that can be killed.

/** The project root (this file is scripts/proof/server-process.ts). */
export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SERVER_MAIN = fileURLToPath(new URL('../../server/main.ts', import.meta.url));
/** An absolute loader URL, so that the server may run with another working directory (PGlite under a scratch dir). */
const TSX_LOADER = pathToFileURL(createRequire(SERVER_MAIN).resolve('tsx')).href;

export interface ServerProcessOptions {
  /** A label for messages. */
  readonly name: string;
  readonly port: number;
  /** Working directory: the embedded database lives in `<cwd>/.data/pglite`. Default: the project root. */
  readonly cwd?: string;
  /** DATABASE_URL; undefined runs the embedded database. */
  readonly databaseUrl: string | undefined;
  readonly paymentNetworkDelayMs: number;
  /** WEB_CONCURRENCY: node:cluster workers (PostgreSQL only). Default 1. */
  readonly workers?: number;
}

/** What the process said in its JSON log lines (pino), reduced to what the proofs check. */
export interface ServerLogSummary {
  /** Pids that logged `listening` (one per worker). */
  readonly listening: Set<number>;
  /** Transfers each pid reports as settled (`transfers settled`, `settled: n`). */
  readonly settledByPid: Map<number, number>;
  /** Requests each pid logged. */
  readonly requestsByPid: Map<number, number>;
  /** Log lines at level error (50) or above, kept for the failure message. */
  readonly errors: string[];
  /** The last lines of stdout and stderr, for the failure message. */
  readonly tail: string[];
}

export interface ServerProcess {
  readonly name: string;
  readonly port: number;
  readonly baseUrl: string;
  readonly pid: number;
  readonly log: ServerLogSummary;
  /** Resolves when every worker logged `listening`; rejects if the process exits first. */
  readonly ready: Promise<void>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends `signal` to the process group (a cluster's primary and its workers) and waits for the exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** SIGTERM (graceful shutdown), then SIGKILL if it takes longer than `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  // A failed test must not leave servers behind: kill the groups this process started.
  for (const child of running) {
    if (child.pid !== undefined) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
});

/** A TCP port that was free a moment ago (the server binds it right after). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

const TAIL_LINES = 40;

export function startServerProcess(options: ServerProcessOptions): ServerProcess {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env['DATABASE_URL'];
  delete env['WEB_CONCURRENCY'];
  Object.assign(env, {
    PORT: String(options.port),
    LOG_LEVEL: 'info',
    PAYMENT_NETWORK_DELAY_MS: String(options.paymentNetworkDelayMs),
    WEB_CONCURRENCY: String(options.workers ?? 1),
    ...(options.databaseUrl !== undefined ? { DATABASE_URL: options.databaseUrl } : {}),
  });
  // Its own process group (detached), so that a kill reaches a cluster's workers too.
  const child = spawn(process.execPath, ['--import', TSX_LOADER, SERVER_MAIN], {
    cwd: options.cwd ?? PROJECT_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  if (child.pid === undefined) throw new Error(`${options.name}: the server process did not start`);
  const pid = child.pid;
  running.add(child);

  const log: ServerLogSummary = {
    listening: new Set(),
    settledByPid: new Map(),
    requestsByPid: new Map(),
    errors: [],
    tail: [],
  };
  const workers = options.workers ?? 1;
  let markReady: () => void = () => {};
  let failReady: (error: Error) => void = () => {};
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    failReady = reject;
  });
  // A kill before start-up ends is routine in the crash proof: nobody need await `ready` then.
  ready.catch(() => {});

  const remember = (line: string): void => {
    log.tail.push(line.length > 500 ? `${line.slice(0, 500)}…` : line);
    if (log.tail.length > TAIL_LINES) log.tail.shift();
  };
  const onLine = (line: string): void => {
    if (line.trim() === '') return;
    remember(line);
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      return; // the demo banner or another plain line
    }
    if (typeof entry !== 'object' || entry === null) return;
    const { msg, pid: linePid, level, settled } = entry as Record<string, unknown>;
    if (typeof linePid !== 'number') return;
    if (typeof level === 'number' && level >= 50) log.errors.push(line);
    if (msg === 'listening') {
      log.listening.add(linePid);
      if (log.listening.size >= workers) markReady();
    } else if (msg === 'transfers settled' && typeof settled === 'number') {
      log.settledByPid.set(linePid, (log.settledByPid.get(linePid) ?? 0) + settled);
    } else if (msg === 'request') {
      log.requestsByPid.set(linePid, (log.requestsByPid.get(linePid) ?? 0) + 1);
    }
  };
  const lines = (stream: NodeJS.ReadableStream, handle: (line: string) => void): void => {
    let pending = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      pending += chunk;
      let newline = pending.indexOf('\n');
      while (newline >= 0) {
        handle(pending.slice(0, newline));
        pending = pending.slice(newline + 1);
        newline = pending.indexOf('\n');
      }
    });
  };
  lines(child.stdout as NodeJS.ReadableStream, onLine);
  lines(child.stderr as NodeJS.ReadableStream, (line) => {
    if (line.trim() !== '') remember(`[stderr] ${line}`);
  });

  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      running.delete(child);
      failReady(
        new Error(
          `${options.name} exited (code ${code}, signal ${signal}) before it was ready:\n${log.tail.join('\n')}`,
        ),
      );
      resolve({ code, signal });
    });
  });

  const signalGroup = (signal: NodeJS.Signals): void => {
    try {
      process.kill(-pid, signal);
    } catch {
      // the group is gone already
    }
  };

  return {
    name: options.name,
    port: options.port,
    baseUrl: `http://127.0.0.1:${options.port}`,
    pid,
    log,
    ready,
    exited,
    async kill(signal = 'SIGKILL') {
      signalGroup(signal);
      await exited;
      // A cluster's workers may outlive the primary by a moment; make sure none is left.
      if (signal === 'SIGKILL') signalGroup('SIGKILL');
    },
    async stop(graceMs = 15_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      // The primary forwards SIGTERM to its workers (server/main.ts).
      child.kill('SIGTERM');
      const timer = setTimeout(() => signalGroup('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
      signalGroup('SIGKILL');
    },
  };
}
