/**
 * Statements over rows, run together. A write whose transaction runs nothing but the statement it
 * sends at its commit (at-commit.ts: a create's insert with its stored response) sends that
 * statement by itself, without begin and commit. It goes at once when no other is under way; the
 * statements that come meanwhile go when that one is done, those of one text as one statement over
 * all their rows (DataLoader, as card-reads.ts batches reads): one round trip, one statement to
 * start and one commit to flush for several writes, which is most of what a create costs the
 * database, and nothing added to a lone write's wait
 * (server/decisions/0006-postgresql-joins-concurrent-create-requests-into-one-statement.md).
 *
 * The queries write such a statement with insertRows: the rows to insert into a table, and what
 * the insert does with each. Its text takes the rows as one JSON array and does for each row what
 * it would do for that row alone, so several such statements with the same text and the same other
 * parameters are the one statement over the rows of all of them. One statement commits or fails as
 * a whole, so when the statement of several fails (one write's key was taken, say), each runs again
 * by itself, and each write gets its own response: the others commit, the one that cannot fails
 * as it would have alone.
 */
import DataLoader from 'dataloader';
import { CompiledQuery, type Kysely } from 'kysely';
import type { DatabaseKind } from './open.js';
import type { Insertable } from 'kysely';
import type { DB } from './schema.js';

/** The indexes of a statement's parameters that are rows (JSON arrays of row objects). */
const rowParameters = new WeakMap<CompiledQuery, readonly number[]>();

/**
 * Marks `compiled` as a statement over the rows of its parameters at `rows` (rowsParameter):
 * run over the rows of several statements of its text put together, it does what each does over
 * its own. Its other parameters must be texts, numbers or null: statements share a run only when
 * those are equal.
 */
export function overRows(compiled: CompiledQuery, rows: readonly number[]): CompiledQuery {
  rowParameters.set(compiled, rows);
  return compiled;
}

/** The row parameters of a statement over rows (overRows); undefined for any other statement. */
export function rowParametersOf(compiled: CompiledQuery): readonly number[] | undefined {
  return rowParameters.get(compiled);
}

/**
 * Rows as a statement over rows takes them: a JSON array, which the statement reads with
 * json_populate_recordset. A text holding half of a surrogate pair (which JSON escapes as \udXXX,
 * and PostgreSQL's JSON rejects) goes as the drivers encode a bound text: that half becomes U+FFFD.
 */
export function rowsParameter(rows: readonly object[]): string {
  const json = JSON.stringify(rows);
  // Such a half is written \udXXX; a text that merely holds a backslash and "ud" only costs the check.
  return json.includes('\\ud') ? JSON.stringify(rows, wellFormed) : json;
}

const wellFormed = (_key: string, value: unknown): unknown =>
  typeof value === 'string' ? value.toWellFormed() : value;

/** What an insert of rows does besides inserting each row, `row` naming the row in its clauses. */
export interface InsertRowsClauses {
  /** A condition on `row`: a row for which it is false is not inserted. */
  readonly where?: string;
  /** What follows `on conflict`: the conflict target and its action. */
  readonly onConflict?: string;
  /** The values of `$2`, `$3`… in the clauses: texts, numbers or null. */
  readonly parameters?: readonly (string | number | null)[];
}

/**
 * Inserts `rows` into `table`, the first row's columns for every row, with `clauses`: a statement
 * over rows, whose text is the same for every insert of that table, those columns and those
 * clauses (one prepared statement), and which the inserts of other writes of the moment may join.
 * Run it, or hand it to an AtCommit, as any compiled query.
 */
export function insertRows<T extends keyof DB & string>(
  table: T,
  rows: readonly [Insertable<DB[T]>, ...Insertable<DB[T]>[]],
  clauses: InsertRowsClauses = {},
): CompiledQuery {
  const columns = Object.keys(rows[0]);
  const key = `${table}\u0000${columns.join(',')}\u0000${clauses.where ?? ''}\u0000${clauses.onConflict ?? ''}`;
  let text = insertTexts.get(key);
  if (text === undefined) {
    for (const name of [table, ...columns])
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`insertRows: ${JSON.stringify(name)} is not a column name`);
    const list = columns.join(', ');
    text =
      `insert into ${table} (${list}) select ${columns.map((column) => `row.${column}`).join(', ')}` +
      ` from json_populate_recordset(null::${table}, $1::json) as row` +
      (clauses.where === undefined ? '' : ` where ${clauses.where}`) +
      (clauses.onConflict === undefined ? '' : ` on conflict ${clauses.onConflict}`);
    // The texts are a handful of statement shapes; a bound keeps it so if a caller's are not.
    if (insertTexts.size >= 100) insertTexts.clear();
    insertTexts.set(key, text);
  }
  return overRows(CompiledQuery.raw(text, [rowsParameter(rows), ...(clauses.parameters ?? [])]), [0]);
}

/** Insert texts by table, columns and clauses (insertRows). */
const insertTexts = new Map<string, string>();

/**
 * Where statements over rows run together (server/main.ts, and the proofs' app as it). Not on the
 * embedded database, which runs one statement at a time
 * (server/decisions/0007-the-embedded-database-runs-its-writes-one-at-a-time.md).
 */
export const WRITES_TOGETHER: Readonly<Record<DatabaseKind, boolean>> = { postgres: true, pglite: false };

/** Runs a statement over rows by itself, outside any transaction: with others of its text when batching is on. */
export type RunOverRows = (statement: CompiledQuery) => Promise<void>;

/** The most statements one run takes; more in one turn go as several runs. */
export const MAX_STATEMENTS_TOGETHER = 50;

/**
 * Runs statements over rows on `db`, those that come while one runs together, unless `together` is
 * false (the benchmark's measure of what it buys): then each is its own statement.
 */
export function createRowsTogether(db: Kysely<DB>, { together }: { readonly together: boolean }): RunOverRows {
  const alone = async (statement: CompiledQuery): Promise<void> => {
    await db.executeQuery(statement);
  };
  if (!together) return alone;
  // A failed statement's error arrives before the database has ended its transaction, which holds
  // the advisory locks of every key it stored until then: a statement after it on the same
  // connection runs only once that transaction has ended, so the rows run again alone find no key
  // still locked by the statement that failed.
  const joinedAlone = (statement: CompiledQuery): Promise<void> =>
    db.connection().execute(async (connection) => {
      try {
        await connection.executeQuery(statement);
      } catch (error) {
        await connection.executeQuery(CompiledQuery.raw('select 1'));
        throw error;
      }
    });
  let running = 0;
  const waiting: (() => void)[] = [];
  const loader = new DataLoader<CompiledQuery, undefined>(
    async (statements) => {
      running += 1;
      try {
        return await runAll(statements, alone, joinedAlone);
      } finally {
        running -= 1;
        waiting.shift()?.();
      }
    },
    {
      cache: false,
      maxBatchSize: MAX_STATEMENTS_TOGETHER,
      // A statement goes at once when no run is under way, so a lone write waits for nothing; those
      // that come while one is under way wait for its end and go together, as a database's group
      // commit does. (Once the turn's synchronous code has run: DataLoader adds the first statement
      // to the run after asking when to send it.)
      batchScheduleFn: (send) => {
        if (running === 0) queueMicrotask(send);
        else waiting.push(send);
      },
    },
  );
  return async (statement) => {
    if (rowParametersOf(statement) === undefined)
      throw new Error('Only a statement over rows (overRows) runs with others.');
    await loader.load(statement);
  };
}

/** One turn's statements: each group of one text and the same other parameters as one statement. */
async function runAll(
  statements: readonly CompiledQuery[],
  alone: (statement: CompiledQuery) => Promise<void>,
  joinedAlone: (statement: CompiledQuery) => Promise<void>,
): Promise<(Error | undefined)[]> {
  const groups = new Map<string, number[]>();
  statements.forEach((statement, place) => {
    const rows = rowParametersOf(statement) ?? [];
    const shared = statement.parameters.filter((_, index) => !rows.includes(index));
    const key = `${statement.sql}\u0000${JSON.stringify(shared)}`;
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [place]);
    else group.push(place);
  });
  const outcomes: (Error | undefined)[] = statements.map(() => undefined);
  const outcomeOf = (place: number, run: Promise<void>): Promise<void> =>
    run.then(
      () => void (outcomes[place] = undefined),
      (error: unknown) => void (outcomes[place] = error instanceof Error ? error : new Error(String(error))),
    );
  await Promise.all(
    [...groups.values()].map(async (places) => {
      const members = places.map((place) => statements[place] as CompiledQuery);
      if (members.length === 1) return outcomeOf(places[0] as number, alone(members[0] as CompiledQuery));
      try {
        await joinedAlone(joined(members));
      } catch {
        // One statement fails as a whole: each runs again by itself, for its own response.
        await Promise.all(places.map((place, index) => outcomeOf(place, alone(members[index] as CompiledQuery))));
      }
    }),
  );
  return outcomes;
}

/** Statements of one text and the same other parameters as one statement over all their rows. */
function joined(members: readonly CompiledQuery[]): CompiledQuery {
  const first = members[0] as CompiledQuery;
  const rows = rowParametersOf(first) ?? [];
  const parameters = first.parameters.map((value, index) => {
    if (!rows.includes(index)) return value;
    // Each is a JSON array of at least one row: their elements, in one array.
    const elements = members
      .map((member) => (member.parameters[index] as string).slice(1, -1))
      .filter((inner) => inner.trim() !== '');
    return `[${elements.join(',')}]`;
  });
  return overRows(CompiledQuery.raw(first.sql, parameters), rows);
}
