/**
 * The service's speed mechanisms, and how `npm run bench -- --without NAME` turns each one off to
 * measure what it earns: the chosen runs again, in the same invocation, against a service started
 * without it on the same database.
 *
 * Each is turned off by a variable the service reads at start (server/main.ts).
 */
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { DatabaseKind } from './database.js';

export const MECHANISM_NAMES = [
  'none',
  'last-statement',
  'pipelining',
  'pglite-prepared',
  'database-thread',
  'card-read-batching',
  'write-batching',
] as const;
export type MechanismName = (typeof MECHANISM_NAMES)[number];

export interface Mechanism {
  readonly name: MechanismName;
  /** What it is, in a few words. */
  readonly what: string;
  /** The databases it works on; on the others there is nothing to turn off. */
  readonly databases: readonly DatabaseKind[];
  /** How the benchmark starts the service without it. */
  readonly off: { readonly env: Readonly<Record<string, string>> };
}

export const MECHANISMS: Readonly<Record<MechanismName, Mechanism>> = {
  none: {
    name: 'none',
    what: 'nothing: the same service started again, to show how far two runs of one configuration differ',
    databases: ['postgres', 'pglite'],
    off: { env: {} },
  },
  'last-statement': {
    name: 'last-statement',
    what: "a transaction's last statement committing it at once, and run by itself, without begin and commit, when it is the only one (server/database/last-statement.ts)",
    databases: ['postgres', 'pglite'],
    off: { env: { DATABASE_LAST_STATEMENT: 'off' } },
  },
  pipelining: {
    name: 'pipelining',
    what: "a transaction's begin sent with its first statement and its commit with its last, through pg's pipeline mode (server/database/postgres/dialect.ts)",
    databases: ['postgres'],
    off: { env: { DATABASE_PIPELINE: 'off' } },
  },
  'pglite-prepared': {
    name: 'pglite-prepared',
    what: 'statement texts kept prepared in the embedded database (patches/@electric-sql+pglite+0.5.16+001+prepared-statements.patch)',
    databases: ['pglite'],
    off: { env: { PGLITE_PREPARED_STATEMENTS: 'off' } },
  },
  'card-read-batching': {
    name: 'card-read-batching',
    what: 'the card reads of one turn of the event loop read in one statement (server/store/card-reads.ts)',
    databases: ['postgres', 'pglite'],
    off: { env: { CARD_READ_BATCHING: 'off' } },
  },
  'write-batching': {
    name: 'write-batching',
    what: "a create's statement (its insert and stored response) run with those of the creates that come while one is under way, as one statement (server/database/rows-together.ts)",
    databases: ['postgres'],
    off: { env: { WRITE_BATCHING: 'off' } },
  },
  'database-thread': {
    name: 'database-thread',
    what: 'the embedded database in a thread of its own (server/database/embedded/thread.ts)',
    databases: ['pglite'],
    off: { env: { PGLITE_THREAD: 'off' } },
  },
};

/** How the benchmark turns the mechanism off, in words for the report. */
export function describeOff(mechanism: Mechanism): string {
  const entries = Object.entries(mechanism.off.env);
  return entries.length === 0 ? 'the same settings' : entries.map(([name, value]) => `${name}=${value}`).join(' ');
}

/**
 * The variables among `names` that no file of the compiled server mentions: a service that never
 * reads a variable runs the same with or without it, and the comparison would measure nothing.
 */
export async function variablesNotRead(buildDir: string, names: readonly string[]): Promise<string[]> {
  const files = (await readdir(buildDir, { recursive: true })).filter((file) => file.endsWith('.js'));
  const missing = new Set(names);
  for (const file of files) {
    if (missing.size === 0) break;
    const text = await readFile(path.join(buildDir, file), 'utf8');
    for (const name of [...missing]) if (text.includes(name)) missing.delete(name);
  }
  return [...missing];
}
