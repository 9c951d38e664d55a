/**
 * Child processes of the benchmark: the service (as `npm start` runs it: the build's
 * .build/server/main.js), the two baselines, and the onboarding CLI. TypeScript files run as
 * `node --import tsx <file>` so that the pid we measure is the process doing the work (the `tsx`
 * binary would put a wrapper process in between).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

/** The project root (scripts/bench/ is two levels down). */
export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** tsx's loader as an absolute URL: children may run in a temporary working directory. */
const TSX_LOADER = import.meta.resolve('tsx');
const TSCONFIG = fileURLToPath(new URL('../../tsconfig.json', import.meta.url));

/** The last lines a child printed, shown when it fails. */
const OUTPUT_LINES_KEPT = 40;

export interface NodeChild {
  readonly pid: number;
  readonly process: ChildProcess;
  /** The last lines of stdout and stderr, for error messages. */
  output(): string;
  /** Resolves with the exit code (or signal name) when the process ends. */
  readonly exited: Promise<number | string>;
}

export interface StartNodeOptions {
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly nodeFlags?: readonly string[];
  /** Keep stdout whole (for a CLI's result) instead of only its last lines. */
  readonly captureStdout?: boolean;
  /** Told each line the child writes to stderr. */
  readonly onStderrLine?: (line: string) => void;
}

export function startNode(
  file: string,
  args: readonly string[],
  options: StartNodeOptions = {},
): NodeChild & { stdout(): string } {
  const loader = file.endsWith('.ts') ? ['--import', TSX_LOADER] : [];
  const child = spawn(process.execPath, [...(options.nodeFlags ?? []), ...loader, file, ...args], {
    cwd: options.cwd ?? PROJECT_ROOT,
    env: { ...(options.env ?? process.env), TSX_TSCONFIG_PATH: TSCONFIG },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error(`could not start ${file}`);
  const lines: string[] = [];
  let stdout = '';
  const keep = (text: string): void => {
    for (const line of text.split('\n')) {
      if (line === '') continue;
      lines.push(line);
      if (lines.length > OUTPUT_LINES_KEPT) lines.shift();
    }
  };
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    if (options.captureStdout === true) stdout += chunk;
    else keep(chunk);
  });
  let partial = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    keep(chunk);
    if (options.onStderrLine === undefined) return;
    const parts = (partial + chunk).split('\n');
    partial = parts.pop() ?? '';
    for (const line of parts) options.onStderrLine(line);
  });
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'));
  });
  return { pid: child.pid, process: child, output: () => lines.join('\n'), stdout: () => stdout, exited };
}

/** A TCP port free right now on 127.0.0.1 (the kernel picks it). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Polls `url` until it responds with 200, the child exits, or `timeoutMs` passes. */
export async function waitUntilReady(child: NodeChild, url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exitedWith: number | string | undefined;
  void child.exited.then((code) => {
    exitedWith = code;
  });
  for (;;) {
    if (exitedWith !== undefined) {
      throw new Error(`the process exited (${exitedWith}) before ${url} responded:\n${child.output()}`);
    }
    try {
      const response = await fetch(url);
      await response.arrayBuffer();
      if (response.status === 200) return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline)
      throw new Error(`${url} did not respond with 200 within ${timeoutMs / 1000} s:\n${child.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** SIGTERM, then SIGKILL if the process is still there after `graceMs`. */
export async function stopChild(child: NodeChild, graceMs = 15_000): Promise<number | string> {
  if (child.process.exitCode !== null || child.process.signalCode !== null) return child.exited;
  child.process.kill('SIGTERM');
  const timer = setTimeout(() => child.process.kill('SIGKILL'), graceMs);
  try {
    return await child.exited;
  } finally {
    clearTimeout(timer);
  }
}

export interface RunningServer {
  readonly name: string;
  readonly child: NodeChild;
  readonly baseUrl: string;
  stop(): Promise<void>;
}

export interface ServiceOptions {
  readonly cwd: string;
  /** DATABASE_URL, or undefined for the embedded database under <cwd>/.data/. */
  readonly databaseUrl: string | undefined;
  readonly cpuProfDir?: string | undefined;
  readonly nodeFlags?: readonly string[];
  readonly logLevel: string;
  /** Variables set for the service on top of the benchmark's (a mechanism turned off: mechanisms.ts). */
  readonly env?: Readonly<Record<string, string>>;
}

/** `npm start`'s command for the server (package.json): its variables, node, node's flags, the compiled server. */
const START_COMMAND = /((?:\b[A-Z_][A-Z0-9_]*=\S+ )*)node((?: --[^ ]+)*) \.build\/server\/main\.js/;

function startCommand(): RegExpExecArray {
  const manifest = JSON.parse(readFileSync(`${PROJECT_ROOT}package.json`, 'utf8')) as {
    scripts: Record<string, string>;
  };
  const match = START_COMMAND.exec(manifest.scripts['start'] ?? '');
  if (match === null)
    throw new Error("package.json's start script does not run [NAME=VALUE …] node … .build/server/main.js");
  return match;
}

/**
 * The node flags of `npm start` (package.json), so that the service is measured as it runs:
 * `--max-semi-space-size=8` among them, which keeps the young generation to 24 MB (V8's default
 * lets it grow to 48 MB, some 25 MB more RSS under load for no measurable speed here), and
 * `--max-old-space-size=1024` (README, "Memory").
 */
export function startScriptNodeFlags(): string[] {
  return (startCommand()[2] ?? '')
    .trim()
    .split(' ')
    .filter((flag) => flag !== '');
}

/**
 * The variables `npm start` sets for the server (package.json), as the shell would set them in
 * `environment`: `NAME=value`, or `NAME=${NAME:-value}` (the value only when `environment` has
 * none). `MALLOC_ARENA_MAX=2` among them: with glibc's default of up to eight malloc arenas a core,
 * memory freed in one thread's arena is not reused by the others, and the server's peak RSS under
 * load rose past 200 MB (the README's Design section, "Memory").
 */
export function startScriptEnvironment(environment: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const assigned: Record<string, string> = {};
  for (const assignment of (startCommand()[1] ?? '')
    .trim()
    .split(' ')
    .filter((part) => part !== '')) {
    const [, name = '', value = ''] = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(assignment) ?? [];
    const fallback = /^\$\{([A-Z_][A-Z0-9_]*):-(.*)\}$/.exec(value);
    if (fallback === null) assigned[name] = value;
    else if (fallback[1] !== name)
      throw new Error(`package.json's start script sets ${name} from another variable, ${fallback[1] ?? ''}`);
    else assigned[name] = environment[name] ?? fallback[2] ?? '';
  }
  return assigned;
}

/** `npm run build`: the JavaScript `npm start` runs, compiled from server/ and generated/. */
export function buildService(): void {
  const result = spawnSync('npm', ['run', '-s', 'build'], { cwd: PROJECT_ROOT, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`npm run build failed:\n${result.stdout}${result.stderr}`);
}

/** EMBEDDED_DATABASE's value that lets a production server run on the embedded database (server/main.ts). */
const EMBEDDED_DATABASE_ACCEPTED = 'accept-no-fsync';

/** Starts the built server (buildService first) in production mode (response validation off) and waits for /readyz. */
export async function startService(options: ServiceOptions): Promise<RunningServer> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...startScriptEnvironment(),
    PORT: String(port),
    NODE_ENV: 'production',
    LOG_LEVEL: options.logLevel,
    ...options.env,
  };
  delete env['DATABASE_URL'];
  delete env['WEB_CONCURRENCY'];
  if (options.databaseUrl !== undefined) env['DATABASE_URL'] = options.databaseUrl;
  // In production the service rejects the embedded database, which flushes nothing to disk, unless
  // told to accept that; the benchmark's database is thrown away at the end.
  else env['EMBEDDED_DATABASE'] ??= EMBEDDED_DATABASE_ACCEPTED;
  const nodeFlags = [
    ...startScriptNodeFlags(),
    ...(options.nodeFlags ?? []),
    ...(options.cpuProfDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfDir}`]),
  ];
  const child = startNode(`${PROJECT_ROOT}.build/server/main.js`, [], { cwd: options.cwd, env, nodeFlags });
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    // Opening a large embedded database takes a while; PostgreSQL is up in a second.
    await waitUntilReady(child, `${baseUrl}/readyz`, 120_000);
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  return {
    name: 'service',
    child,
    baseUrl,
    async stop() {
      const code = await stopChild(child);
      if (code !== 0) throw new Error(`the service exited with ${code}:\n${child.output()}`);
    },
  };
}

export type BaselineKind = 'http' | 'express' | 'express-validated';

/** Starts scripts/bench/baseline-<kind>.ts serving GET /v1/bank with the JSON in `bodyFile`. */
export async function startBaseline(kind: BaselineKind, bodyFile: string): Promise<RunningServer> {
  const port = await freePort();
  const child = startNode(`${PROJECT_ROOT}scripts/bench/baseline-${kind}.ts`, [String(port), bodyFile]);
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(child, `${baseUrl}/v1/bank`, 30_000);
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  return {
    name: `baseline-${kind}`,
    child,
    baseUrl,
    async stop() {
      await stopChild(child);
    },
  };
}
