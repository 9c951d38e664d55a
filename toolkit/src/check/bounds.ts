import { ANY, flatten, mergeShapes, type JsonType, type Shape } from './shape.js';

/**
 * Values at the edges of what a schema allows, for tests that probe each bound on its own: the
 * values just inside every bound the schema declares (`minimum`, `maximum`, `minLength`,
 * `maxLength`, a character-class `pattern`, `enum`, list items of an `enum`), the values just
 * outside them, and JSON values of every type the schema does not take. Pure: a caller decides
 * what response each deserves.
 */

export interface BoundaryValue {
  /** What the value is, for people: `length 64 (maxLength)`. */
  readonly label: string;
  readonly value: unknown;
}

export interface WrongTypeValue extends BoundaryValue {
  /** Ajv's `coerceTypes` would turn it into the right type (a validator must not). */
  readonly coercible: boolean;
}

/** A pattern of one character class repeated: `^[A-Za-z0-9_-]{1,64}$`, `^[a-z]+$`. */
export interface ClassPattern {
  /** Every character the class allows, in order. */
  readonly chars: string;
  readonly min: number;
  /** Undefined: no upper bound (`+`, `*`). */
  readonly max: number | undefined;
}

/** The character class and repetition of a `^[...]{m,n}$`-like pattern; undefined for any other pattern. */
export function classPattern(pattern: string | undefined): ClassPattern | undefined {
  if (pattern === undefined) return undefined;
  const match = /^\^\[([^\]^\\]+)\](?:\{(\d+)(?:,(\d*))?\}|(\+)|(\*))\$$/.exec(pattern);
  const spec = match?.[1];
  if (match === null || spec === undefined) return undefined;
  let chars = '';
  for (let i = 0; i < spec.length; i += 1) {
    const here = spec[i] ?? '';
    const to = spec[i + 2];
    if (spec[i + 1] === '-' && to !== undefined) {
      for (let code = here.charCodeAt(0); code <= to.charCodeAt(0); code += 1) chars += String.fromCharCode(code);
      i += 2;
    } else chars += here;
  }
  if (match[4] !== undefined) return { chars, min: 1, max: undefined };
  if (match[5] !== undefined) return { chars, min: 0, max: undefined };
  const min = Number(match[2]);
  const max = match[3] === undefined ? min : match[3] === '' ? undefined : Number(match[3]);
  return { chars, min, max };
}

/** The JSON types a shape takes: its `type`, else those of its `enum` values (empty: any). */
export function shapeTypes(shape: Shape): readonly JsonType[] {
  if (shape.types !== undefined) return shape.types;
  if (shape.enumValues !== undefined)
    return [...new Set(shape.enumValues.map(jsonTypeOf))].map((type) => (type === 'integer' ? 'number' : type));
  return [];
}

function jsonTypeOf(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value === 'boolean' ? 'boolean' : typeof value === 'object' ? 'object' : 'string';
}

const isNumeric = (types: readonly JsonType[]): boolean => types.includes('integer') || types.includes('number');

const shapeOf = (document: object, schema: unknown): Shape => flatten(document, schema);
const itemShapeOf = (document: object, shape: Shape): Shape =>
  shape.items.map((item) => flatten(document, item)).reduce(mergeShapes, ANY);

/** Characters with a meaning in URLs and paths, and one outside ASCII: a class pattern rarely allows them. */
const OFF_CLASS = ['.', '~', ' ', '/', 'é', '%', '+'];

/** Values just inside each bound `schema` (of `document`) declares; empty when it declares none. */
export function insideBounds(document: object, schema: unknown): BoundaryValue[] {
  const shape = shapeOf(document, schema);
  const out: BoundaryValue[] = [];
  if (shape.enumValues !== undefined && shape.enumValues.length > 0) {
    const first = shape.enumValues[0];
    const last = shape.enumValues[shape.enumValues.length - 1];
    out.push(
      { label: `enum first ${String(first)}`, value: first },
      { label: `enum last ${String(last)}`, value: last },
    );
    return out;
  }
  const types = shapeTypes(shape);
  if (isNumeric(types)) {
    if (shape.minimum !== undefined) out.push({ label: `minimum ${shape.minimum}`, value: shape.minimum });
    if (shape.maximum !== undefined) out.push({ label: `maximum ${shape.maximum}`, value: shape.maximum });
    if ((shape.minimum ?? -1) < 0 && (shape.maximum ?? 1) > 0) out.push({ label: 'zero', value: 0 });
  } else if (types.includes('string')) {
    const pattern = classPattern(shape.patterns[0]);
    const unit = pattern?.chars.slice(-1) ?? 'x';
    const min = Math.max(shape.minLength ?? 0, pattern?.min ?? 0);
    const max = shape.maxLength ?? pattern?.max;
    out.push({ label: `length ${min} (minLength)`, value: (pattern?.chars[0] ?? 'x').repeat(min) });
    if (max !== undefined) {
      out.push({ label: `length ${max} (maxLength)`, value: unit.repeat(max) });
      if (pattern === undefined) {
        // maxLength counts code points (JSON Schema): characters outside the BMP are one each.
        out.push({ label: `length ${max} of astral characters`, value: '😀'.repeat(max) });
        out.push({ label: `length ${max} of Arabic letters`, value: 'ع'.repeat(max) });
      }
    }
  } else if (types.includes('array')) {
    const values = itemShapeOf(document, shape).enumValues ?? [];
    if (values.length > 0)
      out.push({ label: 'one item', value: [values[0]] }, { label: 'every item', value: [...values] });
  }
  return out;
}

/** Values just outside each bound `schema` (of `document`) declares; empty when it declares none. */
export function outsideBounds(document: object, schema: unknown): BoundaryValue[] {
  const shape = shapeOf(document, schema);
  const out: BoundaryValue[] = [];
  if (shape.enumValues !== undefined && shape.enumValues.length > 0) {
    const first = String(shape.enumValues[0]);
    const otherCase = first.toLowerCase() === first ? first.toUpperCase() : first.toLowerCase();
    out.push(
      { label: 'not in the enum', value: 'NOT_A_VALUE' },
      { label: 'enum value in other case', value: otherCase },
      { label: 'enum value with a space', value: ` ${first}` },
    );
    return out;
  }
  const types = shapeTypes(shape);
  if (isNumeric(types)) {
    if (shape.minimum !== undefined) out.push({ label: `minimum ${shape.minimum} − 1`, value: shape.minimum - 1 });
    if (shape.maximum !== undefined) out.push({ label: `maximum ${shape.maximum} + 1`, value: shape.maximum + 1 });
    out.push({ label: 'a fraction', value: (shape.minimum ?? 0) + 0.5 });
  } else if (types.includes('string')) {
    const pattern = classPattern(shape.patterns[0]);
    const min = Math.max(shape.minLength ?? 0, pattern?.min ?? 0);
    const max = shape.maxLength ?? pattern?.max;
    if (min > 0) out.push({ label: `length ${min - 1} (below minLength)`, value: 'x'.repeat(min - 1) });
    if (max !== undefined) {
      out.push({ label: `length ${max + 1} (above maxLength)`, value: (pattern?.chars[0] ?? 'x').repeat(max + 1) });
      if (pattern === undefined)
        out.push({ label: `length ${max + 1} of astral characters`, value: '😀'.repeat(max + 1) });
    }
    if (pattern !== undefined) {
      for (const bad of OFF_CLASS) {
        if (!pattern.chars.includes(bad))
          out.push({ label: `character ${JSON.stringify(bad)} outside the pattern`, value: `ab${bad}cd` });
      }
    }
  } else if (types.includes('array')) {
    const itemShape = itemShapeOf(document, shape);
    const values = itemShape.enumValues ?? [];
    if (values.length > 0) {
      out.push({ label: 'an item not in the enum', value: [values[0], 'NOT_A_VALUE'] });
      out.push({ label: 'an empty item', value: [values[0], ''] });
    }
    if ((shape.minItems ?? 0) > 0) out.push({ label: 'no items (empty value)', value: [] });
    const itemPattern = classPattern(itemShape.patterns[0]);
    const bad = OFF_CLASS.find((candidate) => !(itemPattern?.chars.includes(candidate) ?? true));
    if (itemPattern !== undefined && bad !== undefined) {
      const good = (itemPattern.chars[0] ?? 'a').repeat(Math.max(itemPattern.min, 1));
      out.push({ label: 'an item outside the pattern', value: [good, `bad${bad}item`] });
    }
  }
  return out;
}

/** JSON values of other types, one of each kind a validator tells apart. */
const TYPE_CANDIDATES: ReadonlyArray<readonly [string, unknown]> = [
  ['a number-like string', '150000'],
  ['a word', 'twelve'],
  ['an empty string', ''],
  ['an integer', 7],
  ['a negative integer', -3],
  ['a fraction', 2.5],
  ['true', true],
  ['false', false],
  ['null', null],
  ['an array', [1]],
  ['an object', { value: 1 }],
];

/** JSON values of every type `schema` does not take, marking those Ajv's type coercion would accept. */
export function wrongTypes(document: object, schema: unknown): WrongTypeValue[] {
  const types = shapeTypes(shapeOf(document, schema));
  const numeric = isNumeric(types);
  const string = types.includes('string');
  const onlyNull = types.length === 1 && types[0] === 'null';
  const out: WrongTypeValue[] = [];
  for (const [label, value] of TYPE_CANDIDATES) {
    const kind = jsonTypeOf(value);
    if (types.includes(kind) || (kind === 'integer' && types.includes('number'))) continue;
    if (numeric && kind === 'number') {
      out.push({ label, value, coercible: false });
      continue;
    }
    let coercible = false;
    if (numeric)
      coercible =
        (typeof value === 'string' && /^-?\d+$/.test(value)) ||
        typeof value === 'boolean' ||
        value === null ||
        value === '';
    if (string) coercible = typeof value === 'number' || typeof value === 'boolean' || value === null;
    if (onlyNull) coercible = value === '' || value === 0 || value === false;
    out.push({ label, value, coercible });
  }
  return out;
}
