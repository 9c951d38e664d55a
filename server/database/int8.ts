/**
 * int8 (bigint) as the store sees it: a number, held to the safe range. Both drivers get the
 * parser (open.ts gives it to `pg`; the embedded database's thread, embedded/worker.ts, to
 * PGlite), so the store sees one type (README, "Design"). A module of its own so that the thread
 * imports the rule itself and nothing else of the store.
 */

/** PostgreSQL's type id of int8 (bigint), the type of every money and time column and of count(*). */
export const INT8_OID = 20;

/**
 * int8 → number, rejecting anything a JavaScript number cannot hold exactly. Money and times
 * stay far below 2^53 (the largest amount is 99_999_999_999), so this throws only on a bug.
 * `sum()` of bigints is `numeric`, which both drivers return as a string: cast it (`sum(x)::bigint`).
 */
export function parseInt8(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) {
    throw new RangeError(`int8 value ${text} is not a safe integer; money and times must stay below 2^53`);
  }
  return value;
}

/**
 * An int8 column that arrived inside a JSON value (a statement that returns its rows as one JSON
 * value, which both drivers parse with JSON.parse): held to the safe range as parseInt8 holds the
 * columns, so that a value JSON.parse has rounded is rejected, never used.
 */
export function int8FromJson(value: number, column: string): number {
  if (!Number.isSafeInteger(value))
    throw new RangeError(`${column} ${value} is not a safe integer; money and times must stay below 2^53`);
  return value;
}
