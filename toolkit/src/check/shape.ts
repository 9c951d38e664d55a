import { isReference } from '../codegen/bundle.js';
import { follow } from './document.js';

/**
 * A JSON Schema (2020-12, as OpenAPI 3.1 writes it) flattened for generating values: `$ref`s
 * followed, `allOf` members merged into one set of constraints (the tightest bound wins, required
 * names add up, property schemas pile up to be merged when that property is generated),
 * `oneOf`/`anyOf` kept as alternatives to choose from, and a discriminator read as the value its
 * property takes in each alternative. What cannot be merged exactly (two patterns, `not`, `if`) is
 * left to the check of every generated value against the document (schemas.ts).
 */

type Json = Record<string, unknown>;

export const JSON_TYPES = ['null', 'boolean', 'integer', 'number', 'string', 'array', 'object'] as const;
export type JsonType = (typeof JSON_TYPES)[number];

export interface Discriminator {
  readonly propertyName: string;
  readonly mapping: Readonly<Record<string, string>>;
}

/** One `oneOf`/`anyOf`: a value matches (at least) one branch. */
export interface Alternatives {
  readonly branches: readonly unknown[];
  readonly discriminator: Discriminator | undefined;
}

export interface Shape {
  /** The schema is `false` (or its constraints cannot all hold). */
  readonly never: boolean;
  /** Undefined: any type. */
  readonly types: readonly JsonType[] | undefined;
  readonly constant: { readonly value: unknown } | undefined;
  readonly enumValues: readonly unknown[] | undefined;
  readonly minLength: number | undefined;
  readonly maxLength: number | undefined;
  readonly patterns: readonly string[];
  readonly format: string | undefined;
  readonly minimum: number | undefined;
  readonly maximum: number | undefined;
  readonly exclusiveMinimum: number | undefined;
  readonly exclusiveMaximum: number | undefined;
  readonly multipleOf: number | undefined;
  /** Schemas every item after the prefix must match; `itemsClosed`: there are none after it. */
  readonly items: readonly unknown[];
  readonly itemsClosed: boolean;
  /** Position by position, the schemas an item must match. */
  readonly prefixItems: readonly (readonly unknown[])[];
  readonly minItems: number | undefined;
  readonly maxItems: number | undefined;
  readonly uniqueItems: boolean;
  readonly properties: ReadonlyMap<string, readonly unknown[]>;
  readonly required: ReadonlySet<string>;
  /** Names a closed member (`additionalProperties: false`) allows; undefined when none is closed. */
  readonly allowedNames: ReadonlySet<string> | undefined;
  /** Schemas a property outside `properties` must match; `noExtras`: there may be none. */
  readonly additional: readonly unknown[];
  readonly noExtras: boolean;
  readonly minProperties: number | undefined;
  readonly maxProperties: number | undefined;
  readonly alternatives: readonly Alternatives[];
  /** The schema's own examples (not those of its `allOf` members, which describe a part). */
  readonly examples: readonly unknown[];
  readonly readOnly: boolean;
  readonly writeOnly: boolean;
  /** The schema has a `default`: a server may take it for the value left out (the validator writes it in). */
  readonly hasDefault: boolean;
  /** The references followed to reach these constraints (recursion is counted by them). */
  readonly refs: readonly string[];
}

export const ANY: Shape = {
  never: false,
  types: undefined,
  constant: undefined,
  enumValues: undefined,
  minLength: undefined,
  maxLength: undefined,
  patterns: [],
  format: undefined,
  minimum: undefined,
  maximum: undefined,
  exclusiveMinimum: undefined,
  exclusiveMaximum: undefined,
  multipleOf: undefined,
  items: [],
  itemsClosed: false,
  prefixItems: [],
  minItems: undefined,
  maxItems: undefined,
  uniqueItems: false,
  properties: new Map(),
  required: new Set(),
  allowedNames: undefined,
  additional: [],
  noExtras: false,
  minProperties: undefined,
  maxProperties: undefined,
  alternatives: [],
  examples: [],
  readOnly: false,
  writeOnly: false,
  hasDefault: false,
  refs: [],
};

const NEVER: Shape = { ...ANY, never: true };

const num = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;
const tighter = (
  a: number | undefined,
  b: number | undefined,
  pick: (x: number, y: number) => number,
): number | undefined => (a === undefined ? b : b === undefined ? a : pick(a, b));

/** JSON equality, for `enum` and `const` (key order ignored). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null)
    return typeof a === 'number' && typeof b === 'number' && a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => sameJson(item, b[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((key) => key in b && sameJson((a as Json)[key], (b as Json)[key]));
}

function intersectTypes(
  a: readonly JsonType[] | undefined,
  b: readonly JsonType[] | undefined,
): readonly JsonType[] | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  const out = new Set<JsonType>();
  for (const type of a) {
    if (b.includes(type)) out.add(type);
    // An integer is a number: `number` and `integer` meet at `integer`.
    else if (type === 'integer' && b.includes('number')) out.add('integer');
    else if (type === 'number' && b.includes('integer')) out.add('integer');
  }
  return [...out];
}

/** Both sets of constraints at once. */
export function mergeShapes(a: Shape, b: Shape): Shape {
  if (a.never || b.never) return NEVER;
  const properties = new Map<string, unknown[]>();
  for (const [name, schemas] of [...a.properties, ...b.properties])
    properties.set(name, [...(properties.get(name) ?? []), ...schemas]);
  const enumValues =
    a.enumValues === undefined
      ? b.enumValues
      : b.enumValues === undefined
        ? a.enumValues
        : a.enumValues.filter((x) => b.enumValues?.some((y) => sameJson(x, y)));
  const allowedNames =
    a.allowedNames === undefined
      ? b.allowedNames
      : b.allowedNames === undefined
        ? a.allowedNames
        : new Set([...a.allowedNames].filter((name) => b.allowedNames?.has(name)));
  const prefixItems: unknown[][] = [];
  for (let i = 0; i < Math.max(a.prefixItems.length, b.prefixItems.length); i += 1)
    prefixItems.push([...(a.prefixItems[i] ?? []), ...(b.prefixItems[i] ?? [])]);
  const types = intersectTypes(a.types, b.types);
  return {
    never: types !== undefined && types.length === 0,
    types,
    constant: a.constant ?? b.constant,
    enumValues,
    minLength: tighter(a.minLength, b.minLength, Math.max),
    maxLength: tighter(a.maxLength, b.maxLength, Math.min),
    patterns: [...a.patterns, ...b.patterns],
    format: a.format ?? b.format,
    minimum: tighter(a.minimum, b.minimum, Math.max),
    maximum: tighter(a.maximum, b.maximum, Math.min),
    exclusiveMinimum: tighter(a.exclusiveMinimum, b.exclusiveMinimum, Math.max),
    exclusiveMaximum: tighter(a.exclusiveMaximum, b.exclusiveMaximum, Math.min),
    multipleOf: a.multipleOf ?? b.multipleOf,
    items: [...a.items, ...b.items],
    itemsClosed: a.itemsClosed || b.itemsClosed,
    prefixItems,
    minItems: tighter(a.minItems, b.minItems, Math.max),
    maxItems: tighter(a.maxItems, b.maxItems, Math.min),
    uniqueItems: a.uniqueItems || b.uniqueItems,
    properties,
    required: new Set([...a.required, ...b.required]),
    allowedNames,
    additional: [...a.additional, ...b.additional],
    noExtras: a.noExtras || b.noExtras,
    minProperties: tighter(a.minProperties, b.minProperties, Math.max),
    maxProperties: tighter(a.maxProperties, b.maxProperties, Math.min),
    alternatives: [...a.alternatives, ...b.alternatives],
    examples: [...a.examples, ...b.examples],
    readOnly: a.readOnly || b.readOnly,
    writeOnly: a.writeOnly || b.writeOnly,
    hasDefault: a.hasDefault || b.hasDefault,
    refs: [...a.refs, ...b.refs],
  };
}

function ownTypes(schema: Json): readonly JsonType[] | undefined {
  const type = schema['type'];
  const listed = (Array.isArray(type) ? type : typeof type === 'string' ? [type] : undefined)?.filter(
    (t): t is JsonType => (JSON_TYPES as readonly string[]).includes(String(t)),
  );
  return listed;
}

function discriminatorOf(schema: Json): Discriminator | undefined {
  const declared = schema['discriminator'];
  if (typeof declared !== 'object' || declared === null) return undefined;
  const { propertyName, mapping } = declared as { propertyName?: unknown; mapping?: unknown };
  if (typeof propertyName !== 'string') return undefined;
  const pairs =
    typeof mapping === 'object' && mapping !== null
      ? Object.entries(mapping as Json).filter((pair): pair is [string, string] => typeof pair[1] === 'string')
      : [];
  return { propertyName, mapping: Object.fromEntries(pairs) };
}

/** The constraints `schema` states itself, without following `$ref`, `allOf` or alternatives. */
function ownShape(schema: Json): Shape {
  const items = schema['items'];
  const additional = schema['additionalProperties'];
  const unevaluated = schema['unevaluatedProperties'];
  const properties = new Map<string, unknown[]>();
  for (const [name, property] of Object.entries((schema['properties'] ?? {}) as Json)) properties.set(name, [property]);
  const closed = additional === false;
  const examples: unknown[] = [];
  if ('example' in schema) examples.push(schema['example']);
  if (Array.isArray(schema['examples'])) examples.push(...(schema['examples'] as unknown[]));
  return {
    ...ANY,
    types: ownTypes(schema),
    constant: 'const' in schema ? { value: schema['const'] } : undefined,
    enumValues: Array.isArray(schema['enum']) ? (schema['enum'] as unknown[]) : undefined,
    minLength: num(schema['minLength']),
    maxLength: num(schema['maxLength']),
    patterns: typeof schema['pattern'] === 'string' ? [schema['pattern']] : [],
    format: typeof schema['format'] === 'string' ? schema['format'] : undefined,
    minimum: num(schema['minimum']),
    maximum: num(schema['maximum']),
    exclusiveMinimum: num(schema['exclusiveMinimum']),
    exclusiveMaximum: num(schema['exclusiveMaximum']),
    multipleOf: num(schema['multipleOf']),
    items: items === undefined || typeof items === 'boolean' ? [] : [items],
    itemsClosed: items === false,
    prefixItems: Array.isArray(schema['prefixItems']) ? (schema['prefixItems'] as unknown[]).map((item) => [item]) : [],
    minItems: num(schema['minItems']),
    maxItems: num(schema['maxItems']),
    uniqueItems: schema['uniqueItems'] === true,
    properties,
    required: new Set(Array.isArray(schema['required']) ? (schema['required'] as unknown[]).map(String) : []),
    allowedNames: closed ? new Set(properties.keys()) : undefined,
    additional: typeof additional === 'object' && additional !== null ? [additional] : [],
    noExtras: closed || unevaluated === false,
    minProperties: num(schema['minProperties']),
    maxProperties: num(schema['maxProperties']),
    examples,
    readOnly: schema['readOnly'] === true,
    writeOnly: schema['writeOnly'] === true,
    hasDefault: 'default' in schema,
  };
}

/** Where a discriminator's mapping or a branch's reference leads, as a comparable reference. */
const refName = (ref: string): string => ref.slice(ref.lastIndexOf('/') + 1);

/** The discriminator value of a branch: its key in the mapping, else the name its reference ends with. */
export function discriminatorValue(discriminator: Discriminator, branch: unknown): string | undefined {
  if (!isReference(branch)) return undefined;
  for (const [value, target] of Object.entries(discriminator.mapping)) {
    if (target === branch.$ref || (!target.includes('/') && target === refName(branch.$ref))) return value;
  }
  return refName(branch.$ref);
}

interface FlattenOptions {
  /** Read a discriminator without `oneOf`/`anyOf` as a choice among its mapping (not for an `allOf` member). */
  readonly expandDiscriminator: boolean;
  /** Keep the schema's examples (not for an `allOf` member). */
  readonly keepExamples: boolean;
}

/** Flattens `schema` (a schema of `document`, maybe a reference); `seen` guards an `allOf` that contains itself. */
export function flatten(
  document: object,
  schema: unknown,
  options: FlattenOptions = { expandDiscriminator: true, keepExamples: true },
  seen: Set<unknown> = new Set(),
): Shape {
  if (schema === true || schema === undefined) return ANY;
  if (schema === false) return NEVER;
  if (typeof schema !== 'object' || schema === null) return ANY;
  if (seen.has(schema)) return ANY;
  const inner = new Set(seen).add(schema);
  const declared = schema as Json;
  let shape = ownShape(declared);
  if (!options.keepExamples) shape = { ...shape, examples: [] };
  if (typeof declared['$ref'] === 'string') {
    let target: unknown;
    try {
      target = follow(document, { $ref: declared['$ref'] }, '#').value;
    } catch {
      target = undefined;
    }
    if (target !== undefined) {
      const followed = flatten(document, target, options, inner);
      shape = mergeShapes({ ...shape, refs: [declared['$ref']] }, followed);
    }
  }
  for (const member of (Array.isArray(declared['allOf']) ? declared['allOf'] : []) as unknown[]) {
    shape = mergeShapes(shape, flatten(document, member, { expandDiscriminator: false, keepExamples: false }, inner));
  }
  const discriminator = discriminatorOf(declared);
  for (const keyword of ['oneOf', 'anyOf'] as const) {
    const branches = declared[keyword];
    if (Array.isArray(branches) && branches.length > 0)
      shape = { ...shape, alternatives: [...shape.alternatives, { branches, discriminator }] };
  }
  if (
    discriminator !== undefined &&
    !Array.isArray(declared['oneOf']) &&
    !Array.isArray(declared['anyOf']) &&
    options.expandDiscriminator
  ) {
    const targets = Object.values(discriminator.mapping);
    if (targets.length > 0) {
      const branches = targets.map((target) => ({
        $ref: target.includes('/') ? target : `#/components/schemas/${target}`,
      }));
      shape = { ...shape, alternatives: [...shape.alternatives, { branches, discriminator }] };
    }
  }
  return shape;
}

/**
 * The type a shape's keywords point at when it states none (`properties` → object): a schema
 * without `type` allows any, but its keywords say what its author meant.
 */
export function impliedTypes(shape: Shape): readonly JsonType[] {
  if (shape.types !== undefined) return shape.types;
  const implied: JsonType[] = [];
  if (shape.properties.size > 0 || shape.required.size > 0 || shape.additional.length > 0 || shape.noExtras)
    implied.push('object');
  if (
    shape.items.length > 0 ||
    shape.prefixItems.length > 0 ||
    shape.minItems !== undefined ||
    shape.maxItems !== undefined
  )
    implied.push('array');
  if (
    shape.minLength !== undefined ||
    shape.maxLength !== undefined ||
    shape.patterns.length > 0 ||
    (shape.format !== undefined && !NUMBER_FORMATS.has(shape.format))
  )
    implied.push('string');
  if (
    shape.minimum !== undefined ||
    shape.maximum !== undefined ||
    shape.multipleOf !== undefined ||
    (shape.format !== undefined && NUMBER_FORMATS.has(shape.format))
  )
    implied.push('number');
  return implied.length > 0 ? implied : JSON_TYPES;
}

/** Formats of numbers (OpenAPI Format Registry): the others are formats of strings. */
export const NUMBER_FORMATS: ReadonlySet<string> = new Set(['int32', 'int64', 'float', 'double']);
