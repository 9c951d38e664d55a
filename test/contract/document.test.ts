// Tests about the contract itself (openapi/openapi.yaml): its examples, its operations, the
// write-request headers, security, errors and closed schemas. They read the document exactly as
// the generator and the server do: bundled by Redocly, here in-process and fully dereferenced.
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
const configPath = fileURLToPath(new URL('../../openapi/redocly.yaml', import.meta.url));

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
    const inherited = (item.parameters ?? []).filter(
      (p) => !own.some((o) => o.name === p.name && o.in === p.in),
    );
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
  return validate(value)
    ? []
    : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
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
    ...[...(schema.oneOf ?? []), ...(schema.anyOf ?? []), ...(schema.allOf ?? [])].map(
      (s, i): [string, Schema] => [`${where}|${i}`, s],
    ),
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
        ...Object.entries(response.content ?? {}).flatMap(([mt, media]) =>
          examplesOf(`${op} ${status} ${mt}`, media),
        ),
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
// Operations: exactly the twelve of the partner API plus the token endpoint, thirteen in all.

const WRITE_OPERATIONS = [
  'setCardLimits',
  'updateCardLimits',
  'createTransfer',
  'cancelTransfer',
  'executeTransfer',
];

const EXPECTED_OPERATIONS: {
  method: HttpMethod;
  path: string;
  operationId: string;
  tag: string;
  security: Record<string, string[]>[];
}[] = [
  { method: 'get', path: '/v1/bank', operationId: 'listBanks', tag: 'Banks', security: [] },
  { method: 'get', path: '/v1/card', operationId: 'listCards', tag: 'Cards', security: [{ oauth2: ['cards:read'] }] },
  { method: 'get', path: '/v1/card/{id}', operationId: 'getCard', tag: 'Cards', security: [{ oauth2: ['cards:read'] }] },
  { method: 'put', path: '/v1/card/{id}/limits', operationId: 'setCardLimits', tag: 'Cards', security: [{ oauth2: ['cards:write'] }] },
  { method: 'patch', path: '/v1/card/{id}/limits', operationId: 'updateCardLimits', tag: 'Cards', security: [{ oauth2: ['cards:write'] }] },
  { method: 'get', path: '/v1/transfer', operationId: 'listTransfers', tag: 'Transfers', security: [{ oauth2: ['transfers:read'] }] },
  { method: 'post', path: '/v1/transfer', operationId: 'createTransfer', tag: 'Transfers', security: [{ oauth2: ['transfers:write'] }] },
  { method: 'get', path: '/v1/transfer/{id}', operationId: 'getTransfer', tag: 'Transfers', security: [{ oauth2: ['transfers:read'] }] },
  { method: 'post', path: '/v1/transfer/{id}/cancel', operationId: 'cancelTransfer', tag: 'Transfers', security: [{ oauth2: ['transfers:write'] }] },
  { method: 'post', path: '/v1/transfer/{id}/execute', operationId: 'executeTransfer', tag: 'Transfers', security: [{ oauth2: ['transfers:write'] }] },
  // The transaction operations need cards:read, as the document's scope table says.
  { method: 'get', path: '/v1/transaction', operationId: 'listTransactions', tag: 'Transactions', security: [{ oauth2: ['cards:read'] }] },
  { method: 'get', path: '/v1/transaction/{id}', operationId: 'getTransaction', tag: 'Transactions', security: [{ oauth2: ['cards:read'] }] },
  { method: 'post', path: '/v1/oauth/token', operationId: 'createToken', tag: 'Authentication', security: [] },
];

describe('operations', () => {
  it('are exactly the 13 of the contract', () => {
    const actual = operations.map((o) => `${o.method} ${o.path} ${o.operation.operationId}`).sort();
    const expected = EXPECTED_OPERATIONS.map((o) => `${o.method} ${o.path} ${o.operationId}`).sort();
    expect(actual).toEqual(expected);
  });

  it.each(EXPECTED_OPERATIONS.map((e) => [e.operationId, e] as const))(
    '%s has one tag, a summary, a description and its security requirement',
    (operationId, expected) => {
      const { operation } = operationById(operationId);
      expect(operation.tags).toEqual([expected.tag]);
      expect(operation.summary.length).toBeGreaterThan(0);
      expect(operation.description.length).toBeGreaterThan(40);
      expect(operation.security).toEqual(expected.security);
    },
  );

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

// ---------------------------------------------------------------------------------------------
// Write headers (the document's "Signed write requests" section).

const BASE64_PATTERN = '^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$';
const WRITE_HEADERS: Record<string, Schema> = {
  'Idempotency-Key': { type: 'string', minLength: 12, maxLength: 36 },
  'X-Partner-Request-Timestamp': { type: 'integer', format: 'int64', minimum: 0 },
  'X-Partner-Signature': { type: 'string', minLength: 1, maxLength: 2048, pattern: BASE64_PATTERN },
};

function headerParameter(entry: OperationEntry, name: string): Parameter | undefined {
  return entry.parameters.find((p) => p.in === 'header' && p.name.toLowerCase() === name.toLowerCase());
}

describe('write headers', () => {
  it.each(WRITE_OPERATIONS)('%s requires the three write headers with their bounds', (operationId) => {
    const entry = operationById(operationId);
    for (const [name, schema] of Object.entries(WRITE_HEADERS)) {
      const parameter = headerParameter(entry, name);
      expect(parameter, name).toBeDefined();
      expect(parameter?.required, name).toBe(true);
      expect(parameter?.schema, name).toMatchObject(schema);
    }
  });

  it('appear on no other operation', () => {
    const others = operations.filter((o) => !WRITE_OPERATIONS.includes(o.operation.operationId));
    expect(others).toHaveLength(8);
    for (const entry of others) {
      for (const name of Object.keys(WRITE_HEADERS)) {
        expect(headerParameter(entry, name), `${entry.operation.operationId} ${name}`).toBeUndefined();
      }
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

// Every status each operation can answer, and the error types each status may carry there.
type ErrorStatuses = Record<string, string[]>;
const READ_ERRORS: ErrorStatuses = {
  '400': ['InvalidRequest'],
  '401': ['Unauthorized'],
  '403': ['Unauthorized'],
  '500': ['InternalError'],
};
const READ_BY_ID_ERRORS: ErrorStatuses = { ...READ_ERRORS, '404': ['NotFound'] };
const WRITE_ERRORS: ErrorStatuses = {
  '400': ['InvalidRequest', 'MissingIdempotencyKey'],
  '401': ['Unauthorized', 'MissingSignature', 'InvalidSignature'],
  '403': ['Unauthorized'],
  '404': ['NotFound'],
  '409': ['DuplicateIdempotencyKey'],
  '413': ['InvalidRequest'],
  '415': ['InvalidRequest'],
  '422': ['DuplicateIdempotencyKey'],
  '500': ['InternalError'],
};
function without(errors: ErrorStatuses, ...statuses: string[]): ErrorStatuses {
  return Object.fromEntries(Object.entries(errors).filter(([status]) => !statuses.includes(status)));
}
// Cancel and execute have no body (no 413/415); create has no id (no 404).
const WRITE_ERRORS_WITHOUT_BODY = without(WRITE_ERRORS, '413', '415');
const WRITE_ERRORS_WITHOUT_ID = without(WRITE_ERRORS, '404');

const EXPECTED_RESPONSES: Record<string, { success: string[]; errors: ErrorStatuses }> = {
  listBanks: { success: ['200', '304'], errors: { '400': ['InvalidRequest'], '500': ['InternalError'] } },
  listCards: { success: ['200'], errors: READ_ERRORS },
  getCard: { success: ['200'], errors: READ_BY_ID_ERRORS },
  setCardLimits: { success: ['200'], errors: WRITE_ERRORS },
  updateCardLimits: { success: ['200'], errors: WRITE_ERRORS },
  listTransfers: { success: ['200'], errors: READ_ERRORS },
  createTransfer: {
    success: ['200'],
    errors: { ...WRITE_ERRORS_WITHOUT_ID, '400': ['InvalidRequest', 'MissingIdempotencyKey', 'InvalidBankAccount'] },
  },
  getTransfer: { success: ['200'], errors: READ_BY_ID_ERRORS },
  cancelTransfer: { success: ['200'], errors: WRITE_ERRORS_WITHOUT_BODY },
  executeTransfer: {
    success: ['200'],
    errors: { ...WRITE_ERRORS_WITHOUT_BODY, '400': ['InvalidRequest', 'MissingIdempotencyKey', 'InsufficientFunds'] },
  },
  listTransactions: { success: ['200'], errors: READ_ERRORS },
  getTransaction: { success: ['200'], errors: READ_BY_ID_ERRORS },
  createToken: {
    success: ['200'],
    errors: {
      '400': ['InvalidRequest'],
      '401': ['Unauthorized'],
      '413': ['InvalidRequest'],
      '415': ['InvalidRequest'],
      '429': ['InvalidRequest'],
      '500': ['InternalError'],
    },
  },
};

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

  it.each(Object.entries(EXPECTED_RESPONSES))(
    '%s declares exactly its statuses, and its error examples show only errors it can give',
    (operationId, expected) => {
      const { operation } = operationById(operationId);
      expect(Object.keys(operation.responses).sort()).toEqual(
        [...expected.success, ...Object.keys(expected.errors)].sort(),
      );
      for (const [status, types] of Object.entries(expected.errors)) {
        const response = operation.responses[status];
        if (response === undefined) throw new Error(`${operationId} has no ${status}`);
        const shown = new Set(exampleValues(response).map(errorTypeOf));
        expect([...shown].every((t) => typeof t === 'string' && types.includes(t)), `${status}: ${[...shown].join(', ')}`).toBe(true);
        expect(shown.size, `${operationId} ${status} has error examples`).toBeGreaterThan(0);
      }
    },
  );

  it('answer every status with an X-Request-Id header', () => {
    for (const { operation } of operations) {
      for (const [status, response] of Object.entries(operation.responses)) {
        expect(response.headers?.['X-Request-Id'], `${operation.operationId} ${status}`).toBeDefined();
      }
    }
  });

  it.each(WRITE_OPERATIONS)('%s marks replayable answers with Idempotent-Replayed', (operationId) => {
    const { operation } = operationById(operationId);
    expect(operation.responses['200']?.headers?.['Idempotent-Replayed']?.schema.enum).toEqual([true]);
    // Failures before the operation runs are never stored, so never replayed.
    for (const status of ['401', '403', '409', '413', '415', '422', '500']) {
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
      expect(Object.keys(operation.responses[status]?.headers ?? {}).sort()).toEqual(['Cache-Control', 'ETag', 'X-Request-Id']);
    }
    expect(operation.responses['304']?.content).toBeUndefined();
  });

  it('keeps token answers out of caches and says when to retry', () => {
    const { operation } = operationById('createToken');
    const ok = operation.responses['200']?.headers;
    expect(ok?.['Cache-Control']?.schema.enum).toEqual(['no-store']);
    expect(ok?.['Pragma']?.schema.enum).toEqual(['no-cache']);
    expect(operation.responses['401']?.headers?.['WWW-Authenticate']).toBeDefined();
    expect(operation.responses['429']?.headers?.['Retry-After']?.required).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
// Schemas: closed objects, bounded money, which fields may be null and which are required.

function unclosedObjects(schema: Schema, where: string, seen = new Set<Schema>()): string[] {
  if (seen.has(schema)) return [];
  seen.add(schema);
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const isObject = types.includes('object') || schema.properties !== undefined;
  const own = isObject && schema.additionalProperties !== false ? [where] : [];
  const children: [string, Schema][] = [
    ...Object.entries(schema.properties ?? {}).map(([k, s]): [string, Schema] => [`${where}.${k}`, s]),
    ...(schema.items ? [[`${where}[]`, schema.items] as [string, Schema]] : []),
    ...[...(schema.oneOf ?? []), ...(schema.anyOf ?? []), ...(schema.allOf ?? [])].map(
      (s, i): [string, Schema] => [`${where}|${i}`, s],
    ),
  ];
  return [...own, ...children.flatMap(([w, s]) => unclosedObjects(s, w, seen))];
}

function int64WithoutBounds(schema: Schema, where: string, seen = new Set<Schema>()): string[] {
  if (seen.has(schema)) return [];
  seen.add(schema);
  const own = schema.format === 'int64' && (schema.minimum === undefined || schema.maximum === undefined) ? [where] : [];
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
  it('close every request body, so nothing can be smuggled in', () => {
    const bodies = operations.flatMap(({ operation }) =>
      mediaTypesOf(operation).map(([mt, m]) => [`${operation.operationId} ${mt}`, m.schema] as const),
    );
    expect(bodies).toHaveLength(4);
    expect(bodies.flatMap(([where, schema]) => unclosedObjects(schema, where))).toEqual([]);
  });

  it('close every object schema of the document, so response validation catches leaked fields', () => {
    const unclosed = Object.entries(doc.components.schemas).flatMap(([name, s]) => unclosedObjects(s, name));
    expect(unclosed).toEqual([]);
  });

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
