// Tests about the contract itself (openapi/openapi.yaml): its examples, its operations, the
// write-request headers, security, errors and schemas. They read the document exactly as the
// generator and the server do: bundled by Redocly, here in-process and fully dereferenced, and
// read the operations from it: a new operation is held to the same rules, and a test that fails
// says what it lacks. The house rules a designer meets at the line (responses every operation
// declares, closed schemas, examples, operationIds, unreferenced files) are lint rules:
// redocly.yaml, tested by test/contract/lint-rules.test.ts.
import { describe, it, expect } from 'vitest';
import { fileURLToPath } from 'node:url';
import { bundle, loadConfig } from '@redocly/openapi-core';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ---------------------------------------------------------------------------------------------
// The slice of OpenAPI 3.1 these tests read.

interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  required?: string[];
  items?: Schema;
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
  enum?: unknown[];
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minProperties?: number;
  pattern?: string;
  examples?: unknown[];
}
interface Example {
  summary?: string;
  value: unknown;
}
interface MediaType {
  schema: Schema;
  example?: unknown;
  examples?: Record<string, Example>;
}
interface Header {
  schema: Schema;
  required?: boolean;
  example?: unknown;
  examples?: Record<string, Example>;
}
interface Parameter {
  name: string;
  in: 'query' | 'header' | 'path' | 'cookie';
  required?: boolean;
  schema: Schema;
  style?: string;
  explode?: boolean;
  example?: unknown;
  examples?: Record<string, Example>;
}
interface Response {
  description: string;
  headers?: Record<string, Header>;
  content?: Record<string, MediaType>;
}
interface Operation {
  operationId: string;
  tags: string[];
  summary: string;
  description: string;
  security?: Record<string, string[]>[];
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, MediaType> };
  responses: Record<string, Response>;
}
type PathItem = Partial<Record<HttpMethod, Operation>> & { parameters?: Parameter[] };
interface OpenApiDocument {
  openapi: string;
  paths: Record<string, PathItem>;
  components: {
    schemas: Record<string, Schema>;
    securitySchemes: Record<string, unknown>;
  };
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
type HttpMethod = (typeof HTTP_METHODS)[number];

// ---------------------------------------------------------------------------------------------
// The document, bundled and dereferenced the way Redocly does it for the generator.

const rootPath = fileURLToPath(new URL('../../openapi/openapi.yaml', import.meta.url));
const configPath = fileURLToPath(new URL('../../redocly.yaml', import.meta.url));

async function loadBundledDocument(): Promise<OpenApiDocument> {
  const config = await loadConfig({ configPath });
  const result = await bundle({ ref: rootPath, config, dereference: true });
  if (result.problems.length > 0) {
    throw new Error(`bundling failed: ${result.problems.map((p) => p.message).join('; ')}`);
  }
  const parsed: OpenApiDocument = result.bundle.parsed;
  return parsed;
}

const doc = await loadBundledDocument();

interface OperationEntry {
  method: HttpMethod;
  path: string;
  operation: Operation;
  parameters: Parameter[];
}

const operations: OperationEntry[] = Object.entries(doc.paths).flatMap(([path, item]) =>
  HTTP_METHODS.flatMap((method) => {
    const operation = item[method];
    if (operation === undefined) return [];
    // Operation parameters override path-level ones of the same name and location.
    const own = operation.parameters ?? [];
    const inherited = (item.parameters ?? []).filter((p) => !own.some((o) => o.name === p.name && o.in === p.in));
    return [{ method, path, operation, parameters: [...inherited, ...own] }];
  }),
);

function operationById(operationId: string): OperationEntry {
  const entry = operations.find((o) => o.operation.operationId === operationId);
  if (entry === undefined) throw new Error(`no operation ${operationId}`);
  return entry;
}

function mediaTypesOf(op: Operation): [string, MediaType][] {
  return Object.entries(op.requestBody?.content ?? {});
}

// ---------------------------------------------------------------------------------------------
// A JSON Schema 2020-12 validator, strict, with OpenAPI's integer formats.

// ajv-formats is CommonJS: under NodeNext its default import is the module object.
const addFormats = addFormatsModule.default;
const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats(ajv);
// int64 values must stay exact in JSON: safe integers only (README, "Design").
ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
ajv.addFormat('int32', {
  type: 'number',
  validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31,
});

const compiled = new WeakMap<Schema, ValidateFunction>();
function validatorFor(schema: Schema): ValidateFunction {
  let validate = compiled.get(schema);
  if (validate === undefined) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

function validationErrors(schema: Schema, value: unknown): string[] {
  const validate = validatorFor(schema);
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
}

// ---------------------------------------------------------------------------------------------
// Every example in the document, with the schema it illustrates.

interface ExampleCase {
  where: string;
  schema: Schema;
  value: unknown;
}

function examplesOf(
  where: string,
  holder: { schema: Schema; example?: unknown; examples?: Record<string, Example> },
): ExampleCase[] {
  const cases: ExampleCase[] = [];
  if (holder.example !== undefined) {
    cases.push({ where: `${where} example`, schema: holder.schema, value: holder.example });
  }
  for (const [name, example] of Object.entries(holder.examples ?? {})) {
    cases.push({ where: `${where} examples.${name}`, schema: holder.schema, value: example.value });
  }
  return cases;
}

function schemaExamples(where: string, schema: Schema, seen = new Set<Schema>()): ExampleCase[] {
  if (seen.has(schema)) return [];
  seen.add(schema);
  const own = (schema.examples ?? []).map((value, i) => ({
    where: `${where} examples[${i}]`,
    schema,
    value,
  }));
  const children: [string, Schema][] = [
    ...Object.entries(schema.properties ?? {}).map(([k, s]): [string, Schema] => [`${where}.${k}`, s]),
    ...(schema.items ? [[`${where}[]`, schema.items] as [string, Schema]] : []),
    ...[...(schema.oneOf ?? []), ...(schema.anyOf ?? []), ...(schema.allOf ?? [])].map((s, i): [string, Schema] => [
      `${where}|${i}`,
      s,
    ]),
  ];
  return [...own, ...children.flatMap(([w, s]) => schemaExamples(w, s, seen))];
}

const exampleCases: ExampleCase[] = [
  ...operations.flatMap(({ method, path, operation, parameters }) => {
    const op = `${method.toUpperCase()} ${path}`;
    return [
      ...parameters.flatMap((p) => examplesOf(`${op} parameter ${p.name}`, p)),
      ...mediaTypesOf(operation).flatMap(([mt, media]) => examplesOf(`${op} request ${mt}`, media)),
      ...Object.entries(operation.responses).flatMap(([status, response]) => [
        ...Object.entries(response.content ?? {}).flatMap(([mt, media]) => examplesOf(`${op} ${status} ${mt}`, media)),
        ...Object.entries(response.headers ?? {}).flatMap(([name, header]) =>
          examplesOf(`${op} ${status} header ${name}`, header),
        ),
      ]),
    ];
  }),
  ...Object.entries(doc.components.schemas).flatMap(([name, schema]) => schemaExamples(name, schema)),
];

describe('examples', () => {
  it('are plentiful', () => {
    expect(exampleCases.length).toBeGreaterThan(150);
  });

  it.each(exampleCases.map((c) => [c.where, c] as const))('%s validates against its schema', (_, c) => {
    expect(validationErrors(c.schema, c.value)).toEqual([]);
  });

  it('exist, named and summarised, on every request body and every response with a body', () => {
    const missing: string[] = [];
    for (const { method, path, operation } of operations) {
      const op = `${method.toUpperCase()} ${path}`;
      const bodies: [string, MediaType][] = [
        ...mediaTypesOf(operation).map(([mt, m]): [string, MediaType] => [`${op} request ${mt}`, m]),
        ...Object.entries(operation.responses).flatMap(([status, r]) =>
          Object.entries(r.content ?? {}).map(([mt, m]): [string, MediaType] => [`${op} ${status} ${mt}`, m]),
        ),
      ];
      for (const [where, media] of bodies) {
        const examples = Object.values(media.examples ?? {});
        if (examples.length === 0 || examples.some((e) => !e.summary)) missing.push(where);
      }
    }
    expect(missing).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// Operations, read from the document: what each must declare follows from what it is. Its 400,
// 401, 403 and 500 responses, its operationId and its tag are lint rules (redocly.yaml,
// test/contract/lint-rules.test.ts); what follows is the contract of this service.

// The write headers (the document's "Signed write requests" section).
const BASE64_PATTERN = '^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$';
const WRITE_HEADERS: Record<string, Schema> = {
  'Idempotency-Key': { type: 'string', minLength: 12, maxLength: 36 },
  'X-Partner-Request-Timestamp': { type: 'integer', format: 'int64', minimum: 0 },
  'X-Partner-Signature': { type: 'string', minLength: 1, maxLength: 2048, pattern: BASE64_PATTERN },
};

function headerParameter(entry: OperationEntry, name: string): Parameter | undefined {
  return entry.parameters.find((p) => p.in === 'header' && p.name.toLowerCase() === name.toLowerCase());
}

/** A signed write declares the write headers (as server/http/route-policy.ts reads the route table). */
const isWrite = (entry: OperationEntry) =>
  Object.keys(WRITE_HEADERS).some((name) => headerParameter(entry, name) !== undefined);
const writeOperations = operations.filter(isWrite).map((o) => o.operation.operationId);

const scopesOf = (operation: Operation) =>
  (operation.security ?? []).flatMap((requirement) => Object.values(requirement).flat());

interface OAuthScheme {
  type: 'oauth2';
  flows: { clientCredentials: { tokenUrl: string; scopes: Record<string, string> } };
}
const oauth2 = doc.components.securitySchemes.oauth2 as OAuthScheme;
/** The token endpoint: the path of the oauth2 scheme's tokenUrl. */
const tokenPath = new URL(oauth2.flows.clientCredentials.tokenUrl).pathname;

// The operations that take no bearer token, and why: any other must require one scope.
const PUBLIC_OPERATIONS: Record<string, string> = {
  listBanks: 'the bank list is public and cacheable',
  createToken: 'the token endpoint authenticates the client itself',
};

/** The resource of a path, its first segment after the version: /v1/card/{id}/limits -> card. */
const resourceOf = (path: string) => path.split('/')[2] ?? path;

describe('operations', () => {
  it('are read from the document: some public, some signed writes', () => {
    expect(operations.length).toBeGreaterThan(Object.keys(PUBLIC_OPERATIONS).length);
    expect(writeOperations.length).toBeGreaterThan(0);
    expect(operations.map((o) => o.path)).toContain(tokenPath);
  });

  it.each(operations.map((o) => [o.operation.operationId, o] as const))(
    '%s is described, and requires one scope its description names (a write scope for a signed write), or is public',
    (operationId, entry) => {
      const { operation } = entry;
      expect(operation.description.length).toBeGreaterThan(40);
      expect(operation.security, `${operationId} declares its security`).toBeDefined();
      const publicReason = PUBLIC_OPERATIONS[operationId];
      if (publicReason !== undefined) {
        expect(operation.security, `${operationId}: ${publicReason}`).toEqual([]);
        return;
      }
      expect(
        operation.security,
        `${operationId} is public, but not one of ${Object.keys(PUBLIC_OPERATIONS).join(', ')}`,
      ).not.toEqual([]);
      expect(Object.keys(operation.security?.[0] ?? {}), `${operationId}: one oauth2 requirement`).toEqual(['oauth2']);
      expect(operation.security).toHaveLength(1);
      const scopes = scopesOf(operation);
      expect(scopes, `${operationId} requires one scope`).toHaveLength(1);
      const [scope = ''] = scopes;
      expect(Object.keys(oauth2.flows.clientCredentials.scopes)).toContain(scope);
      expect(operation.description, `${operationId} names its scope`).toContain(`Requires the \`${scope}\` scope.`);
      expect(
        isWrite(entry),
        `${operationId} requires ${scope}: a write scope goes with the write headers (a signed write), a read scope without them`,
      ).toBe(scope.endsWith(':write'));
    },
  );

  it('share one tag per resource, a tag no other resource has', () => {
    const tagsByResource = new Map<string, Set<string>>();
    for (const { path, operation } of operations) {
      const tags = tagsByResource.get(resourceOf(path)) ?? new Set<string>();
      operation.tags.forEach((tag) => tags.add(tag));
      tagsByResource.set(resourceOf(path), tags);
    }
    for (const [resource, tags] of tagsByResource) expect([...tags], resource).toHaveLength(1);
    const tags = [...tagsByResource.values()].flatMap((t) => [...t]);
    expect(new Set(tags).size).toBe(tags.length);
  });

  it('declares the oauth2 client-credentials scheme with the four scopes', () => {
    expect(doc.components.securitySchemes).toEqual({
      oauth2: expect.objectContaining({
        type: 'oauth2',
        flows: {
          clientCredentials: {
            tokenUrl: expect.stringMatching(/\/v1\/oauth\/token$/),
            scopes: {
              'cards:read': expect.any(String),
              'cards:write': expect.any(String),
              'transfers:read': expect.any(String),
              'transfers:write': expect.any(String),
            },
          },
        },
      }),
    });
  });
});

describe('write headers', () => {
  it.each(writeOperations)('%s requires the three write headers with their bounds', (operationId) => {
    const entry = operationById(operationId);
    for (const [name, schema] of Object.entries(WRITE_HEADERS)) {
      const parameter = headerParameter(entry, name);
      expect(parameter, name).toBeDefined();
      expect(parameter?.required, name).toBe(true);
      expect(parameter?.schema, name).toMatchObject(schema);
    }
  });

  const signature = operationById('createTransfer').parameters.find((p) => p.name === 'X-Partner-Signature');
  it.each([
    ['standard Base64 with padding', 'QUJDRA==', true],
    ['standard Base64 with + and /', 'ab+/cd9=', true],
    ['standard Base64 without padding', 'QUJDRA', false],
    ['base64url alphabet', 'oTae-PX2r8eh_ps=', false],
    ['whitespace', 'QUJD RA==', false],
    ['empty', '', false],
  ] as const)('the signature accepts %s: %s', (_, value, valid) => {
    if (signature === undefined) throw new Error('no X-Partner-Signature parameter');
    expect(validationErrors(signature.schema, value).length === 0).toBe(valid);
  });
});

// ---------------------------------------------------------------------------------------------
// Responses and errors (the document's "Errors" section and ErrorType table).

const ERROR_TYPES = [
  'NotFound',
  'InvalidRequest',
  'InternalError',
  'InsufficientFunds',
  'InvalidBankAccount',
  'DuplicateIdempotencyKey',
  'Unauthorized',
  'InvalidSignature',
  'MissingSignature',
  'MissingIdempotencyKey',
];

// Every status an operation can respond with, and the error types each status may carry there,
// follow from what the operation is: whether it takes input, a body, an id in its path or a
// token, whether it is a signed write or the token endpoint. Beyond those, an operation's own
// rules may reject a request with an error type of their own (400).
type ErrorStatuses = Record<string, string[]>;
const OWN_ERRORS: Record<string, string[]> = {
  createTransfer: ['InvalidBankAccount'],
  executeTransfer: ['InsufficientFunds'],
};

function expectedResponses(entry: OperationEntry): { success: string[]; errors: ErrorStatuses } {
  const { operation, parameters, path } = entry;
  const write = isWrite(entry);
  const hasBody = operation.requestBody !== undefined;
  const errors: ErrorStatuses = {};
  if (parameters.length > 0 || hasBody) {
    errors['400'] = [
      'InvalidRequest',
      ...(write ? ['MissingIdempotencyKey'] : []),
      ...(OWN_ERRORS[operation.operationId] ?? []),
    ];
  }
  if (scopesOf(operation).length > 0) {
    errors['401'] = ['Unauthorized', ...(write ? ['MissingSignature', 'InvalidSignature'] : [])];
    errors['403'] = ['Unauthorized'];
  }
  if (path.includes('{')) errors['404'] = ['NotFound'];
  if (write) {
    errors['409'] = ['DuplicateIdempotencyKey'];
    errors['422'] = ['DuplicateIdempotencyKey'];
  }
  if (hasBody) {
    errors['413'] = ['InvalidRequest'];
    errors['415'] = ['InvalidRequest'];
  }
  if (path === tokenPath) {
    // The token endpoint authenticates the client (401 invalid_client) and limits its attempts.
    errors['401'] = ['Unauthorized'];
    errors['429'] = ['InvalidRequest'];
  }
  errors['500'] = ['InternalError'];
  // A request that does not complete within its time bound (a database statement or lock wait).
  errors['503'] = ['InternalError'];
  const conditional = parameters.some((p) => p.in === 'header' && p.name === 'If-None-Match');
  return { success: ['200', ...(conditional ? ['304'] : [])], errors };
}

function exampleValues(response: Response): unknown[] {
  return Object.values(response.content ?? {}).flatMap((m) => Object.values(m.examples ?? {}).map((e) => e.value));
}

function errorTypeOf(value: unknown): unknown {
  return typeof value === 'object' && value !== null && 'type' in value ? value.type : undefined;
}

describe('responses', () => {
  it('ErrorType lists the ten error types', () => {
    expect(doc.components.schemas.ErrorType?.enum).toEqual(ERROR_TYPES);
  });

  it('list own error types only for operations of the document', () => {
    expect(Object.keys(OWN_ERRORS).filter((id) => !operations.some((o) => o.operation.operationId === id))).toEqual([]);
  });

  it.each(operations.map((o) => [o.operation.operationId, o] as const))(
    '%s declares exactly its statuses, and its error examples show only errors it can give',
    (operationId, entry) => {
      const { operation } = entry;
      const expected = expectedResponses(entry);
      expect(Object.keys(operation.responses).sort(), `${operationId} responds with exactly these statuses`).toEqual(
        [...expected.success, ...Object.keys(expected.errors)].sort(),
      );
      for (const [status, types] of Object.entries(expected.errors)) {
        const response = operation.responses[status];
        if (response === undefined) throw new Error(`${operationId} has no ${status}`);
        const shown = new Set(exampleValues(response).map(errorTypeOf));
        expect(
          [...shown].every((t) => typeof t === 'string' && types.includes(t)),
          `${operationId} ${status} shows ${[...shown].join(', ')}; it can give ${types.join(', ')}`,
        ).toBe(true);
        expect(shown.size, `${operationId} ${status} has error examples`).toBeGreaterThan(0);
      }
    },
  );

  it('respond with an X-Request-Id header at every status', () => {
    for (const { operation } of operations) {
      for (const [status, response] of Object.entries(operation.responses)) {
        expect(response.headers?.['X-Request-Id'], `${operation.operationId} ${status}`).toBeDefined();
      }
    }
  });

  it.each(writeOperations)('%s marks replayable responses with Idempotent-Replayed', (operationId) => {
    const { operation } = operationById(operationId);
    expect(operation.responses['200']?.headers?.['Idempotent-Replayed']?.schema.enum).toEqual([true]);
    // Failures before the operation runs are never stored, so never replayed.
    for (const status of ['401', '403', '409', '413', '415', '422', '500', '503']) {
      expect(operation.responses[status]?.headers?.['Idempotent-Replayed'], `${operationId} ${status}`).toBeUndefined();
    }
  });

  it('challenges with WWW-Authenticate on the 401 and 403 of bearer operations', () => {
    for (const { operation } of operations.filter((o) => (o.operation.security ?? []).length > 0)) {
      expect(operation.responses['401']?.headers?.['WWW-Authenticate'], operation.operationId).toBeDefined();
      expect(operation.responses['403']?.headers?.['WWW-Authenticate'], operation.operationId).toBeDefined();
    }
  });

  it('lets the bank list be cached and revalidated', () => {
    const { operation, parameters } = operationById('listBanks');
    expect(parameters.map((p) => p.name)).toEqual(['If-None-Match']);
    for (const status of ['200', '304']) {
      expect(Object.keys(operation.responses[status]?.headers ?? {}).sort()).toEqual([
        'Cache-Control',
        'ETag',
        'X-Request-Id',
      ]);
    }
    expect(operation.responses['304']?.content).toBeUndefined();
  });

  it('keeps token responses out of caches and says when to retry', () => {
    const { operation } = operationById('createToken');
    const ok = operation.responses['200']?.headers;
    expect(ok?.['Cache-Control']?.schema.enum).toEqual(['no-store']);
    expect(ok?.['Pragma']?.schema.enum).toEqual(['no-cache']);
    expect(operation.responses['401']?.headers?.['WWW-Authenticate']).toBeDefined();
    expect(operation.responses['429']?.headers?.['Retry-After']?.required).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
// Schemas: bounded money, which fields may be null and which are required. (Closed objects are
// the lint rule house/schema-closed.)

function int64WithoutBounds(schema: Schema, where: string, seen = new Set<Schema>()): string[] {
  if (seen.has(schema)) return [];
  seen.add(schema);
  const own =
    schema.format === 'int64' && (schema.minimum === undefined || schema.maximum === undefined) ? [where] : [];
  const children: [string, Schema][] = [
    ...Object.entries(schema.properties ?? {}).map(([k, s]): [string, Schema] => [`${where}.${k}`, s]),
    ...(schema.items ? [[`${where}[]`, schema.items] as [string, Schema]] : []),
    ...[...(schema.oneOf ?? []), ...(schema.anyOf ?? [])].map((s, i): [string, Schema] => [`${where}|${i}`, s]),
  ];
  return [...own, ...children.flatMap(([w, s]) => int64WithoutBounds(s, w, seen))];
}

function componentSchema(name: string): Schema {
  const schema = doc.components.schemas[name];
  if (schema === undefined) throw new Error(`no schema ${name}`);
  return schema;
}

describe('schemas', () => {
  it('bound every int64 of a body explicitly, so it stays exact in JSON', () => {
    const unbounded = Object.entries(doc.components.schemas).flatMap(([name, s]) => int64WithoutBounds(s, name));
    expect(unbounded).toEqual([]);
  });

  it('take card limits only as application/merge-patch+json, required', () => {
    for (const operationId of ['setCardLimits', 'updateCardLimits']) {
      const { operation } = operationById(operationId);
      expect(operation.requestBody?.required, operationId).toBe(true);
      expect(Object.keys(operation.requestBody?.content ?? {}), operationId).toEqual(['application/merge-patch+json']);
    }
  });

  it('give Transaction.reviewStatus the ReviewStatus values plus null', () => {
    const reviewStatus = componentSchema('Transaction').properties?.reviewStatus;
    expect(reviewStatus?.type).toEqual(['string', 'null']);
    expect(reviewStatus?.enum).toEqual([...(componentSchema('ReviewStatus').enum ?? []), null]);
    expect(componentSchema('Transaction').required).not.toContain('reviewStatus');
  });

  it.each([
    ['Card', 'last4', ['string', 'null'], true],
    ['Card', 'availableBalance', ['integer', 'null'], true],
    ['CardLimits', 'approvalBased', ['integer', 'null'], true],
    ['Transfer', 'reviewedAt', ['integer', 'null'], false],
    ['Transfer', 'cancelledAt', ['integer', 'null'], false],
    ['Transaction', 'department', ['string', 'null'], true],
    ['Transaction', 'last4', ['string', 'null'], true],
  ] as const)('%s.%s is %j, required: %s', (name, property, type, required) => {
    const schema = componentSchema(name);
    expect(schema.properties?.[property]?.type).toEqual(type);
    expect(schema.required?.includes(property)).toBe(required);
  });

  const setLimits = componentSchema('SetCardLimitsRequest');
  it.each([
    ['plain limits', { daily: 0, monthly: 300000000, atm: 300000000 }, true],
    ['plain limits with approvalBased null', { daily: 1, monthly: 2, atm: 3, approvalBased: null }, true],
    ['approval-based alone', { approvalBased: 99999999999 }, true],
    ['both shapes', { daily: 1, monthly: 2, atm: 3, approvalBased: 4 }, false],
    ['a negative limit', { daily: -1, monthly: 2, atm: 3 }, false],
    ['daily above its maximum', { daily: 100000001, monthly: 2, atm: 3 }, false],
    ['a missing limit', { daily: 1, monthly: 2 }, false],
    ['approvalBased null alone', { approvalBased: null }, false],
    ['an unknown property', { approvalBased: 1, cardId: 'crd_1' }, false],
  ] as const)('SetCardLimitsRequest: %s -> valid %s', (_, body, valid) => {
    expect(validationErrors(setLimits, body).length === 0).toBe(valid);
  });

  const updateLimits = componentSchema('UpdateCardLimitsRequest');
  it.each([
    ['one negative delta', { daily: -100000000 }, true],
    ['approvalBased delta', { approvalBased: -99999999999 }, true],
    ['an empty body', {}, false],
    ['approvalBased null', { approvalBased: null }, false],
    ['monthly below its range', { monthly: -300000001 }, false],
    ['an unknown property', { daily: 1, weekly: 1 }, false],
  ] as const)('UpdateCardLimitsRequest: %s -> valid %s', (_, body, valid) => {
    expect(validationErrors(updateLimits, body).length === 0).toBe(valid);
  });
});
