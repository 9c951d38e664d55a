import type { CompiledQuery } from 'kysely';

/**
 * The statements that end their transaction (at-commit.ts): the database commits the transaction
 * right after one, and a transaction whose only statement it is runs it by itself, without begin
 * and commit. The two dialects (embedded/dialect.ts, postgres/dialect.ts) ask here of each compiled
 * statement Kysely hands their connections: the mark travels with the statement object, not in its
 * text.
 */
const lastStatements = new WeakSet<CompiledQuery>();

/** Marks `compiled` as the last statement of the transaction it runs in. */
export function lastOfItsTransaction(compiled: CompiledQuery): CompiledQuery {
  lastStatements.add(compiled);
  return compiled;
}

export function isLastOfItsTransaction(compiled: CompiledQuery): boolean {
  return lastStatements.has(compiled);
}

/** A statement that came after the last one of its transaction: it is rejected, never run outside the transaction. */
export function afterTheLastStatement(sql: string): Error {
  return new Error(
    `The transaction was committed by its last statement; "${sql.slice(0, 60)}" came after it and was not run.`,
  );
}
