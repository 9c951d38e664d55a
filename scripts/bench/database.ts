/**
 * A fresh database for each benchmark service: a new PostgreSQL database `pps_bench_<ts>[_<tag>]`
 * on the server DATABASE_URL names (dropped at the end), or an embedded database in a new
 * temporary directory (removed at the end). Onboarding runs as its own process before the
 * service starts: the embedded database belongs to one process at a time (README, "Design").
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { PROJECT_ROOT, startNode } from './processes.js';

export type DatabaseKind = 'postgres' | 'pglite';

export interface BenchDatabase {
  readonly kind: DatabaseKind;
  /** The PostgreSQL database name, or the embedded database's directory. */
  readonly name: string;
  /** DATABASE_URL for the service and onboarding; undefined selects the embedded database under `cwd`. */
  readonly url: string | undefined;
  /** Working directory of the service and onboarding (the embedded database lives in its .data/). */
  readonly cwd: string;
  /** Drops the database or removes the directory. Idempotent. */
  dispose(): Promise<void>;
}

function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export async function createBenchDatabase(serverUrl: string | undefined, name: string): Promise<BenchDatabase> {
  if (serverUrl === undefined) {
    const dir = await mkdtemp(path.join(tmpdir(), `${name}-`));
    let disposed = false;
    return {
      kind: 'pglite',
      name: dir,
      url: undefined,
      cwd: dir,
      async dispose() {
        if (disposed) return;
        disposed = true;
        await rm(dir, { recursive: true, force: true });
      },
    };
  }
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${quoteIdentifier(name)}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  let disposed = false;
  return {
    kind: 'postgres',
    name,
    url: url.toString(),
    cwd: PROJECT_ROOT,
    async dispose() {
      if (disposed) return;
      disposed = true;
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      try {
        // WITH (FORCE), PostgreSQL 13+: a pool connection the service left behind must not block it.
        await client.query(`drop database if exists ${quoteIdentifier(name)} with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}

/**
 * A copy of an embedded database's files (taken while no process has it open) in a new temporary
 * directory: a second service runs on the copy beside the first, which the one-process-per-database
 * rule of the embedded database would not allow on the same files. PostgreSQL needs no copy.
 */
export async function copyEmbeddedDatabase(database: BenchDatabase): Promise<BenchDatabase> {
  if (database.kind !== 'pglite') return database;
  const copy = await createBenchDatabase(undefined, `${path.basename(database.name)}-copy`);
  // The lock file belongs to the process that held the files; the copy starts unlocked.
  await cp(path.join(database.cwd, '.data'), path.join(copy.cwd, '.data'), {
    recursive: true,
    filter: (source) => !source.endsWith('.lock'),
  });
  return copy;
}

export interface Onboarded {
  readonly organizationId: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly privateKeyPem: string;
  readonly scopes: readonly string[];
}

function isOnboarded(value: unknown): value is Onboarded {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return ['organizationId', 'clientId', 'clientSecret', 'privateKeyPem'].every(
    (key) => typeof record[key] === 'string',
  );
}

/**
 * `npm run onboard -- --name Bench --demo --transactions N --balance CENTS --json` against the
 * database; `progress` hears its stderr lines and, every 15 s, how long it has been running.
 */
export async function onboardBench(
  database: BenchDatabase,
  options: { transactions: number; balanceCents: number; progress: (line: string) => void },
): Promise<Onboarded> {
  const args = [
    '--name',
    'Bench',
    '--demo',
    '--transactions',
    String(options.transactions),
    '--balance',
    String(options.balanceCents),
    '--json',
  ];
  const parsed = await runDatabaseCli(
    database,
    `${PROJECT_ROOT}scripts/operations/onboard.ts`,
    args,
    'onboard',
    options.progress,
  );
  if (!isOnboarded(parsed)) throw new Error(`onboarding printed unexpected JSON: ${JSON.stringify(parsed)}`);
  return parsed;
}

/**
 * The organizations of the spread runs (seed-organizations.ts): `seeds` rounds of sandbox cards
 * for `organizationId` (one it already has), and `more` organizations onboarded with as many and
 * `transactions` bulk ledger records each. Returns the new organizations' credentials.
 */
export async function seedOrganizations(
  database: BenchDatabase,
  options: {
    organizationId: string;
    more: number;
    seeds: number;
    transactions: number;
    balanceCents: number;
    progress: (line: string) => void;
  },
): Promise<Onboarded[]> {
  const args = [
    '--organization',
    options.organizationId,
    '--more',
    String(options.more),
    '--seeds',
    String(options.seeds),
    '--transactions',
    String(options.transactions),
    '--balance',
    String(options.balanceCents),
  ];
  const parsed = await runDatabaseCli(
    database,
    `${PROJECT_ROOT}scripts/bench/seed-organizations.ts`,
    args,
    'seed',
    options.progress,
  );
  if (!Array.isArray(parsed) || !parsed.every(isOnboarded))
    throw new Error(`seeding printed unexpected JSON: ${JSON.stringify(parsed)}`);
  return parsed;
}

/**
 * Runs a CLI of the project against the database (its own process: the embedded database belongs
 * to one process at a time) and responds with the JSON it prints on stdout; `progress` hears its stderr
 * lines and, every 15 s, how long it has been running.
 */
export async function runDatabaseCli(
  database: BenchDatabase,
  file: string,
  args: readonly string[],
  label: string,
  progress: (line: string) => void,
): Promise<unknown> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env['DATABASE_URL'];
  if (database.url !== undefined) env['DATABASE_URL'] = database.url;
  const started = Date.now();
  const child = startNode(file, args, {
    cwd: database.cwd,
    env,
    captureStdout: true,
    onStderrLine: (line) => {
      if (line.trim() !== '') progress(`  ${label}: ${line}`);
    },
  });
  const ticker = setInterval(() => {
    progress(`  ${label}: running (${Math.round((Date.now() - started) / 1000)} s)`);
  }, 15_000);
  let code: number | string;
  try {
    code = await child.exited;
  } finally {
    clearInterval(ticker);
  }
  if (code !== 0) throw new Error(`${label} failed (${code}):\n${child.output()}`);
  try {
    return JSON.parse(child.stdout());
  } catch {
    throw new Error(`${label} printed no JSON:\n${child.stdout()}\n${child.output()}`);
  }
}
