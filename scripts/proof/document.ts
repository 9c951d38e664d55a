import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isReference, resolveLocal } from '../../server/toolkit/openapi-refs.js';

// The bundled contract (generated/openapi.json) as the fuzz and security proofs read it: every
// operation with its parameters, body and scopes, every schema with its references resolved,
// and the ErrorType table (type → statuses) that the document states in prose.

export const DOCUMENT_PATH = fileURLToPath(new URL('../../generated/openapi.json', import.meta.url));

/** The JSON Schema keywords the document uses. */
export interface JsonSchema {
  readonly type?: string | readonly string[];
  readonly enum?: readonly unknown[];
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly format?: string;
  readonly items?: JsonSchema;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: boolean | JsonSchema;
  readonly minProperties?: number;
  readonly oneOf?: readonly JsonSchema[];
  readonly anyOf?: readonly JsonSchema[];
  readonly allOf?: readonly JsonSchema[];
  readonly default?: unknown;
  readonly description?: string;
  readonly title?: string;
}

export type ParameterLocation = 'path' | 'query' | 'header';

export interface ParameterSpec {
  readonly name: string;
  readonly in: ParameterLocation;
  readonly required: boolean;
  readonly schema: JsonSchema;
  /** Query arrays are `form` with `explode: false`: one comma-separated value. */
  readonly explode: boolean;
}

export interface BodySpec {
  readonly required: boolean;
  readonly contentTypes: readonly string[];
  readonly schema: JsonSchema;
  /** The document's own examples of the body. */
  readonly examples: readonly unknown[];
}

export interface OperationSpec {
  readonly operationId: string;
  readonly method: string;
  /** The path as the document writes it, `{id}` for the parameter. */
  readonly path: string;
  readonly parameters: readonly ParameterSpec[];
  readonly body: BodySpec | undefined;
  readonly authenticated: boolean;
  readonly scopes: readonly string[];
  /** The write-request headers apply (Idempotency-Key, timestamp, signature). */
  readonly write: boolean;
  readonly statuses: readonly number[];
  /** Status → the schema of its JSON body (first media type), for the statuses that have one. */
  readonly responses: ReadonlyMap<number, JsonSchema>;
}

export interface ApiDocument {
  readonly operations: readonly OperationSpec[];
  readonly paths: readonly string[];
  readonly schemas: Readonly<Record<string, JsonSchema>>;
  readonly errorTypes: readonly string[];
  /** ErrorType → the statuses the document's table gives it. */
  readonly errorStatuses: ReadonlyMap<string, readonly number[]>;
  readonly scopes: readonly string[];
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Resolves every reference of `value`, deeply, through the toolkit's one resolver of local references. */
function resolver(document: Record<string, unknown>): (value: unknown) => unknown {
  const resolve = (value: unknown, seen: readonly string[]): unknown => {
    if (Array.isArray(value)) return value.map((item: unknown) => resolve(item, seen));
    if (!isObject(value)) return value;
    if (isReference(value)) {
      if (seen.includes(value.$ref)) throw new Error(`recursive reference ${value.$ref}`);
      return resolve(resolveLocal(document, value), [...seen, value.$ref]);
    }
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolve(item, seen)]));
  };
  return (value) => resolve(value, []);
}

/** `| InvalidRequest | 400, 405 | ... |` rows (type in backticks or not) of the ErrorType description. */
function errorStatusTable(description: string): Map<string, number[]> {
  const table = new Map<string, number[]>();
  for (const line of description.split('\n')) {
    const match = /^\|\s*`?([A-Za-z]+)`?\s*\|\s*([0-9,\s]+)\|/.exec(line);
    if (match?.[1] !== undefined && match[2] !== undefined) {
      table.set(match[1], match[2].split(',').map((status) => Number(status.trim())).filter(Number.isInteger));
    }
  }
  return table;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

let cached: ApiDocument | undefined;

export function loadDocument(): ApiDocument {
  if (cached !== undefined) return cached;
  const raw = JSON.parse(readFileSync(DOCUMENT_PATH, 'utf8')) as Json;
  if (!isObject(raw)) throw new Error('the document is not an object');
  const resolve = resolver(raw);
  const paths = isObject(raw['paths']) ? raw['paths'] : {};
  const rootSecurity = raw['security'];
  const operations: OperationSpec[] = [];
  const scopes = new Set<string>();

  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item)) continue;
    const shared = Array.isArray(item['parameters']) ? item['parameters'] : [];
    for (const method of METHODS) {
      const operation = item[method];
      if (!isObject(operation) || typeof operation['operationId'] !== 'string') continue;
      const parameters = (resolve([...shared, ...(Array.isArray(operation['parameters']) ? operation['parameters'] : [])]) as unknown[])
        .filter(isObject)
        .map((parameter): ParameterSpec => ({
          name: String(parameter['name']),
          in: parameter['in'] as ParameterLocation,
          required: parameter['required'] === true,
          schema: (parameter['schema'] ?? {}) as JsonSchema,
          explode: parameter['explode'] !== false,
        }));
      let body: BodySpec | undefined;
      const requestBody = resolve(operation['requestBody']);
      if (isObject(requestBody) && isObject(requestBody['content'])) {
        const content = requestBody['content'];
        const [firstType] = Object.keys(content);
        const media = firstType === undefined ? undefined : content[firstType];
        const examples = isObject(media) && isObject(media['examples'])
          ? Object.values(media['examples']).filter(isObject).map((example) => example['value'])
          : [];
        body = {
          required: requestBody['required'] === true,
          contentTypes: Object.keys(content),
          schema: (isObject(media) ? media['schema'] ?? {} : {}) as JsonSchema,
          examples,
        };
      }
      const security = (operation['security'] ?? rootSecurity ?? []) as unknown[];
      const requirement = security.find(isObject);
      const required = requirement === undefined ? [] : Object.values(requirement).flatMap((value) => (Array.isArray(value) ? value.map(String) : []));
      required.forEach((scope) => scopes.add(scope));
      const responses = new Map<number, JsonSchema>();
      const declared = resolve(operation['responses']);
      if (isObject(declared)) {
        for (const [status, response] of Object.entries(declared)) {
          const content = isObject(response) && isObject(response['content']) ? response['content'] : undefined;
          const media = content === undefined ? undefined : Object.values(content).find(isObject);
          if (media !== undefined && isObject(media['schema'])) responses.set(Number(status), media['schema'] as JsonSchema);
        }
      }
      operations.push({
        operationId: operation['operationId'],
        method: method.toUpperCase(),
        path,
        parameters,
        body,
        authenticated: requirement !== undefined,
        scopes: required,
        write: parameters.some((parameter) => parameter.in === 'header' && parameter.name.toLowerCase() === 'idempotency-key'),
        statuses: isObject(operation['responses']) ? Object.keys(operation['responses']).map(Number).filter(Number.isInteger) : [],
        responses,
      });
    }
  }

  const components = isObject(raw['components']) ? raw['components'] : {};
  const schemas = resolve(isObject(components['schemas']) ? components['schemas'] : {}) as Record<string, JsonSchema>;
  const errorType = schemas['ErrorType'];
  const errorStatuses = errorStatusTable(errorType?.description ?? '');
  const unmapped = (errorType?.enum ?? []).map(String).filter((type) => !errorStatuses.has(type));
  if (unmapped.length > 0) {
    throw new Error(`The ErrorType description's table gives no status for ${unmapped.join(', ')}: the proofs read type → status from it`);
  }
  cached = {
    operations,
    paths: Object.keys(paths),
    schemas,
    errorTypes: (errorType?.enum ?? []).map(String),
    errorStatuses,
    scopes: [...scopes].sort(),
  };
  return cached;
}

/** The schema's type names (a `type` array, or one type). */
export function typesOf(schema: JsonSchema): string[] {
  if (schema.type === undefined) return schema.enum !== undefined ? ['string'] : [];
  return typeof schema.type === 'string' ? [schema.type] : [...schema.type];
}
