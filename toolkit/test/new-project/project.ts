/**
 * A project made by `contract-first new`, as its owner works in it: installed with `npm ci`, tested
 * with `npm test`, started with `npm start`. Every project is made in a folder of its own outside
 * this repository, and depends on this package packed (once for all the projects of a test file);
 * every command runs in the project's folder, with nothing of this repository but the npm cache its
 * own install filled.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { newApi, type NewApiResult } from '../../src/new-api.js';
import { packToolkit } from '../../src/new-api/pack.js';

const run = promisify(execFile);

/**
 * The environment of a project's commands: none of this repository's npm or vitest settings leak
 * in, and its contract check (test/check.test.ts) sends 8 generated cases an operation besides its
 * edge requests, unless CHECK_CASES says otherwise.
 */
export function projectEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(npm_|VITEST|NODE_OPTIONS$|INIT_CWD$|TSX_)/i.test(key)) continue;
    env[key] = value;
  }
  return { CHECK_CASES: '8', ...env, NO_COLOR: '1', FORCE_COLOR: '0', DATABASE_URL: '' };
}

export interface CommandResult {
  readonly code: number;
  readonly output: string;
}

export interface Project {
  readonly root: string;
  readonly created: NewApiResult;
  /** What new-api printed. */
  readonly printed: readonly string[];
  /** Runs `npm <args>` in the project; never throws for a failing command. */
  npm(args: readonly string[], timeoutMs?: number): Promise<CommandResult>;
  write(file: string, content: string): Promise<void>;
  read(file: string): Promise<string>;
  remove(): Promise<void>;
}

let packed: Promise<string> | undefined;
/** This package, packed once: the file every project of this process depends on. */
export function packedToolkit(): Promise<string> {
  packed ??= mkdtemp(path.join(os.tmpdir(), 'contract-first-packed-')).then((folder) => packToolkit(folder));
  return packed;
}

export async function createProject(input: string, prefix: string): Promise<Project> {
  const parent = await mkdtemp(path.join(os.tmpdir(), `new-project-${prefix}-`));
  const root = path.join(parent, prefix);
  const printed: string[] = [];
  const created = await newApi(
    { input, out: root, toolkit: await packedToolkit() },
    { say: (line) => printed.push(line), warn: (line) => printed.push(line) },
  );
  return {
    root,
    created,
    printed,
    async npm(args, timeoutMs = 180_000) {
      try {
        const { stdout, stderr } = await run('npm', [...args], {
          cwd: root,
          env: projectEnv(),
          timeout: timeoutMs,
          maxBuffer: 64 * 1024 * 1024,
        });
        return { code: 0, output: `${stdout}${stderr}` };
      } catch (error) {
        const failed = error as { code?: unknown; stdout?: string; stderr?: string };
        return {
          code: typeof failed.code === 'number' ? failed.code : 1,
          output: `${failed.stdout ?? ''}${failed.stderr ?? ''}`,
        };
      }
    },
    write: (file, content) => writeFile(path.join(root, file), content),
    read: (file) => readFile(path.join(root, file), 'utf8'),
    remove: () => rm(parent, { recursive: true, force: true }),
  };
}

export interface Started {
  readonly baseUrl: string;
  readonly lines: readonly string[];
  /** SIGTERM; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** `npm start` on a free port; resolves once the server logs `listening`. */
export async function startProject(project: Project, timeoutMs = 60_000): Promise<Started> {
  const child: ChildProcess = spawn('npm', ['start', '--silent'], {
    cwd: project.root,
    env: { ...projectEnv(), PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const lines: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', (line) => lines.push(line));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`npm start did not listen in ${timeoutMs} ms:\n${lines.join('\n')}`)),
      timeoutMs,
    );
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      lines.push(line);
      try {
        const entry = JSON.parse(line) as { msg?: unknown; port?: unknown };
        if (entry.msg === 'listening' && typeof entry.port === 'number') {
          clearTimeout(timer);
          resolve(entry.port);
        }
      } catch {
        // not a log line
      }
    });
    void exited.then((code) =>
      reject(new Error(`npm start exited (${code}) before it listened:\n${lines.join('\n')}`)),
    );
  });
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    lines,
    async stop() {
      // npm runs the server as its child: the signal goes to the whole group.
      process.kill(-(child.pid as number), 'SIGTERM');
      return exited;
    },
  };
}
