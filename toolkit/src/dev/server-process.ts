/**
 * The server of `npm run dev`: one child process at a time runs the project's server (x-dev's
 * `server`, dev/server-entry.ts), listening on a port of its own choosing; the dev process
 * forwards requests to it. A restart stops the old server (its graceful shutdown closes whatever
 * it holds open, such as a database directory under a lock) before the new one starts, so a
 * server that keeps its data on disk carries it over.
 *
 * The next server process is always started ahead, standing by with the packages loaded, so that
 * a restart pays only for the project's own modules, the database and the first request.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { ServerEntryCommand } from './server-entry.js';

// This module's own extension: .ts run from source (the package's tests), .js built.
const ENTRY = fileURLToPath(new URL(`./server-entry${path.extname(fileURLToPath(import.meta.url))}`, import.meta.url));
const TSX_LOADER = import.meta.resolve('tsx');
/** main.ts gives its graceful shutdown 10 s; after that a SIGKILL. */
const STOP_GRACE_MS = 12_000;
/** A server that neither listens nor exits within this is stopped (a first start creates the database: some 10 s). */
const START_TIMEOUT_MS = 120_000;

/** Where a request goes: the port of the server responding, or why none does. */
export type Target = { readonly port: number } | { readonly unavailable: string };

export type RestartResult =
  | { readonly ok: true; readonly port: number; readonly milliseconds: number }
  | { readonly ok: false; readonly message: string; readonly milliseconds: number };

export interface ServerSupervisorOptions {
  readonly root: string;
  /** The server's entry point, absolute (x-dev's `server`). */
  readonly entry: string;
  /** Plays the part of ./.data/ for `npm start`: the database is `<dataDir>/pglite`. */
  readonly dataDir: string;
  /** The port the dev process listens at, put in place of the server's own where it prints its address. */
  readonly publicPort: () => number;
  /** A line the server printed. */
  readonly print: (line: string) => void;
  /** A line of the dev process's own. */
  readonly say: (line: string) => void;
}

export interface ServerSupervisor {
  /** Where requests go now; while a server starts, waits for it. */
  target(): Promise<Target>;
  /** A server listens and has not exited. */
  responding(): boolean;
  /** Stops the server that runs, if any, and starts one on the code as it is now. */
  restart(): Promise<RestartResult>;
  /** Stops the server and the one standing by. */
  stop(): Promise<void>;
}

interface ServerChild {
  readonly process: ChildProcess;
  /** It logged `listening` and has not exited. */
  responding(): boolean;
  /** The port, once it logged `listening`; rejects with its last lines when it exits first. */
  readonly listening: Promise<number>;
  readonly exited: Promise<void>;
  start(): boolean;
  stop(): Promise<void>;
}

/**
 * main.ts keeps the embedded database in `./.data/pglite`, relative to its working directory. For
 * `<dir>/.data` that is `<dir>`; for any other folder, a directory inside it whose `.data` links
 * back to it.
 */
export function serverWorkingDir(dataDir: string): string {
  if (path.basename(dataDir) === '.data') {
    mkdirSync(dataDir, { recursive: true });
    return path.dirname(dataDir);
  }
  const run = path.join(dataDir, '.dev-run');
  const link = path.join(run, '.data');
  mkdirSync(run, { recursive: true });
  if (!existsSync(link)) symlinkSync('..', link, 'dir');
  else if (!lstatSync(link).isSymbolicLink())
    throw new Error(`${link} should link to ${dataDir}; remove it and start again`);
  return run;
}

/** LOG_LEVEL for the server: at least `info`, whose `listening` line says it is ready. */
function serverLogLevel(): string {
  const level = process.env['LOG_LEVEL'];
  return level === 'debug' || level === 'trace' ? level : 'info';
}

export function createServerSupervisor(options: ServerSupervisorOptions): ServerSupervisor {
  const cwd = serverWorkingDir(options.dataDir);
  /** main.ts names its files `.data/…`, from its working directory: shown where they are. */
  const dataShown = path.join(path.relative(process.cwd(), cwd), '.data') === '.data' ? '.data' : options.dataDir;
  const env: NodeJS.ProcessEnv = { ...process.env };
  // The dev loop runs the embedded database, whose data it keeps across restarts.
  delete env['DATABASE_URL'];
  delete env['WEB_CONCURRENCY'];
  Object.assign(env, {
    PORT: '0',
    LOG_LEVEL: serverLogLevel(),
    TSX_TSCONFIG_PATH: path.join(options.root, 'tsconfig.json'),
  });

  function spawnChild(): ServerChild {
    const child = spawn(
      process.execPath,
      ['--enable-source-maps', '--import', TSX_LOADER, ENTRY, '--root', options.root, '--entry', options.entry],
      {
        cwd,
        env,
        stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      },
    );
    let port: number | undefined;
    let exited = false;
    let markListening: (port: number) => void = () => {};
    let failListening: (error: Error) => void = () => {};
    const listening = new Promise<number>((resolve, reject) => {
      markListening = resolve;
      failListening = reject;
    });
    listening.catch(() => {});

    createInterface({ input: child.stdout as NodeJS.ReadableStream, crlfDelay: Infinity }).on('line', (raw) => {
      const line =
        port === undefined || raw.startsWith('{')
          ? raw
          : raw
              .replaceAll(`http://localhost:${port}`, `http://localhost:${options.publicPort()}`)
              .replaceAll(' .data/', ` ${dataShown}/`);
      options.print(line);
      if (port !== undefined || !line.startsWith('{')) return;
      try {
        const entry = JSON.parse(line) as { msg?: unknown; port?: unknown };
        if (entry.msg === 'listening' && typeof entry.port === 'number') {
          port = entry.port;
          markListening(entry.port);
        }
      } catch {
        // not a log line
      }
    });
    createInterface({ input: child.stderr as NodeJS.ReadableStream, crlfDelay: Infinity }).on('line', options.print);
    child.on('error', (error) => options.say(`cannot run the server: ${error.message}`));
    const exitedPromise = new Promise<void>((resolve) => {
      child.once('exit', (code, signal) => {
        exited = true;
        failListening(new Error(`the server exited (${signal ?? `code ${code}`}) before it listened`));
        resolve();
      });
    });
    return {
      process: child,
      listening,
      exited: exitedPromise,
      responding: () => port !== undefined && !exited,
      start() {
        if (exited || !child.connected) return false;
        // The address clients reach it at is the dev process's: the server writes and prints that one.
        child.send({
          type: 'start',
          publicUrl: `http://localhost:${options.publicPort()}`,
        } satisfies ServerEntryCommand);
        return true;
      },
      async stop() {
        if (exited) return;
        child.kill('SIGTERM');
        const force = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
        await exitedPromise;
        clearTimeout(force);
      },
    };
  }

  let current: ServerChild | undefined;
  let standby: ServerChild | undefined = spawnChild();
  let stopped = false;
  let target: Promise<Target> = Promise.resolve({ unavailable: 'the server has not started yet' });

  /** A server that exits while it should be responding is reported, and requests are told why. */
  const watchExit = (child: ServerChild): void => {
    void child.exited.then(() => {
      if (current !== child || stopped) return;
      current = undefined;
      const message = `the server exited (code ${child.process.exitCode ?? child.process.signalCode}); save a file to start it again`;
      options.say(message);
      target = Promise.resolve({ unavailable: message });
    });
  };

  return {
    target: () => target,
    responding: () => current?.responding() === true,
    async restart() {
      const started = performance.now();
      let settle: (target: Target) => void = () => {};
      target = new Promise((resolve) => (settle = resolve));
      const old = current;
      current = undefined;
      // The old server must be gone, and the database's lock with it, before the new one opens it.
      if (old !== undefined) await old.stop();
      if (stopped) {
        settle({ unavailable: 'the dev server is stopping' });
        return { ok: false, message: 'stopped', milliseconds: performance.now() - started };
      }
      let next = standby;
      standby = undefined;
      if (next === undefined || !next.start()) {
        void next?.stop();
        next = spawnChild();
        next.start();
      }
      current = next;
      watchExit(next);
      const starting = next;
      const timeout = setTimeout(() => {
        options.say(`the server neither listened nor exited in ${START_TIMEOUT_MS / 1000} s: stopping it`);
        void starting.stop();
      }, START_TIMEOUT_MS);
      try {
        const port = await next.listening;
        settle({ port });
        return { ok: true, port, milliseconds: performance.now() - started };
      } catch (error) {
        if (current === next) current = undefined;
        const message = `${error instanceof Error ? error.message : String(error)}; save a file to try again`;
        settle({ unavailable: message });
        return { ok: false, message, milliseconds: performance.now() - started };
      } finally {
        clearTimeout(timeout);
        if (!stopped) standby = spawnChild();
      }
    },
    async stop() {
      stopped = true;
      target = Promise.resolve({ unavailable: 'the dev server is stopping' });
      await Promise.all([current?.stop(), standby?.stop()]);
    },
  };
}
