/**
 * Where a change sits in an OpenAPI document, read from its path alone: which operation, whether
 * in what the partner sends (a request) or receives (a response), and, inside a schema, which
 * property and which keyword.
 */
import type { JsonPath } from './model.js';

export const HTTP_METHODS: ReadonlySet<string> = new Set([
  'get',
  'put',
  'post',
  'delete',
  'options',
  'head',
  'patch',
  'trace',
]);

export type Side = 'request' | 'response';

export interface SchemaLocation {
  readonly side: Side;
  /** The path of the schema's root. */
  readonly root: JsonPath;
  /** The property reached, as `cards[].nickname` (empty at the schema's root). */
  readonly property: string;
  /** The last keyword of the path (`properties`, `type`, `enum`, `maxLength`, …). */
  readonly keyword: string;
  /** The member of a keyword that names one (`properties`: the property; `enum`, `required`: the index), if the path ends there. */
  readonly member?: string | number;
  /** What follows the keyword (and its member), e.g. `[1]` for `type/1`. */
  readonly rest: JsonPath;
}

export interface OperationLocation {
  readonly path: string;
  readonly method: string;
  /** What follows `paths/<path>/<method>`. */
  readonly rest: JsonPath;
}

/** The operation a path is under, if any. */
export function operationOf(path: JsonPath): OperationLocation | undefined {
  const [top, itemPath, method] = path;
  if (top !== 'paths' || typeof itemPath !== 'string' || typeof method !== 'string' || !HTTP_METHODS.has(method))
    return undefined;
  return { path: itemPath, method, rest: path.slice(3) };
}

/** `GET /v1/card`, or `path /v1/card` for a path item's own members. */
export function operationLabel(path: JsonPath): string | undefined {
  const operation = operationOf(path);
  if (operation !== undefined) return `${operation.method.toUpperCase()} ${operation.path}`;
  if (path[0] === 'paths' && typeof path[1] === 'string') return `path ${path[1]}`;
  return undefined;
}

/** The index in `path` where a request or response schema starts, and which side it is on. */
function schemaRoot(path: JsonPath): { side: Side; at: number } | undefined {
  if (path[0] !== 'paths') return undefined;
  // Path-level parameters, when reported on the path item.
  if (path[2] === 'parameters') {
    if (path[4] === 'schema') return { side: 'request', at: 5 };
    if (path[4] === 'content' && path[6] === 'schema') return { side: 'request', at: 7 };
    return undefined;
  }
  if (operationOf(path) === undefined) return undefined;
  const [, , , part, key, sub, , after] = path;
  if (part === 'requestBody' && key === 'content' && path[6] === 'schema') return { side: 'request', at: 7 };
  if (part === 'parameters' && sub === 'schema') return { side: 'request', at: 6 };
  if (part === 'parameters' && sub === 'content' && after === 'schema') return { side: 'request', at: 8 };
  if (part === 'responses' && (sub === 'content' || sub === 'headers') && after === 'schema')
    return { side: 'response', at: 8 };
  return undefined;
}

/** Keywords followed by a name, then a schema. */
const NAMED_SCHEMAS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
/** Keywords followed by an index, then a schema. */
const LISTED_SCHEMAS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
/** Keywords followed by a schema. */
const ONE_SCHEMA = new Set([
  'items',
  'additionalItems',
  'unevaluatedItems',
  'contains',
  'additionalProperties',
  'unevaluatedProperties',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'contentSchema',
]);

/** Reads a path inside a request or response schema; undefined for a path elsewhere. */
export function schemaLocationOf(path: JsonPath): SchemaLocation | undefined {
  const root = schemaRoot(path);
  if (root === undefined) return undefined;
  const tokens = path.slice(root.at);
  let property = '';
  for (let index = 0; index < tokens.length;) {
    const token = tokens[index];
    const next = tokens[index + 1];
    const base = { side: root.side, root: path.slice(0, root.at), property };
    if (typeof token !== 'string') return { ...base, keyword: String(token), rest: tokens.slice(index + 1) };
    if ((NAMED_SCHEMAS.has(token) || LISTED_SCHEMAS.has(token)) && next !== undefined) {
      if (index + 2 === tokens.length) return { ...base, keyword: token, member: next, rest: [] };
      if (token === 'properties') property = property === '' ? String(next) : `${property}.${String(next)}`;
      index += 2;
      continue;
    }
    if (ONE_SCHEMA.has(token)) {
      if (index + 1 === tokens.length) return { ...base, keyword: token, rest: [] };
      if (token === 'items') property = `${property}[]`;
      index += 1;
      continue;
    }
    return { ...base, keyword: token, ...(next === undefined ? {} : { member: next }), rest: tokens.slice(index + 1) };
  }
  return { side: root.side, root: path.slice(0, root.at), property, keyword: '', rest: [] };
}
