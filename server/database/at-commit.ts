import {
  CompiledQuery,
  sql,
  type Compilable,
  type Expression,
  type Kysely,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RawBuilder,
  type RootOperationNode,
  type SqlBool,
  type Transaction,
  type UnknownRow,
} from 'kysely';
import { lastOfItsTransaction } from './last-statement.js';
import { overRows, rowParametersOf, type RunOverRows } from './rows-together.js';
import type { DB } from './schema.js';

// A write's statement sent with its commit.
//
// A row that every write of a kind needs (an organization's balance) is held from the statement
// that takes it until the commit. Taken in the middle of a transaction, it is held across each
// round trip that follows and across each wait of the server's event loop between them: under
// load, writes queue behind one another for as long as the busy server takes to come back to each
// of them. Taken by the transaction's last statement (last-statement.ts), followed at once by the
// commit, it is held for as long as the statement and the commit take, and no wait of the server's
// between them.
//
// A statement whose result the write's response does not need (a create's insert) goes there too,
// and a statement the write must end with (its stored response, idempotency.ts) travels inside it
// (withAlongside): a write whose handler runs nothing else is then a transaction of one statement,
// which the connection runs without begin and commit (embedded/dialect.ts, postgres/dialect.ts).
//
// The write responds before that statement runs, as if it does its part. So the statement must fail
// when it cannot (conditionHolds): then nothing of the write commits, and the write runs once more
// with its statements in place (inTransactionWithStatementAtCommit).

/**
 * Defers a write's last statement to its commit. A write gets one on its first run, and none on
 * its run after a ConditionNotMet: then it runs every statement in place. The statement may have a
 * WITH of its own; what must go with it (the stored response) joins it as another CTE
 * (withAlongside), so it must not change the rows that does.
 */
export type AtCommit = (statement: Compilable<unknown>) => void;

/** The SQLSTATE of condition_holds (migrations/001-baseline.ts); its detail is the condition. */
const CONDITION_NOT_MET = 'PK002';

/** A statement sent at the commit could not do its part: its transaction is rolled back. */
export class ConditionNotMet extends Error {
  constructor(readonly condition: string) {
    super(`condition not met: ${condition}`);
    this.name = 'ConditionNotMet';
  }
}

/** `held`, in SQL; when it is false the statement fails and executeAtCommit throws ConditionNotMet(condition). */
export function conditionHolds(held: Expression<SqlBool>, condition: string): RawBuilder<boolean> {
  return sql<boolean>`condition_holds(${held}, ${condition})`;
}

/** Runs a deferred statement as the last of its transaction: the transaction commits with it. */
export async function executeAtCommit(
  tx: Transaction<DB>,
  statement: Compilable<unknown> | CompiledQuery,
): Promise<void> {
  const compiled = 'compile' in statement ? statement.compile() : statement;
  await tx.executeQuery(lastOfItsTransaction(compiled)).catch(throwConditionNotMet);
}

/** A failed deferred statement's error, as ConditionNotMet when its condition did not hold. */
function throwConditionNotMet(error: unknown): never {
  const e = error as { code?: unknown; detail?: unknown };
  if (e.code === CONDITION_NOT_MET && typeof e.detail === 'string') throw new ConditionNotMet(e.detail);
  throw error;
}

/** The name of the alongside statement's CTE in a deferred statement: unlikely to be one of its own. */
const ALONGSIDE = 'statement_alongside_at_commit';

/** Leading WITH of a statement (and RECURSIVE, which allows recursion and changes nothing else). */
const LEADING_WITH = /^\s*with\s+(?:recursive\s+)?/i;

/**
 * One statement that runs `deferred` and, as a data-modifying CTE of it, `alongside`: PostgreSQL runs
 * every data-modifying statement in WITH to completion, whether or not the statement reads it,
 * and when either fails the statement fails as a whole. `alongside` must be a data-modifying
 * statement with no WITH of its own and no `$` in its text but its parameters' placeholders,
 * which are renumbered after `deferred`'s (whose text is left as it is, and opens with its WITH
 * when it has one, as Kysely compiles it).
 */
export function withAlongside(deferred: CompiledQuery, alongside: CompiledQuery): CompiledQuery {
  // By both texts, as they are: a key built of the two would be a new string to hash every time.
  let byAlongside = combinedTexts.get(deferred.sql);
  let text = byAlongside?.get(alongside.sql);
  if (text === undefined) {
    const offset = deferred.parameters.length;
    const renumbered = alongside.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
    const cte = `${ALONGSIDE} as (${renumbered})`;
    const leading = LEADING_WITH.exec(deferred.sql);
    text =
      leading === null
        ? `with ${cte} ${deferred.sql}`
        : `${leading[0]}${cte}, ${deferred.sql.slice(leading[0].length)}`;
    // The texts are a handful of statement shapes; a bound keeps it so if a caller's are not.
    if (combinedTexts.size >= MAX_COMBINED_TEXTS || (byAlongside?.size ?? 0) >= MAX_COMBINED_TEXTS)
      combinedTexts.clear();
    byAlongside = combinedTexts.get(deferred.sql) ?? new Map<string, string>();
    byAlongside.set(alongside.sql, text);
    combinedTexts.set(deferred.sql, byAlongside);
  }
  const combined = CompiledQuery.raw(text, [...deferred.parameters, ...alongside.parameters]);
  // Over rows when both are: then the statement's rows are both parts' (rows-together.ts).
  const deferredRows = rowParametersOf(deferred);
  const alongsideRows = rowParametersOf(alongside);
  if (deferredRows === undefined || alongsideRows === undefined) return combined;
  return overRows(combined, [...deferredRows, ...alongsideRows.map((index) => index + deferred.parameters.length)]);
}

/** Combined texts by the deferred statement's text, then the alongside's (withAlongside), at most MAX_COMBINED_TEXTS of each. */
const combinedTexts = new Map<string, Map<string, string>>();
const MAX_COMBINED_TEXTS = 100;

/** Counts the statements that ran through the Kysely instances it is added to (withPlugin). */
class StatementCount implements KyselyPlugin {
  ran = 0;

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return args.node;
  }

  // Kysely hands every statement's result here, a raw one's (executeQuery) too.
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    this.ran += 1;
    return args.result;
  }
}

/**
 * Runs `work` in a new transaction with an AtCommit, then the deferred statement with the commit,
 * with `alongside`'s statement inside it when given (withAlongside); when `work` deferred nothing,
 * that statement is the statement sent with the commit. When the deferred statement's
 * condition does not hold, everything is rolled back, and `work` runs once more in a new
 * transaction, without an AtCommit.
 *
 * Given `runOverRows`, a transaction in which `work` ran no statement and whose statement at the
 * commit is over rows (insertRows in rows-together.ts) ends empty, and that statement runs by
 * itself through `runOverRows`, with those of other writes of the moment.
 */
export async function inTransactionWithStatementAtCommit<T>(
  db: Kysely<DB>,
  work: (tx: Transaction<DB>, atCommit: AtCommit | undefined) => Promise<T>,
  alongside?: (result: T) => CompiledQuery,
  runOverRows?: RunOverRows,
): Promise<T> {
  const attempt = async (deferring: boolean): Promise<T> => {
    let byItself: CompiledQuery | undefined;
    const result = await db.transaction().execute(async (tx) => {
      let last: Compilable<unknown> | undefined;
      const atCommit: AtCommit | undefined = deferring
        ? (statement) => {
            if (last !== undefined) throw new Error('a transaction sends one statement at its commit');
            last = statement;
          }
        : undefined;
      const count = runOverRows === undefined ? undefined : new StatementCount();
      const result = await work(count === undefined ? tx : tx.withPlugin(count), atCommit);
      const also = alongside?.(result);
      const final =
        last === undefined ? also : also === undefined ? last.compile() : withAlongside(last.compile(), also);
      if (final === undefined) return result;
      if (count?.ran === 0 && rowParametersOf(final) !== undefined) byItself = final;
      else await executeAtCommit(tx, final);
      return result;
    });
    if (byItself !== undefined && runOverRows !== undefined) await runOverRows(byItself).catch(throwConditionNotMet);
    return result;
  };
  try {
    return await attempt(true);
  } catch (error) {
    if (!(error instanceof ConditionNotMet)) throw error;
    return attempt(false);
  }
}
