import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isReference, resolveLocal, type OpenApiDocument } from 'contract-first';
import { atPointer, readOperations, requiresCredentials } from 'contract-first/check';

// The bundled contract (generated/openapi.json) as the fuzz and security proofs read it. The
// operations, parameters, bodies, responses and security come from the toolkit's reader
// (contract-first/check); what is added here is the service's own: schemas with
// their references resolved (the proofs walk them as plain objects), the write operations (those
// with an Idempotency-Key header), the scopes, and the ErrorType table (type → statuses) that the
// document states in prose.

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

export type ParameterLocation = 'path' | 'query' | 'header' | 'cookie';

export interface ParameterSpec {
  readonly name: string;
  readonly in: ParameterLocation;
  readonly required: boolean;
  readonly schema: JsonSchema;
}

export interface BodySpec {
  readonly required: boolean;
  readonly contentTypes: readonly string[];
  readonly schema: JsonSchema;
  /** The document's own examples of the body (its first media type's). */
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
  /** Status → the schema of its body (first media type), for the statuses that have one. */
  readonly responses: ReadonlyMap<number, JsonSchema>;
}

export interface ApiDocument {
  /** The bundled document as read, for the toolkit's functions that take one. */
  readonly raw: OpenApiDocument;
  readonly operations: readonly OperationSpec[];
  readonly paths: readonly string[];
  readonly schemas: Readonly<Record<string, JsonSchema>>;
  readonly errorTypes: readonly string[];
  /** ErrorType → the statuses the document's table gives it. */
  readonly errorStatuses: ReadonlyMap<string, readonly number[]>;
  readonly scopes: readonly string[];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Resolves every reference of `value`, deeply, through the toolkit's one resolver of local references. */
function resolver(document: object): (value: unknown) => unknown {
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
      table.set(
        match[1],
        match[2]
          .split(',')
          .map((status) => Number(status.trim()))
          .filter(Number.isInteger),
      );
    }
  }
  return table;
}

let cached: ApiDocument | undefined;

export function loadDocument(): ApiDocument {
  if (cached !== undefined) return cached;
  const raw: unknown = JSON.parse(readFileSync(DOCUMENT_PATH, 'utf8'));
  if (!isObject(raw)) throw new Error('the document is not an object');
  const document = raw as unknown as OpenApiDocument;
  const resolve = resolver(document);
  const schemaAt = (pointer: string | undefined): JsonSchema =>
    pointer === undefined ? {} : ((resolve(atPointer(document, pointer)) ?? {}) as JsonSchema);
  const read = readOperations(document);
  if (read.notes.some((note) => note.includes('not read') || note.includes('not checked')))
    throw new Error(`the document cannot be read whole: ${read.notes.join('; ')}`);
  const scopes = new Set<string>();
  const operations = read.operations.map((operation): OperationSpec => {
    const parameters = operation.parameters.map((parameter): ParameterSpec => ({
      name: parameter.name,
      in: parameter.in,
      required: parameter.required,
      schema: schemaAt(parameter.schemaPointer),
    }));
    const [media] = operation.requestBody?.media ?? [];
    const body: BodySpec | undefined =
      operation.requestBody === undefined || media === undefined
        ? undefined
        : {
            required: operation.requestBody.required,
            contentTypes: operation.requestBody.media.map((candidate) => candidate.type),
            schema: schemaAt(media.schemaPointer),
            examples: media.examples,
          };
    // The first alternative's scopes: the service's operations name one scheme each.
    const required = (operation.security[0] === undefined ? [] : Object.values(operation.security[0]).flat()).map(
      String,
    );
    required.forEach((scope) => scopes.add(scope));
    const responses = new Map<number, JsonSchema>();
    for (const response of operation.responses) {
      const first = response.media[0];
      if (first?.schemaPointer !== undefined && Number.isInteger(Number(response.key)))
        responses.set(Number(response.key), schemaAt(first.schemaPointer));
    }
    return {
      operationId: operation.operationId ?? operation.key,
      method: operation.method,
      path: operation.path,
      parameters,
      body,
      authenticated: requiresCredentials(operation.security),
      scopes: required,
      write: parameters.some(
        (parameter) => parameter.in === 'header' && parameter.name.toLowerCase() === 'idempotency-key',
      ),
      statuses: operation.responses.map((response) => Number(response.key)).filter(Number.isInteger),
      responses,
    };
  });

  const components = isObject(raw['components']) ? raw['components'] : {};
  const schemas = resolve(isObject(components['schemas']) ? components['schemas'] : {}) as Record<string, JsonSchema>;
  const errorType = schemas['ErrorType'];
  const errorStatuses = errorStatusTable(errorType?.description ?? '');
  const unmapped = (errorType?.enum ?? []).map(String).filter((type) => !errorStatuses.has(type));
  if (unmapped.length > 0) {
    throw new Error(
      `The ErrorType description's table gives no status for ${unmapped.join(', ')}: the proofs read type → status from it`,
    );
  }
  cached = {
    raw: document,
    operations,
    paths: Object.keys(isObject(raw['paths']) ? raw['paths'] : {}),
    schemas,
    errorTypes: (errorType?.enum ?? []).map(String),
    errorStatuses,
    scopes: [...scopes].sort(),
  };
  return cached;
}
