/**
 * pgbench on the statements a spread read sends, for the "statements alone" figure on PostgreSQL:
 * how many of them the database serves a second at the benchmark's concurrency, with no Node in
 * front of it.
 *
 * The statements are not written here: the store's own functions build them (findCardWithUsage,
 * listTransactions), run against a Kysely that only records what it is asked to send, with
 * stand-in values. Each stand-in then becomes what pgbench sends instead: a card picked at random
 * from the run's cards, a random organization, a random keyset position in the ledger. The other
 * values are bound as they were (`\set` for numbers, `-D` for texts), and `-M prepared` prepares
 * each statement once per connection as the service does (server/database/open.ts).
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';
import { cairoPeriods } from '../../server/domain/available-balance.js';
import { findCardWithUsage } from '../../server/store/cards.js';
import type { DB } from '../../server/database/schema.js';
import { listTransactions } from '../../server/store/transactions.js';
import { storeFiltersOf, type PageFilterSet } from './traffic.js';

export interface CapturedStatement {
  readonly sql: string;
  readonly parameters: readonly unknown[];
}

/** The statements `run` sends, in order, without a database: the driver responds to every one with no rows. */
export async function captureStatements(run: (db: Kysely<DB>) => Promise<unknown>): Promise<CapturedStatement[]> {
  const captured: CapturedStatement[] = [];
  const db = new Kysely<DB>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (inner) => new PostgresIntrospector(inner),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
    log: (event) => {
      captured.push({ sql: event.query.sql, parameters: event.query.parameters });
    },
  });
  try {
    await run(db);
  } catch {
    // A read that expects a row throws on the empty response, after its statement was recorded.
  } finally {
    await db.destroy();
  }
  return captured;
}

/** A pgbench script file and the `-D NAME=VALUE` texts it uses. */
export interface PgbenchScript {
  readonly text: string;
  readonly defines: Readonly<Record<string, string>>;
}

/**
 * The statement as a pgbench script: `head` (its `\set` lines) first, then the statement with each
 * `$n` replaced by what `substitute` gives for its value, or else by a pgbench variable holding the
 * value (named `<prefix>p<n>`, set with `\set` for a whole number and with `-D` for a text), which
 * `-M prepared` sends as a bound parameter, as the service does.
 */
export function pgbenchScript(
  statement: CapturedStatement,
  options: {
    readonly prefix: string;
    readonly head: readonly string[];
    readonly substitute: (value: unknown) => string | undefined;
  },
): PgbenchScript {
  const lines = [...options.head];
  const defines: Record<string, string> = {};
  const expressions = statement.parameters.map((value, index) => {
    const substitute = options.substitute(value);
    if (substitute !== undefined) return substitute;
    const name = `${options.prefix}p${index + 1}`;
    if (typeof value === 'number' && Number.isSafeInteger(value)) lines.push(`\\set ${name} ${value}`);
    else if (typeof value === 'string') defines[name] = value;
    else throw new Error(`pgbenchScript: parameter $${index + 1} is ${typeof value}, which the script cannot bind`);
    return `:${name}`;
  });
  const sql = statement.sql
    .trim()
    .replace(/\$(\d+)/g, (text, digits: string) => expressions[Number(digits) - 1] ?? text);
  return { text: `${lines.join('\n')}\n${sql};\n`, defines };
}

/** A text[] literal of ids (letters, digits and underscores only: nothing to quote). */
export function textArray(values: readonly string[]): string {
  for (const value of values)
    if (!/^[A-Za-z0-9_]+$/.test(value)) throw new Error(`textArray: ${JSON.stringify(value)} is not an id`);
  return `'{${values.join(',')}}'::text[]`;
}

// Stand-ins: values no real request has, replaced in the script by what pgbench picks.
const SOME_ORGANIZATION = 'org_pgbench_organization';
const SOME_CARD = 'crd_pgbench_card';
/** A keyset position's date: a whole number no filter or page size is. */
const SOME_SORT = 4_242_424_242_424;
const SOME_ID = 'txn_pgbench_position';
/** Sorts after every ledger id, so a position at a date starts the page before that date's records. */
const AFTER_EVERY_ID = 'txn_zzzzzzzzzzzzzzzzzzzzzzzzzzzzzz';

/** getCard's statement, each execution a card of the run's at random (`:n`), with its organization. */
export async function cardStatementScript(
  cards: readonly { organizationId: string; cardId: string }[],
  now: number,
): Promise<PgbenchScript> {
  const statements = await captureStatements((db) =>
    findCardWithUsage(db, SOME_ORGANIZATION, SOME_CARD, cairoPeriods(now)),
  );
  if (statements.length !== 1 || statements[0] === undefined)
    throw new Error(`getCard sends ${statements.length} statements; the script expects 1`);
  const organizations = textArray(cards.map((card) => card.organizationId));
  const ids = textArray(cards.map((card) => card.cardId));
  return pgbenchScript(statements[0], {
    prefix: 'card_',
    head: [`\\set n random(1, ${cards.length})`],
    substitute: (value) =>
      value === SOME_ORGANIZATION ? `(${organizations})[:n]` : value === SOME_CARD ? `(${ids})[:n]` : undefined,
  });
}

/**
 * listTransactions' statement for a page after the first under the filter set, each execution in
 * an organization at random (`:o`) from a keyset position at a random date of its ledger (`:d`,
 * from `ledgerStart`, or the filter's fromDate, to `now`): a page of a walk somewhere in it.
 */
export async function paginationStatementScript(
  filterSet: PageFilterSet,
  index: number,
  options: { organizations: readonly string[]; now: number; ledgerStart: number; limit: number },
): Promise<PgbenchScript> {
  const filters = storeFiltersOf(filterSet, options.now);
  const statements = await captureStatements((db) =>
    listTransactions(db, {
      organizationId: SOME_ORGANIZATION,
      filters,
      after: { sort: SOME_SORT, id: SOME_ID },
      take: options.limit + 1,
    }),
  );
  const page = statements.at(-1);
  if (page === undefined) throw new Error(`listTransactions (${filterSet.name}) sends no statement`);
  const organizations = textArray(options.organizations);
  const from = Math.max(options.ledgerStart, filters.fromDate ?? options.ledgerStart);
  return pgbenchScript(page, {
    prefix: `walk${index}_`,
    head: [`\\set o random(1, ${options.organizations.length})`, `\\set d random(${from}, ${options.now})`],
    substitute: (value) =>
      value === SOME_ORGANIZATION
        ? `(${organizations})[:o]`
        : value === SOME_SORT
          ? ':d'
          : value === SOME_ID
            ? `'${AFTER_EVERY_ID}'`
            : undefined,
  });
}

/** pgbench: PGBENCH, else on PATH, else where Debian's PostgreSQL packages put it; undefined when there is none. */
export function findPgbench(environment: NodeJS.ProcessEnv = process.env): string | undefined {
  const given = environment['PGBENCH'];
  if (given !== undefined && given !== '') return given;
  for (const dir of (environment['PATH'] ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, 'pgbench');
    if (dir !== '' && existsSync(candidate)) return candidate;
  }
  const debian = '/usr/lib/postgresql';
  if (!existsSync(debian)) return undefined;
  const versions = readdirSync(debian).sort((a, b) => Number(b) - Number(a));
  for (const version of versions) {
    const candidate = path.join(debian, version, 'bin', 'pgbench');
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

export interface PgbenchResult {
  readonly transactions: number;
  /** Scripts run a second, each one statement: the statements alone. */
  readonly tps: number;
  readonly latencyAverageMs: number;
}

/** The figures of pgbench's report. */
export function parsePgbenchOutput(output: string): PgbenchResult {
  const number = (pattern: RegExp, what: string): number => {
    const match = pattern.exec(output);
    if (match?.[1] === undefined) throw new Error(`pgbench printed no ${what}:\n${output}`);
    return Number(match[1]);
  };
  return {
    transactions: number(/number of transactions actually processed: (\d+)/, 'transaction count'),
    tps: number(/tps = ([0-9.]+) \(without initial connection time\)/, 'tps'),
    latencyAverageMs: number(/latency average = ([0-9.]+) ms/, 'average latency'),
  };
}

/** Runs the scripts (equally weighted) with `clients` connections for `durationS` against the database at `url`. */
export async function runPgbench(
  pgbench: string,
  url: string,
  scripts: readonly PgbenchScript[],
  options: { clients: number; threads: number; durationS: number; dir: string },
): Promise<PgbenchResult> {
  const files: string[] = [];
  const defines: string[] = [];
  for (const [index, script] of scripts.entries()) {
    const file = path.join(options.dir, `script-${index}.sql`);
    await writeFile(file, script.text);
    files.push('-f', file);
    for (const [name, value] of Object.entries(script.defines)) defines.push('-D', `${name}=${value}`);
  }
  const args = [
    '-n',
    '-M',
    'prepared',
    '-c',
    String(options.clients),
    '-j',
    String(options.threads),
    '-T',
    String(options.durationS),
    ...defines,
    ...files,
    url,
  ];
  const child = spawn(pgbench, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0) throw new Error(`pgbench exited with ${code}:\n${output.slice(-2000)}`);
  return parsePgbenchOutput(output);
}
