import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { databaseFromPGlite, openDatabase, startEmbeddedDatabase } from '../../server/database/open.js';
import type { Database, DatabaseKind } from '../../server/database/open.js';
import type { DatabaseBounds } from '../../server/database/bounds.js';
import { migrateToLatest, migrations } from '../../server/database/migrate.js';

// Fresh databases for tests.
// - PostgreSQL (when DATABASE_URL is set): a new database `pps_test_<random>` on that server,
//   dropped on close.
// - PGlite: starting one runs initdb (seconds, hundreds of MB), so a
//   migrated template is built once, dumped, and every test database starts from the dump
//   (`loadDataDir`, under a second). The dump is cached in memory and in a file under the
//   system temp directory, keyed by the migrations, so that the other vitest workers and later
//   runs skip initdb too.

export type TestDatabase = Database & { url?: string };

export interface TestDatabaseOptions {
  /** false: an empty database (no migration applied), for testing the migrations. Default true. */
  migrated?: boolean;
  /** The bounds of its calls (server/database/bounds.ts), as the server sets them; none by default. */
  bounds?: DatabaseBounds;
}

/** The kinds a store suite runs on: PGlite always, PostgreSQL when DATABASE_URL is set. */
export function databaseKinds(): DatabaseKind[] {
  return process.env['DATABASE_URL'] ? ['pglite', 'postgres'] : ['pglite'];
}

/** A fresh database: PostgreSQL when DATABASE_URL is set, PGlite otherwise. */
export function createTestDatabase(options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  return createTestDatabaseOf(process.env['DATABASE_URL'] ? 'postgres' : 'pglite', options);
}

export async function createTestDatabaseOf(
  kind: DatabaseKind,
  options: TestDatabaseOptions = {},
): Promise<TestDatabase> {
  const migrated = options.migrated ?? true;
  return kind === 'postgres'
    ? createPostgresDatabase(migrated, options.bounds)
    : createPGliteDatabase(migrated, options.bounds);
}

async function createPostgresDatabase(migrated: boolean, bounds: DatabaseBounds | undefined): Promise<TestDatabase> {
  const serverUrl = process.env['DATABASE_URL'];
  if (!serverUrl) throw new Error('DATABASE_URL is not set: PostgreSQL test databases need a server');
  const name = `pps_test_${randomBytes(8).toString('hex')}`;
  await maintenance(serverUrl, `create database ${name}`);
  const url = withDatabase(serverUrl, name);
  const database = await openDatabase({ url, maxConnections: 20, ...(bounds === undefined ? {} : { bounds }) });
  try {
    if (migrated) await migrateToLatest(database.db);
  } catch (error) {
    await database.close();
    await maintenance(serverUrl, `drop database if exists ${name} with (force)`);
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    db: database.db,
    kind: 'postgres',
    url,
    close: () =>
      (closing ??= (async () => {
        await database.close();
        await maintenance(serverUrl, `drop database if exists ${name} with (force)`);
      })()),
  };
}

/** Runs one statement on the server's maintenance database (CREATE/DROP DATABASE). */
async function maintenance(serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

function withDatabase(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function createPGliteDatabase(migrated: boolean, bounds: DatabaseBounds | undefined): Promise<TestDatabase> {
  const pglite = await startEmbeddedDatabase({
    loadDataDir: await pgliteTemplate({ migrated }),
    ...(bounds === undefined ? {} : { bounds }),
  });
  return databaseFromPGlite(pglite);
}

/**
 * The dump of a fresh embedded database (migrated unless told otherwise), for tests that open a
 * file database: `openDatabase({ dataDir, loadDataDir: await pgliteTemplate() })`.
 */
export async function pgliteTemplate(options: TestDatabaseOptions = {}): Promise<Blob> {
  const templates = await pgliteTemplates();
  return (options.migrated ?? true) ? templates.migrated : templates.empty;
}

interface Templates {
  empty: Blob;
  migrated: Blob;
}

let templatesPromise: Promise<Templates> | undefined;

function pgliteTemplates(): Promise<Templates> {
  templatesPromise ??= loadOrBuildTemplates().catch((error: unknown) => {
    templatesPromise = undefined;
    throw error;
  });
  return templatesPromise;
}

async function loadOrBuildTemplates(): Promise<Templates> {
  const directory = join(tmpdir(), 'pps-pglite-templates');
  const key = templateKey();
  const emptyFile = join(directory, `${key}-empty.tar.gz`);
  const migratedFile = join(directory, `${key}-migrated.tar.gz`);
  try {
    return { empty: new Blob([readFileSync(emptyFile)]), migrated: new Blob([readFileSync(migratedFile)]) };
  } catch {
    // not built yet (or half written by a crashed run): build it below
  }
  const pglite = await startEmbeddedDatabase();
  const database = databaseFromPGlite(pglite);
  try {
    const empty = await pglite.dumpDataDir('gzip');
    await migrateToLatest(database.db);
    const migrated = await pglite.dumpDataDir('gzip');
    mkdirSync(directory, { recursive: true });
    // Write then rename: another worker never reads a half-written file.
    await writeAtomically(emptyFile, empty);
    await writeAtomically(migratedFile, migrated);
    removeOtherTemplates(directory, key);
    return { empty, migrated };
  } finally {
    await database.close();
  }
}

/** Templates of older migrations are never used again; a few MB each, so they go. */
function removeOtherTemplates(directory: string, key: string): void {
  for (const name of readdirSync(directory)) {
    if (!name.startsWith(key)) rmSync(join(directory, name), { force: true });
  }
}

async function writeAtomically(file: string, blob: Blob): Promise<void> {
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(temporary, Buffer.from(await blob.arrayBuffer()));
  renameSync(temporary, file);
}

/** Changes whenever a migration or the PGlite version changes, so a stale template is never used. */
function templateKey(): string {
  const hash = createHash('sha256');
  hash.update(pgliteVersion());
  for (const [name, migration] of Object.entries(migrations).sort(([a], [b]) => a.localeCompare(b))) {
    hash.update(`\0${name}\0${migration.up.toString()}\0${migration.down?.toString() ?? ''}`);
  }
  return hash.digest('hex').slice(0, 16);
}

function pgliteVersion(): string {
  try {
    const path = join(process.cwd(), 'node_modules', '@electric-sql', 'pglite', 'package.json');
    const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (typeof parsed === 'object' && parsed !== null && 'version' in parsed && typeof parsed.version === 'string') {
      return parsed.version;
    }
  } catch {
    // fall through
  }
  return 'unknown';
}
