import fc, { type Arbitrary } from 'fast-check';
import {
  ANY,
  discriminatorValue,
  flatten,
  impliedTypes,
  mergeShapes,
  type Discriminator,
  type JsonType,
  type Shape,
} from './shape.js';

/**
 * Values of a schema as fast-check arbitraries, generated from what the schema says (shape.ts):
 * types (a list of them, `null` included), `const`, `enum`, formats, patterns, lengths and bounds,
 * `multipleOf`, items and prefix items, unique items, properties with their required ones, closed
 * or open objects, `oneOf`/`anyOf` branch by branch with the discriminator's value set, and the
 * schema's own examples now and then. A recursive schema is generated smaller as it repeats and
 * stops after a few levels. What the arbitrary cannot promise (two patterns at once, `not`) is left
 * to the check of each generated value against the document; the caller makes it.
 */

/** Where a generated value goes, which limits the characters its strings may hold. */
export type Channel =
  /** A JSON or form body: any text. */
  | 'body'
  /** A path, query or cookie parameter: any text (percent-encoded on the wire), not empty in a path. */
  | 'text'
  | 'path'
  /** A header: printable ASCII without spaces at either end (HTTP trims them). */
  | 'header';

export interface DrawOptions {
  readonly channel: Channel;
  /** Requests leave `readOnly` properties out; responses `writeOnly` ones. */
  readonly direction: 'request' | 'response';
  /**
   * Ordinary values only, for requests a service should take as they are: strings of printable
   * characters of several scripts (ORDINARY_TEXT: no control characters, no NUL, no long
   * strings), and no properties an open object leaves undeclared.
   */
  readonly ordinary?: boolean;
  /** The smallest values only: required properties, the fewest items, short strings. */
  readonly minimal?: boolean;
}

interface DrawState {
  readonly refs: ReadonlyMap<string, number>;
  readonly depth: number;
  readonly minimal: boolean;
}

/**
 * Nesting limits: past MINIMAL_DEPTH levels (or once a reference repeats) only required
 * properties and the fewest items are generated; past MAX_DEPTH levels, or at a reference's
 * MAX_REPEAT-th appearance, nothing is, so that a recursive schema ends.
 */
const MINIMAL_DEPTH = 6;
const MAX_DEPTH = 12;
const MAX_REPEAT = 4;

/**
 * Long strings for schemas without a maxLength: one value in LONG_WEIGHT+1 is 1,000 to 5,000
 * characters (servers that store text in fixed columns or log it whole show it there).
 */
const LONG_WEIGHT = 19;
const LONG_MIN = 1000;
const LONG_MAX = 5000;

/**
 * Choices that shrink towards their first option (a generated value rather than a long string or an
 * example): a failing request with a 3,000-character string shrinks to one with a short one.
 */
export const CROSS_SHRINK = { withCrossShrink: true } as const;

const SAFE = Number.MAX_SAFE_INTEGER;
const INT32 = 2 ** 31;

const dates = fc.date({
  min: new Date('1900-01-01T00:00:00Z'),
  max: new Date('2099-12-31T23:59:59Z'),
  noInvalidDate: true,
});

/** Strings of the formats of the OpenAPI Format Registry and JSON Schema, where a generator exists. */
const FORMAT_STRINGS: Readonly<Record<string, () => Arbitrary<string>>> = {
  date: () => dates.map((date) => date.toISOString().slice(0, 10)),
  'date-time': () => dates.map((date) => date.toISOString()),
  time: () => dates.map((date) => date.toISOString().slice(11)),
  uuid: () => fc.uuid(),
  email: () => fc.emailAddress(),
  'idn-email': () => fc.emailAddress(),
  uri: () => fc.webUrl(),
  url: () => fc.webUrl(),
  iri: () => fc.webUrl(),
  'uri-reference': () => fc.webUrl(),
  'iri-reference': () => fc.webUrl(),
  'uri-template': () => fc.webUrl(),
  hostname: () => fc.domain(),
  'idn-hostname': () => fc.domain(),
  ipv4: () => fc.ipV4(),
  ipv6: () => fc.ipV6(),
  byte: () => fc.uint8Array({ maxLength: 48 }).map((bytes) => Buffer.from(bytes).toString('base64')),
  regex: () => fc.constantFrom('^[a-z]+$', '[0-9]{2,4}', 'a|b'),
  'json-pointer': () => fc.constantFrom('', '/a', '/a/0', '/a~1b'),
  'relative-json-pointer': () => fc.constantFrom('0', '1/a', '0#'),
  duration: () => fc.constantFrom('P1D', 'PT1H30M', 'P1Y2M3DT4H5M6S'),
};

/** A pattern as the RegExp Ajv builds (Unicode mode), else without it; undefined when neither compiles. */
export function patternRegExp(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern, 'u');
  } catch {
    try {
      return new RegExp(pattern);
    } catch {
      return undefined;
    }
  }
}

/**
 * The characters of ordinary text: letters of several scripts, digits, an emoji outside the BMP,
 * a combining mark, a zero-width space, quotes, a backslash and `<`.
 */
export const ORDINARY_TEXT: readonly string[] = [
  'a',
  'Z',
  '0',
  '7',
  ' ',
  '-',
  '.',
  "'",
  'é',
  'ß',
  'ع',
  'م',
  '中',
  'Ω',
  '😀',
  '\u0301',
  '\u200b',
  '"',
  '\\',
  '<',
];

/** Strings of ORDINARY_TEXT up to ORDINARY_LENGTH characters, or the shortest and longest the schema allows. */
const ORDINARY_LENGTH = 20;

function ordinaryStrings(minLength: number, maxLength: number | undefined): Arbitrary<string> {
  const longest = maxLength ?? 40;
  const generated = fc.string({
    unit: fc.constantFrom(...ORDINARY_TEXT),
    minLength: Math.max(minLength, 1),
    maxLength: Math.max(Math.min(longest, ORDINARY_LENGTH), minLength, 1),
  });
  if (maxLength === undefined) return generated;
  // maxLength counts code points (JSON Schema): the longest of letters outside ASCII and outside the BMP.
  return fc.oneof(
    generated,
    fc.constantFrom('x'.repeat(Math.max(minLength, 1)), 'é'.repeat(maxLength), '😀'.repeat(maxLength)),
  );
}

/** Replaces spaces at either end of a header value (HTTP trims them) without changing its length. */
const untrimmed = (text: string): string => text.replace(/^ +| +$/g, (spaces) => 'x'.repeat(spaces.length));

function plainStrings(shape: Shape, options: DrawOptions, state: DrawState): Arbitrary<string> {
  const minLength = Math.max(shape.minLength ?? 0, options.channel === 'path' ? 1 : 0);
  const maxLength = shape.maxLength;
  if (maxLength !== undefined && maxLength < minLength) return fc.constant('');
  if (
    options.ordinary === true &&
    options.channel !== 'header' &&
    (maxLength === undefined || maxLength >= Math.max(minLength, 1))
  )
    return ordinaryStrings(minLength, maxLength);
  const bounds = { minLength, ...(maxLength === undefined ? {} : { maxLength }) };
  if (options.channel === 'header') {
    const ascii = fc.string({ ...bounds, unit: 'grapheme-ascii' }).map(untrimmed);
    return maxLength === undefined && !state.minimal
      ? fc.oneof(
          CROSS_SHRINK,
          { weight: LONG_WEIGHT, arbitrary: ascii },
          {
            weight: 1,
            arbitrary: fc
              .string({
                minLength: Math.max(minLength, LONG_MIN),
                maxLength: Math.max(minLength, LONG_MIN) + 1000,
                unit: 'grapheme-ascii',
              })
              .map(untrimmed),
          },
        )
      : ascii;
  }
  const usual = fc.oneof(
    { weight: 4, arbitrary: fc.string({ ...bounds, unit: 'grapheme-ascii' }) },
    { weight: 1, arbitrary: fc.string({ ...bounds, unit: 'binary' }) },
  );
  if (maxLength !== undefined || state.minimal) return usual;
  const longMin = Math.max(minLength, LONG_MIN);
  return fc.oneof(
    CROSS_SHRINK,
    { weight: LONG_WEIGHT, arbitrary: usual },
    {
      weight: 1,
      arbitrary: fc.string({ minLength: longMin, maxLength: longMin + LONG_MAX - LONG_MIN, unit: 'grapheme-ascii' }),
    },
  );
}

/**
 * Strings that match `regex`, generated by fast-check's `stringMatching`. It cannot generate from
 * lookarounds (`(?!sink_)`), `\b` or `\B`: such a pattern is used without them, and a generated
 * string the whole pattern rejects makes its request not valid, so that request is not sent
 * (cases.ts `invalidity`). Undefined when fast-check cannot generate from the pattern even so (a
 * backreference): its strings are then generated without it, and rejected the same way.
 */
function matchingStrings(regex: RegExp, maxLength: number | undefined): Arbitrary<string> | undefined {
  const constraints = maxLength === undefined ? {} : { maxLength };
  try {
    return fc.stringMatching(regex, constraints);
  } catch {
    try {
      return fc.stringMatching(new RegExp(withoutLookarounds(regex.source), regex.flags), constraints);
    } catch {
      return undefined;
    }
  }
}

/** A pattern's source without its lookaround groups and its `\b` and `\B` assertions: what they allow, and more. */
export function withoutLookarounds(source: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i += 1) {
    const char = source[i] ?? '';
    if (char === '\\') {
      const next = source[i + 1] ?? '';
      // Inside a class, `[\b]` is a backspace, not an assertion.
      if (inClass || (next !== 'b' && next !== 'B')) out += char + next;
      i += 1;
    } else if (inClass) {
      if (char === ']') inClass = false;
      out += char;
    } else if (char === '[') {
      inClass = true;
      out += char;
    } else if (char === '(' && /^\(\?<?[=!]/.test(source.slice(i, i + 4))) {
      i = groupEnd(source, i);
    } else {
      out += char;
    }
  }
  return out;
}

/** The index of the `)` that closes the group opened at `start`. */
function groupEnd(source: string, start: number): number {
  let depth = 0;
  let inClass = false;
  for (let i = start; i < source.length; i += 1) {
    const char = source[i];
    if (char === '\\') i += 1;
    else if (inClass) inClass = char !== ']';
    else if (char === '[') inClass = true;
    else if (char === '(') depth += 1;
    else if (char === ')' && (depth -= 1) === 0) return i;
  }
  return source.length;
}

function strings(shape: Shape, options: DrawOptions, state: DrawState): Arbitrary<string> {
  const format = shape.format === undefined ? undefined : FORMAT_STRINGS[shape.format];
  if (format !== undefined) return format();
  const [pattern] = shape.patterns;
  if (pattern !== undefined) {
    const regex = patternRegExp(pattern);
    const matching = regex === undefined ? undefined : matchingStrings(regex, shape.maxLength);
    if (matching !== undefined) return options.channel === 'header' ? matching.map(untrimmed) : matching;
  }
  return plainStrings(shape, options, state);
}

/** The integers a shape allows, as [lowest, highest]; undefined when there are none. */
export function integerRange(shape: Shape): [number, number] | undefined {
  let low = -SAFE;
  let high = SAFE;
  if (shape.format === 'int32') [low, high] = [-INT32, INT32 - 1];
  if (shape.minimum !== undefined) low = Math.max(low, Math.ceil(shape.minimum));
  if (shape.exclusiveMinimum !== undefined) low = Math.max(low, Math.floor(shape.exclusiveMinimum) + 1);
  if (shape.maximum !== undefined) high = Math.min(high, Math.floor(shape.maximum));
  if (shape.exclusiveMaximum !== undefined) high = Math.min(high, Math.ceil(shape.exclusiveMaximum) - 1);
  return low > high ? undefined : [low, high];
}

/** Decimal places of a number as written (`0.01` → 2), to round multiples of it. */
const decimals = (value: number): number => {
  const [, fraction = ''] = String(value).split('.');
  const exponent = /e-(\d+)$/.exec(String(value));
  return exponent?.[1] !== undefined ? Number(exponent[1]) + fraction.length : fraction.length;
};

/** Multiples of `step` between `low` and `high`. */
function multiples(step: number, low: number, high: number): Arbitrary<number> | undefined {
  if (!(step > 0)) return undefined;
  const first = Math.ceil(low / step);
  const last = Math.floor(high / step);
  if (!Number.isFinite(first) || !Number.isFinite(last) || first > last) return undefined;
  const places = decimals(step);
  const generated = fc
    .integer({ min: Math.max(first, -SAFE), max: Math.min(last, SAFE) })
    .map((k) => (places === 0 ? k * step : Number((k * step).toFixed(Math.min(places, 100)))));
  // Validators test `(value / step) % 1 === 0` in floating point (Ajv does): 32.66 is not a
  // multiple of 0.01 there. Where 0 is in range (it always passes, so the search ends), only the
  // multiples that pass are generated; elsewhere the check of each generated request passes over the others.
  return first <= 0 && last >= 0 ? generated.filter((value) => (value / step) % 1 === 0) : generated;
}

function integers(shape: Shape): Arbitrary<number> | undefined {
  const range = integerRange(shape);
  if (range === undefined) return undefined;
  const [low, high] = range;
  if (shape.multipleOf !== undefined) return multiples(shape.multipleOf, low, high);
  return fc.integer({ min: low, max: high });
}

function numbers(shape: Shape): Arbitrary<number> | undefined {
  const low =
    shape.exclusiveMinimum !== undefined && (shape.minimum === undefined || shape.exclusiveMinimum >= shape.minimum)
      ? shape.exclusiveMinimum
      : shape.minimum;
  const high =
    shape.exclusiveMaximum !== undefined && (shape.maximum === undefined || shape.exclusiveMaximum <= shape.maximum)
      ? shape.exclusiveMaximum
      : shape.maximum;
  const lowExcluded = low !== undefined && low === shape.exclusiveMinimum;
  const highExcluded = high !== undefined && high === shape.exclusiveMaximum;
  if (shape.multipleOf !== undefined) return multiples(shape.multipleOf, low ?? -SAFE, high ?? SAFE);
  if (low !== undefined && high !== undefined && (low > high || (low === high && (lowExcluded || highExcluded))))
    return undefined;
  const doubles = fc.double({
    noNaN: true,
    noDefaultInfinity: true,
    ...(low === undefined ? {} : { min: low, minExcluded: lowExcluded }),
    ...(high === undefined ? {} : { max: high, maxExcluded: highExcluded }),
  });
  const whole = integers(shape);
  return whole === undefined ? doubles : fc.oneof(whole, doubles);
}

/** A small value of any JSON type, for properties and items a schema leaves open. */
const anyJson: Arbitrary<unknown> = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** A key that is not one of `taken` (nor a name JavaScript objects treat specially). */
const extraKey = (taken: ReadonlySet<string>): Arbitrary<string> =>
  fc
    .string({ minLength: 1, maxLength: 12 })
    .map((key) => (taken.has(key) || key === '__proto__' || key === 'constructor' ? `${key}_extra` : key));

/** The JSON text of a value with its keys sorted: equal values compare equal (`uniqueItems`). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    typeof inner === 'object' && inner !== null && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}

class Drawer {
  constructor(
    private readonly document: object,
    private readonly options: DrawOptions,
  ) {}

  /** An arbitrary of the values of `schemas` (all at once); undefined when none can be generated. */
  of(schemas: readonly unknown[], state: DrawState): Arbitrary<unknown> | undefined {
    if (state.depth > MAX_DEPTH) return undefined;
    const shape = schemas.map((schema) => flatten(this.document, schema)).reduce(mergeShapes, ANY);
    return this.ofShape(shape, state);
  }

  private enter(shape: Shape, state: DrawState): DrawState | undefined {
    const refs = new Map(state.refs);
    for (const ref of shape.refs) refs.set(ref, (refs.get(ref) ?? 0) + 1);
    const counts = [...refs.values()];
    if (counts.some((count) => count >= MAX_REPEAT)) return undefined;
    return {
      refs,
      depth: state.depth + 1,
      minimal: state.minimal || state.depth >= MINIMAL_DEPTH || counts.some((count) => count >= 2),
    };
  }

  ofShape(shape: Shape, outer: DrawState): Arbitrary<unknown> | undefined {
    if (shape.never) return undefined;
    const state = this.enter(shape, outer);
    if (state === undefined) return undefined;
    const generated = this.alternativesOf(shape, state);
    if (generated === undefined) return undefined;
    if (shape.examples.length === 0 || state.minimal) return generated;
    return fc.oneof(
      CROSS_SHRINK,
      { weight: 4, arbitrary: generated },
      { weight: 1, arbitrary: fc.constantFrom(...shape.examples) },
    );
  }

  private alternativesOf(shape: Shape, state: DrawState): Arbitrary<unknown> | undefined {
    const [group, ...others] = shape.alternatives;
    if (group === undefined) return this.typed(shape, state);
    // The references were counted on the way in: the branches count their own only.
    const rest: Shape = { ...shape, alternatives: others, examples: [], refs: [] };
    const branches: Arbitrary<unknown>[] = [];
    for (const branch of group.branches) {
      let branchShape = mergeShapes(
        rest,
        flatten(this.document, branch, { expandDiscriminator: false, keepExamples: false }),
      );
      const tag = group.discriminator === undefined ? undefined : discriminatorTag(group.discriminator, branch);
      if (tag !== undefined) branchShape = mergeShapes(branchShape, tag);
      // A branch that includes its parent (`Cat: allOf [Pet]`, Pet's `oneOf: [Cat, Dog]`) has chosen already.
      branchShape = {
        ...branchShape,
        alternatives: branchShape.alternatives.filter((alternatives) => alternatives.branches !== group.branches),
      };
      const arbitrary = this.ofShape(branchShape, state);
      if (arbitrary !== undefined) branches.push(arbitrary);
    }
    return branches.length === 0 ? undefined : fc.oneof(...branches);
  }

  private typed(shape: Shape, state: DrawState): Arbitrary<unknown> | undefined {
    if (shape.constant !== undefined) return fc.constant(shape.constant.value);
    if (shape.enumValues !== undefined)
      return shape.enumValues.length === 0 ? undefined : fc.constantFrom(...shape.enumValues);
    let types: readonly JsonType[] = impliedTypes(shape);
    // Text on the wire carries no structure a schema without a type could ask for: scalars only.
    if (this.options.channel !== 'body' && shape.types === undefined && types.length > 3)
      types = ['string', 'integer', 'boolean'];
    const arbitraries = types
      .map((type) => this.ofType(type, shape, state))
      .filter((arbitrary): arbitrary is Arbitrary<unknown> => arbitrary !== undefined);
    return arbitraries.length === 0 ? undefined : arbitraries.length === 1 ? arbitraries[0] : fc.oneof(...arbitraries);
  }

  private ofType(type: JsonType, shape: Shape, state: DrawState): Arbitrary<unknown> | undefined {
    switch (type) {
      case 'null':
        return fc.constant(null);
      case 'boolean':
        return fc.boolean();
      case 'integer':
        return integers(shape);
      case 'number':
        return numbers(shape);
      case 'string':
        return strings(shape, this.options, state);
      case 'array':
        return this.arrays(shape, state);
      case 'object':
        return this.objects(shape, state);
    }
  }

  private arrays(shape: Shape, state: DrawState): Arbitrary<unknown[]> | undefined {
    // An empty list in a path is an empty segment, which routes elsewhere.
    const minItems = Math.max(shape.minItems ?? 0, this.options.channel === 'path' ? 1 : 0);
    let maxItems = shape.maxItems;
    if (state.minimal) maxItems = Math.min(maxItems ?? minItems, minItems);
    if (maxItems !== undefined && maxItems < minItems) return undefined;
    const prefix: Arbitrary<unknown>[] = [];
    for (const schemas of shape.prefixItems) {
      if (maxItems !== undefined && prefix.length >= maxItems) break;
      const item = this.of(schemas, state);
      if (item === undefined) {
        if (prefix.length >= minItems) break;
        return undefined;
      }
      prefix.push(item);
    }
    const item = shape.itemsClosed
      ? undefined
      : shape.items.length > 0
        ? this.of(shape.items, state)
        : this.options.channel === 'body'
          ? anyJson
          : fc.string({ maxLength: 8 });
    const restMin = Math.max(0, minItems - prefix.length);
    const restMax = maxItems === undefined ? undefined : Math.max(0, maxItems - prefix.length);
    let rest: Arbitrary<unknown[]>;
    if (item === undefined) {
      if (restMin > 0) return undefined;
      rest = fc.constant([]);
    } else {
      const bounds = { minLength: restMin, ...(restMax === undefined ? {} : { maxLength: restMax }) };
      rest = shape.uniqueItems ? fc.uniqueArray(item, { ...bounds, selector: canonicalJson }) : fc.array(item, bounds);
    }
    if (prefix.length === 0) return rest;
    return fc.tuple(fc.tuple(...prefix), rest).map(([head, tail]) => [...head, ...tail]);
  }

  private objects(shape: Shape, state: DrawState): Arbitrary<Record<string, unknown>> | undefined {
    const model: Record<string, Arbitrary<unknown>> = {};
    const required: string[] = [];
    const leftOut = this.options.direction === 'request' ? 'readOnly' : 'writeOnly';
    for (const [name, schemas] of shape.properties) {
      if (shape.allowedNames !== undefined && !shape.allowedNames.has(name)) continue;
      const isRequired = shape.required.has(name);
      if (state.minimal && !isRequired) continue;
      const propertyShape = schemas.map((schema) => flatten(this.document, schema)).reduce(mergeShapes, ANY);
      if (propertyShape[leftOut]) continue;
      const arbitrary = this.ofShape(propertyShape, state);
      if (arbitrary === undefined) {
        if (isRequired) return undefined;
        continue;
      }
      model[name] = arbitrary;
      if (isRequired) required.push(name);
    }
    const taken = new Set(shape.properties.keys());
    const open = !shape.noExtras && shape.allowedNames === undefined;
    const extraValue = shape.additional.length > 0 ? this.of(shape.additional, state) : anyJson;
    // Required names no property declares: generated from additionalProperties (or any value).
    for (const name of shape.required) {
      if (name in model || taken.has(name)) continue;
      if (!open || extraValue === undefined) return undefined;
      model[name] = extraValue;
      required.push(name);
    }
    // minProperties above the required count: optional properties become required, in order
    // (one at least in a path, where an empty object is an empty segment).
    const fewest = Math.max(shape.minProperties ?? 0, this.options.channel === 'path' ? 1 : 0);
    for (const name of Object.keys(model)) {
      if (required.length >= fewest) break;
      if (!required.includes(name)) required.push(name);
    }
    // Objects with Object's prototype: Ajv compares values (enum, const, uniqueItems) with
    // fast-deep-equal, which calls valueOf and throws on an object that has none.
    const record = fc.record(model, { requiredKeys: required, noNullPrototype: true });
    if (!open || state.minimal || extraValue === undefined || this.options.ordinary === true) return record;
    const extras = fc.option(fc.dictionary(extraKey(taken), extraValue, { maxKeys: 3, noNullPrototype: true }), {
      freq: 4,
      nil: undefined,
    });
    return fc
      .tuple(record, extras)
      .map(([declared, extra]) => (extra === undefined ? declared : { ...extra, ...declared }));
  }
}

/** The constraint a discriminator adds to one branch: its property set to the branch's value. */
function discriminatorTag(discriminator: Discriminator, branch: unknown): Shape | undefined {
  const value = discriminatorValue(discriminator, branch);
  if (value === undefined) return undefined;
  return {
    ...ANY,
    properties: new Map([[discriminator.propertyName, [{ const: value }]]]),
    required: new Set([discriminator.propertyName]),
  };
}

/** An arbitrary of the values of `schema` (a schema of `document`, maybe a reference); undefined when none can be generated. */
export function valuesOf(document: object, schema: unknown, options: DrawOptions): Arbitrary<unknown> | undefined {
  return new Drawer(document, options).of([schema], { refs: new Map(), depth: 0, minimal: options.minimal === true });
}
