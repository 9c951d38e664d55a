import { isReference } from '../codegen/bundle.js';
import { atPointer, escapeToken, follow } from '../check/document.js';
import { ANY, flatten, impliedTypes, mergeShapes, sameJson, type Shape } from '../check/shape.js';

/**
 * What `serve --stateful` reads of the schema of a resource (the object a create responds with and
 * a read returns): its properties, flattened as the checker flattens schemas (check/shape.ts:
 * references followed, `allOf` merged, the properties of each `oneOf`/`anyOf` branch added), which
 * of them are `readOnly` or `writeOnly` and which required, where a field's own schema is, the
 * array a list response holds its items in, and a skeleton of the resource whose every field holds
 * its own JSON pointer, from which the checker's pairing of operations (check/sequences.ts) tells
 * which field names a resource.
 */

type Json = Record<string, unknown>;

/** The shape of the schema at `pointer` of `document`. */
export function shapeAt(document: object, pointer: string): Shape {
  return flatten(document, { $ref: pointer });
}

/** The shape of a value that must match every schema of `schemas`. */
export function shapeOf(document: object, schemas: readonly unknown[]): Shape {
  return schemas.map((schema) => flatten(document, schema)).reduce(mergeShapes, ANY);
}

/** The properties a value of `shape` may have, by name: its own, and those of its alternatives' branches. */
export function propertiesOf(document: object, shape: Shape): ReadonlyMap<string, Shape> {
  const schemas = new Map<string, unknown[]>();
  const add = (from: Shape): void => {
    for (const [name, declared] of from.properties) schemas.set(name, [...(schemas.get(name) ?? []), ...declared]);
  };
  add(shape);
  for (const alternative of shape.alternatives)
    for (const branch of alternative.branches)
      add(flatten(document, branch, { expandDiscriminator: false, keepExamples: false }));
  return new Map([...schemas].map(([name, declared]) => [name, shapeOf(document, declared)]));
}

/** Whether a value of `shape` may have properties its schema does not name. */
export const isOpen = (shape: Shape): boolean => !shape.noExtras && shape.allowedNames === undefined;

/** Whether `value` is a JSON object (not an array, not null). */
export const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The schema objects `pointer` leads to once its references are followed; undefined where there is none. */
export function schemaObject(document: object, pointer: string): object | undefined {
  try {
    return follow(document, atPointer(document, pointer), pointer).value;
  } catch {
    return undefined;
  }
}

/** Whether two schemas (by value, references followed) are one schema: the same object, or equal JSON. */
export function sameSchema(document: object, a: unknown, b: unknown): boolean {
  const resolve = (schema: unknown): unknown => {
    try {
      return isReference(schema) ? follow(document, schema, '#').value : schema;
    } catch {
      return schema;
    }
  };
  const [x, y] = [resolve(a), resolve(b)];
  return x === y || sameJson(x, y);
}

/** Marks the fields of a skeleton: a field holds this prefix and its JSON pointer. */
const FIELD = '\u0000field:';
const NESTING = 3;

/**
 * A skeleton of a value of the schema at `pointer`: an object with each property the schema names,
 * an object property as a skeleton of its own (to a few levels), every other one holding its JSON
 * pointer as `fieldOf` reads it back.
 */
export function skeletonOf(document: object, pointer: string | undefined): Json {
  if (pointer === undefined) return {};
  const build = (shape: Shape, at: string, depth: number): Json => {
    const skeleton: Json = {};
    for (const [name, property] of propertiesOf(document, shape)) {
      const field = `${at}/${escapeToken(name)}`;
      const nested =
        depth < NESTING && impliedTypes(property).includes('object') ? propertiesOf(document, property) : undefined;
      skeleton[name] = nested !== undefined && nested.size > 0 ? build(property, field, depth + 1) : `${FIELD}${field}`;
    }
    return skeleton;
  };
  return build(shapeAt(document, pointer), '', 0);
}

/** The JSON pointer a skeleton's field holds; undefined for any other value. */
export function fieldOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.startsWith(FIELD) ? value.slice(FIELD.length) : undefined;
}

const tokensOf = (pointer: string): string[] =>
  pointer === ''
    ? []
    : pointer
        .slice(1)
        .split('/')
        .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'));

/** The value at a JSON pointer (`/id`, `/owner/id`) of `value`; undefined where there is none. */
export function valueAt(value: unknown, pointer: string): unknown {
  let node = value;
  for (const token of tokensOf(pointer)) {
    if (!isObject(node)) return undefined;
    node = node[token];
  }
  return node;
}

/** `value` with `field` at `pointer`, the objects on the way made where missing. */
export function withValueAt(value: Json, pointer: string, field: unknown): Json {
  const tokens = tokensOf(pointer);
  const last = tokens.pop();
  if (last === undefined) return value;
  const copy = structuredClone(value);
  let node: Json = copy;
  for (const token of tokens) {
    const next = node[token];
    node[token] = isObject(next) ? next : {};
    node = node[token] as Json;
  }
  node[last] = field;
  return copy;
}

/** The pointer of the schema of `field` (a JSON pointer into a value) within the schema at `pointer`; undefined when no member names it. */
export function fieldSchemaPointer(document: object, pointer: string, field: string): string | undefined {
  const tokens = tokensOf(field);
  const search = (at: string, rest: readonly string[], seen: Set<object>): string | undefined => {
    const [token, ...after] = rest;
    if (token === undefined) return at;
    let schema: Json;
    let where: string;
    try {
      ({ value: schema, pointer: where } = follow(document, atPointer(document, at), at));
    } catch {
      return undefined;
    }
    if (seen.has(schema)) return undefined;
    const inner = new Set(seen).add(schema);
    const properties = schema['properties'];
    if (isObject(properties) && token in properties)
      return search(`${where}/properties/${escapeToken(token)}`, after, inner);
    for (const keyword of ['allOf', 'oneOf', 'anyOf']) {
      const members = schema[keyword];
      if (!Array.isArray(members)) continue;
      for (let index = 0; index < members.length; index += 1) {
        const found = search(`${where}/${keyword}/${index}`, rest, inner);
        if (found !== undefined) return found;
      }
    }
    return undefined;
  };
  return search(pointer, tokens, new Set());
}

/** Where a list response holds its items: the response itself (an array), or one of its properties. */
export interface ListForm {
  /** The property of an object response that holds the items; undefined when the response is the array. */
  readonly arrayProperty: string | undefined;
  /** The shape of an item. */
  readonly items: Shape;
  /** Whether an item's schema is one of `resourceSchemas`. */
  readonly sameItems: boolean;
}

/**
 * How the response schema at `pointer` lists items: an array, or an object with an array property
 * (the one whose items are the resource, else its only array property); undefined for any other.
 */
export function listFormOf(
  document: object,
  pointer: string,
  resourceSchemas: readonly object[],
): ListForm | undefined {
  const isResource = (schemas: readonly unknown[]): boolean =>
    schemas.some((schema) => resourceSchemas.some((resource) => sameSchema(document, schema, resource)));
  const shape = shapeAt(document, pointer);
  const types = impliedTypes(shape);
  if (types.includes('array') && !types.includes('object'))
    return { arrayProperty: undefined, items: shapeOf(document, shape.items), sameItems: isResource(shape.items) };
  if (!types.includes('object')) return undefined;
  const arrays = [...propertiesOf(document, shape)].filter(([, property]) => {
    const kinds = impliedTypes(property);
    return kinds.includes('array') && !kinds.includes('object');
  });
  const chosen =
    arrays.find(([, property]) => isResource(property.items)) ?? (arrays.length === 1 ? arrays[0] : undefined);
  if (chosen === undefined) return undefined;
  const [name, property] = chosen;
  return { arrayProperty: name, items: shapeOf(document, property.items), sameItems: isResource(property.items) };
}
