import { randomInt, randomUUID } from 'node:crypto';
import { impliedTypes, type Shape } from '../check/shape.js';

/**
 * The id `serve --stateful` gives each resource it creates, fresh among those it holds: a UUID for
 * a schema of `format: uuid`; for an integer, the next after the largest held (from the schema's
 * minimum, else 1); for a string, one like the document's example (its leading word and separator
 * kept, `ord_` of `ord_8f2k3`, each letter and digit after it drawn anew, a hexadecimal example
 * giving hexadecimal letters; digits alone after the word count up, `AC000002` after `AC000001`), else twelve lower-case
 * letters and digits within the schema's lengths; else a value generated from the schema. Every
 * id also fits each schema it must match (the field's and the path parameter's), as `fits` says.
 */

export interface IdRequest {
  /** The id's schema, flattened (check/shape.ts): the field's, else the path parameter's. */
  readonly shape: Shape;
  /** Values the document gives as examples of the id, first the one to make a new id like. */
  readonly examples: readonly unknown[];
  /** The ids held now. */
  readonly held: readonly unknown[];
  /** Whether a candidate matches every schema the id must match. */
  readonly fits: (candidate: string | number) => boolean;
  /** Values generated from the schema, the last candidates. */
  readonly generated: () => readonly unknown[];
}

const TRIES = 20;
const DIGITS = '0123456789';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const HEX = 'abcdef';

const draw = (alphabet: string): string => alphabet.charAt(randomInt(alphabet.length));

/** A string like `example`: its leading word and separator kept, each letter and digit after it drawn anew; digits alone after it, `count`. */
export function likeExample(example: string, count: number): string {
  const prefix = /^[A-Za-z]+(?:[_\-.:]|(?=\d+$))/.exec(example)?.[0] ?? '';
  const rest = example.slice(prefix.length);
  if (/^\d+$/.test(rest)) return `${prefix}${String(count).padStart(rest.length, '0')}`;
  const letters = /^[0-9a-f-]+$/i.test(rest) && /\d/.test(rest) ? HEX : LOWER;
  return `${prefix}${rest
    .replace(/[0-9]/g, () => draw(DIGITS))
    .replace(/[a-z]/g, () => draw(letters))
    .replace(/[A-Z]/g, () => draw(letters.toUpperCase()))}`;
}

function* candidates(request: IdRequest): Generator<string | number> {
  const { shape, held } = request;
  const types = impliedTypes(shape);
  if (shape.format === 'uuid') for (let i = 0; i < TRIES; i += 1) yield randomUUID();
  if ((types.includes('integer') || types.includes('number')) && !types.includes('string')) {
    const numbers = held.filter((value): value is number => typeof value === 'number');
    const floor = Math.max(
      Math.ceil(shape.minimum ?? 1),
      shape.exclusiveMinimum === undefined ? -Infinity : Math.floor(shape.exclusiveMinimum) + 1,
    );
    let next = Math.max(floor, numbers.length === 0 ? floor : Math.floor(Math.max(...numbers)) + 1);
    for (let i = 0; i < TRIES; i += 1, next += 1) yield next;
  }
  if (types.includes('string')) {
    const example = request.examples.find((value): value is string => typeof value === 'string' && value !== '');
    if (example !== undefined) for (let i = 0; i < TRIES; i += 1) yield likeExample(example, held.length + 1 + i);
    const length = Math.min(Math.max(12, shape.minLength ?? 0), shape.maxLength ?? 12);
    for (let i = 0; i < TRIES; i += 1) yield Array.from({ length }, () => draw(LOWER + DIGITS)).join('');
  }
  for (const value of request.generated()) if (typeof value === 'string' || typeof value === 'number') yield value;
}

/** A fresh id for `request`; undefined when no candidate is free and fits. */
export function freshId(request: IdRequest): string | number | undefined {
  const taken = new Set(request.held.map((value) => String(value)));
  for (const candidate of candidates(request)) {
    if (!taken.has(String(candidate)) && request.fits(candidate)) return candidate;
  }
  return undefined;
}
