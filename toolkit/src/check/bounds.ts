import { ANY, flatten, mergeShapes, type JsonType, type Shape } from './shape.js';

/**
 * Values at the edges of what a schema allows, for tests that probe each bound on its own: the
 * values just inside every bound the schema declares (`minimum`, `maximum`, `exclusiveMinimum` and
 * `exclusiveMaximum` one step inside, each on a `multipleOf`; `minLength`, `maxLength`, a
 * character-class `pattern`; the first and last `enum` values; `minItems` and `maxItems` items of a
 * list whose items have such a value), the values just outside them (an exclusive bound itself, a
 * value off the `multipleOf` among them), and JSON values of every type the schema does not take.
 * Pure: a caller decides what response each deserves.
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
  return insideShape(document, shapeOf(document, schema));
}

/** Values just inside each bound of a flattened schema. */
function insideShape(document: object, shape: Shape): BoundaryValue[] {
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
    out.push(...numericEdges(shape, types));
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
    const itemShape = itemShapeOf(document, shape);
    const values = itemShape.enumValues ?? [];
    const counted = (count: number): boolean => count >= (shape.minItems ?? 0) && count <= (shape.maxItems ?? Infinity);
    if (values.length > 0 && counted(1)) out.push({ label: 'one item', value: [values[0]] });
    if (values.length > 0 && counted(values.length)) out.push({ label: 'every item', value: [...values] });
    out.push(...itemCountEdges(document, shape, itemShape));
  }
  const seen = new Set<string>();
  return out.filter((edge) => {
    const key = JSON.stringify(edge.value);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Whether `value` is within every numeric bound of `shape`, a whole number where it asks for one. */
function withinNumericBounds(shape: Shape, types: readonly JsonType[], value: number): boolean {
  if (!Number.isFinite(value)) return false;
  if (types.includes('integer') && !types.includes('number') && !Number.isInteger(value)) return false;
  if (shape.minimum !== undefined && value < shape.minimum) return false;
  if (shape.maximum !== undefined && value > shape.maximum) return false;
  if (shape.exclusiveMinimum !== undefined && value <= shape.exclusiveMinimum) return false;
  if (shape.exclusiveMaximum !== undefined && value >= shape.exclusiveMaximum) return false;
  // As validators test it (Ajv): the quotient in floating point is a whole number.
  return shape.multipleOf === undefined || (value / shape.multipleOf) % 1 === 0;
}

/** Decimal places of a number as written (`0.01` → 2), to write multiples of it without rounding noise. */
function decimals(value: number): number {
  const [mantissa = '', exponent] = String(value).split('e');
  const fraction = mantissa.split('.')[1]?.length ?? 0;
  return Math.max(0, fraction - Number(exponent ?? 0));
}

/** The double next to `value` towards `direction` (+1 up, -1 down): the smallest step a JSON number can take. */
export function nextDouble(value: number, direction: 1 | -1): number {
  if (value === 0) return direction * Number.MIN_VALUE;
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value);
  const bits = view.getBigUint64(0);
  view.setBigUint64(0, value > 0 === direction > 0 ? bits + 1n : bits - 1n);
  return view.getFloat64(0);
}

/**
 * The numbers at a numeric schema's edges: each declared bound, or for an exclusive one the value
 * one step inside it (the `multipleOf`, else 1 for an integer, else the next double), moved onto
 * the `multipleOf`; and zero where the range spans it. Each is inside every bound at once.
 */
function numericEdges(shape: Shape, types: readonly JsonType[]): BoundaryValue[] {
  const integer = types.includes('integer') && !types.includes('number');
  const step = shape.multipleOf ?? (integer ? 1 : undefined);
  const places = step === undefined ? 0 : decimals(step);
  const onStep = (value: number, round: (x: number) => number): number =>
    step === undefined ? value : Number((round(value / step) * step).toFixed(Math.min(places, 100)));
  const candidates: BoundaryValue[] = [];
  if (shape.minimum !== undefined)
    candidates.push({ label: `minimum ${shape.minimum}`, value: onStep(shape.minimum, Math.ceil) });
  if (shape.maximum !== undefined)
    candidates.push({ label: `maximum ${shape.maximum}`, value: onStep(shape.maximum, Math.floor) });
  if (shape.exclusiveMinimum !== undefined) {
    const bound = shape.exclusiveMinimum;
    const above = step === undefined ? nextDouble(bound, 1) : onStep(bound, (x) => Math.floor(x) + 1);
    candidates.push({ label: `exclusiveMinimum ${bound}, one step above`, value: above });
  }
  if (shape.exclusiveMaximum !== undefined) {
    const bound = shape.exclusiveMaximum;
    const below = step === undefined ? nextDouble(bound, -1) : onStep(bound, (x) => Math.ceil(x) - 1);
    candidates.push({ label: `exclusiveMaximum ${bound}, one step below`, value: below });
  }
  const low = shape.minimum ?? shape.exclusiveMinimum ?? -1;
  const high = shape.maximum ?? shape.exclusiveMaximum ?? 1;
  if (low < 0 && high > 0) candidates.push({ label: 'zero', value: 0 });
  return candidates.filter((candidate) => withinNumericBounds(shape, types, candidate.value as number));
}

/** A value an item of the list may take: its `const`, its first `enum` value, else its first edge. */
function itemValue(document: object, itemShape: Shape): { readonly value: unknown } | undefined {
  if (itemShape.constant !== undefined) return { value: itemShape.constant.value };
  if (itemShape.enumValues !== undefined)
    return itemShape.enumValues.length > 0 ? { value: itemShape.enumValues[0] } : undefined;
  const types = shapeTypes(itemShape);
  // The item's own edges, without lists in lists.
  if (!isNumeric(types) && !types.includes('string')) return undefined;
  const [edge] = insideShape(document, itemShape);
  return edge === undefined ? undefined : { value: edge.value };
}

/** The most items an edge list holds: a `maxItems` above it is not probed. */
const MAX_EDGE_ITEMS = 1000;

/**
 * Lists of exactly `minItems` and exactly `maxItems` items (where the schema declares them), of
 * one item value repeated, or of distinct `enum` values under `uniqueItems`.
 */
function itemCountEdges(document: object, shape: Shape, itemShape: Shape): BoundaryValue[] {
  if (shape.prefixItems.length > 0 || shape.itemsClosed) return [];
  const counts: [string, number][] = [];
  if (shape.minItems !== undefined) counts.push([`${shape.minItems} items (minItems)`, shape.minItems]);
  if (shape.maxItems !== undefined && shape.maxItems <= MAX_EDGE_ITEMS)
    counts.push([`${shape.maxItems} items (maxItems)`, shape.maxItems]);
  const out: BoundaryValue[] = [];
  for (const [label, count] of counts) {
    if (count === 0) {
      out.push({ label, value: [] });
      continue;
    }
    if (shape.uniqueItems) {
      const distinct = itemShape.enumValues ?? [];
      if (distinct.length >= count) out.push({ label, value: distinct.slice(0, count) });
      continue;
    }
    const item = itemValue(document, itemShape);
    if (item !== undefined) out.push({ label, value: Array.from({ length: count }, () => item.value) });
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
    if (shape.exclusiveMinimum !== undefined)
      out.push({ label: `exclusiveMinimum ${shape.exclusiveMinimum} itself`, value: shape.exclusiveMinimum });
    if (shape.exclusiveMaximum !== undefined)
      out.push({ label: `exclusiveMaximum ${shape.exclusiveMaximum} itself`, value: shape.exclusiveMaximum });
    // A fraction is outside an integer schema only; a number schema takes one.
    if (!types.includes('number')) out.push({ label: 'a fraction', value: (shape.minimum ?? 0) + 0.5 });
    const [inside] = numericEdges(shape, types);
    if (shape.multipleOf !== undefined && inside !== undefined) {
      const off = (inside.value as number) + shape.multipleOf / 2;
      if ((off / shape.multipleOf) % 1 !== 0) out.push({ label: `off the multipleOf ${shape.multipleOf}`, value: off });
    }
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
