import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteDefinition } from '../../generated/server.js';
import { errorHandler, RequestValidationError } from './errors.js';
import { silentLogger } from '../logger.js';
import { createValidators, type OffContractReport, type OpenApiDocument } from './validator.js';

/** A small document with what the service's document uses: references, lists, integers, a closed body. */
const DOCUMENT: OpenApiDocument = {
  paths: {
    '/things/{id}': {
      parameters: [{ $ref: '#/components/parameters/Id' }],
      post: {
        operationId: 'makeThing',
        parameters: [
          { name: 'limit', in: 'query', schema: { type: 'integer', format: 'int32', minimum: 1, maximum: 100, default: 10 } },
          { name: 'kinds', in: 'query', style: 'form', explode: false, schema: { type: 'array', minItems: 1, items: { $ref: '#/components/schemas/Kind' } } },
          { name: 'sizes', in: 'query', style: 'form', explode: false, schema: { type: 'array', items: { type: 'integer', maximum: 9 } } },
          { name: 'note', in: 'query', schema: { type: 'string', maxLength: 40 } },
          { name: 'X-Count', in: 'header', schema: { type: 'integer', minimum: 0 } },
        ],
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
        responses: {
          '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
          '204': { description: 'nothing' },
          '400': { $ref: '#/components/responses/Problem' },
          '415': { $ref: '#/components/responses/Problem' },
        },
      },
    },
  },
  components: {
    parameters: { Id: { name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^[a-z]{1,8}$' } } },
    responses: { Problem: { content: { 'application/json': { schema: { type: 'object', required: ['message'], properties: { message: { type: 'string' }, type: { type: 'string' }, details: { type: 'string' } } } } } } },
    schemas: {
      Kind: { type: 'string', enum: ['a', 'b'] },
      Thing: { type: 'object', additionalProperties: false, required: ['cents'], properties: { cents: { type: 'integer', format: 'int64', minimum: 0 }, kind: { $ref: '#/components/schemas/Kind' } } },
    },
  },
} as unknown as OpenApiDocument;

const ROUTE = { operationId: 'makeThing' } as unknown as RouteDefinition;

let baseUrl = '';
let close: () => void = () => undefined;
const reports: Array<Parameters<OffContractReport>[0]> = [];
/** What the handler received, and what it answers next: { status, body } from the test. */
let received: { query: unknown; body: unknown } | undefined;
let answer: { status: number; body?: unknown } = { status: 200, body: { cents: 1 } };

beforeAll(async () => {
  const validators = createValidators({ document: DOCUMENT, validateResponses: true, onOffContract: (report) => reports.push(report) });
  const app = express();
  app.set('query parser', 'simple');
  app.post('/things/:id', express.json(), ...validators(ROUTE), (req, res) => {
    received = { query: req.query, body: req.body as unknown };
    res.status(answer.status);
    if (answer.body === undefined) res.end();
    else res.json(answer.body);
  });
  app.use(errorHandler({ logger: silentLogger, tokenPath: '/token' }));
  const server = app.listen(0);
  await new Promise((resolve) => server.once('listening', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => server.close();
});
afterAll(() => close());

async function post(target: string, options: { body?: string; contentType?: string | null; headers?: Record<string, string> } = {}) {
  received = undefined;
  const headers: Record<string, string> = { ...(options.contentType === null ? {} : { 'Content-Type': options.contentType ?? 'application/json' }), ...options.headers };
  const response = await fetch(`${baseUrl}${target}`, { method: 'POST', headers, ...(options.body === undefined ? {} : { body: options.body }) });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>) };
}

describe('request validation compiled from the document', () => {
  it('hands the handler the query as validated: integers as numbers, lists as arrays, defaults set', async () => {
    answer = { status: 200, body: { cents: 1 } };
    expect((await post('/things/abc?kinds=a,b&sizes=1,2', { body: '{"cents":5}' })).status).toBe(200);
    expect(received).toEqual({ query: { kinds: ['a', 'b'], sizes: [1, 2], limit: 10 }, body: { cents: 5 } });
    expect((await post('/things/abc?limit=007', { body: '{"cents":5}' })).status).toBe(200);
    expect(received?.query).toEqual({ limit: 7 });
  });

  it('reads a text as sent: reserved characters left raw, + as a space, escapes decoded', async () => {
    expect((await post("/things/abc?note=O'Reilly+(x)*,:/@!$;=%C3%A9", { body: '{"cents":5}' })).status).toBe(200);
    expect(received?.query).toEqual({ note: "O'Reilly (x)*,:/@!$;=é", limit: 10 });
  });

  it('reads a list given twice as its parts joined, and refuses a single value given twice', async () => {
    expect((await post('/things/abc?kinds=a&kinds=b', { body: '{"cents":5}' })).status).toBe(200);
    expect(received?.query).toEqual({ kinds: ['a', 'b'], limit: 10 });
    const twice = await post('/things/abc?limit=1&limit=2', { body: '{"cents":5}' });
    expect(twice).toMatchObject({ status: 400, body: { type: 'InvalidRequest', message: 'Invalid request: query.limit was given more than once' } });
  });

  it.each([
    ['?limit=0', 'query.limit must be >= 1'],
    ['?limit=1e2', 'query.limit must be integer'],
    ['?limit=%205', 'query.limit must be integer'],
    ['?limit=0x10', 'query.limit must be integer'],
    ['?limit=', 'query.limit has no value'],
    ['?limit=99999999999', 'query.limit must be <= 100'],
    ['?kinds=a,c', 'query.kinds.1 must be one of the allowed values'],
    ['?kinds=a,', 'query.kinds.1 must be one of the allowed values'],
    ['?sizes=1,x', 'query.sizes.1 must be integer'],
    ['?debug=true', 'query.debug is not a parameter of this operation'],
  ])('%s → 400 %s', async (query, message) => {
    const response = await post(`/things/abc${query}`, { body: '{"cents":5}' });
    expect(response).toMatchObject({ status: 400, body: { type: 'InvalidRequest', message: `Invalid request: ${message}` } });
    expect(received).toBeUndefined();
  });

  it('checks path parameters and declared headers (integer headers read from text)', async () => {
    expect(await post('/things/ABC', { body: '{"cents":5}' })).toMatchObject({ status: 400, body: { message: 'Invalid request: path.id must match pattern "^[a-z]{1,8}$"' } });
    expect((await post('/things/abc', { body: '{"cents":5}', headers: { 'X-Count': '3' } })).status).toBe(200);
    expect(await post('/things/abc', { body: '{"cents":5}', headers: { 'X-Count': 'three' } })).toMatchObject({ status: 400, body: { message: 'Invalid request: headers.x-count must be integer' } });
  });

  it.each([
    ['{"cents":"5"}', 'body.cents must be integer'],
    ['{"cents":-1}', 'body.cents must be >= 0'],
    ['{"cents":9007199254740993}', 'body.cents must match format "int64"'],
    ['{}', "body must have required property 'cents'"],
    ['{"cents":1,"status":"PAID"}', 'body has a property the schema does not allow: status'],
    ['[]', 'body must be object'],
  ])('body %s → 400 %s (no coercion, closed schema)', async (body, message) => {
    expect(await post('/things/abc', { body })).toMatchObject({ status: 400, body: { type: 'InvalidRequest', message: `Invalid request: ${message}` } });
    expect(received).toBeUndefined();
  });

  it('knows which keyword failed where (the token endpoint reads it for unsupported_grant_type)', async () => {
    const response = await post('/things/abc', { body: '{"cents":1,"kind":"z"}' });
    expect(response).toMatchObject({ status: 400, body: { message: 'Invalid request: body.kind must be one of the allowed values', details: 'Allowed: a, b' } });
    const error = new RequestValidationError('body.grant_type', 'enum', 'must be one of the allowed values');
    expect([error.status, error.type, error.field, error.keyword]).toEqual([400, 'InvalidRequest', 'body.grant_type', 'enum']);
  });

  it('refuses a body type the operation does not take with 415, and a missing body with 400', async () => {
    expect(await post('/things/abc', { body: 'cents=1', contentType: 'text/plain' })).toMatchObject({ status: 415, body: { type: 'InvalidRequest' } });
    expect(await post('/things/abc', { body: '{"cents":1}', contentType: null })).toMatchObject({ status: 415, body: { type: 'InvalidRequest' } });
    expect(await post('/things/abc', { contentType: null })).toMatchObject({ status: 400, body: { message: 'Invalid request: body is required' } });
    expect(await post('/things/abc', {})).toMatchObject({ status: 400, body: { message: 'Invalid request: body is required' } });
    expect((await post('/things/abc', { body: '{"cents":1}', contentType: 'Application/JSON; charset=utf-8' })).status).toBe(200);
  });
});

describe('response validation', () => {
  it('passes answers the document declares, with and without a body', async () => {
    reports.length = 0;
    answer = { status: 200, body: { cents: 2, kind: 'b' } };
    expect(await post('/things/abc', { body: '{"cents":1}' })).toEqual({ status: 200, body: { cents: 2, kind: 'b' } });
    answer = { status: 204 };
    expect((await post('/things/abc', { body: '{"cents":1}' })).status).toBe(204);
    expect(reports).toEqual([]);
  });

  it.each([
    ['a body off its schema', { status: 200, body: { cents: 'two' } }, 'body.cents must be integer'],
    ['an undeclared property', { status: 200, body: { cents: 2, secret: 'x' } }, 'body must NOT have additional properties'],
    ['an undeclared status', { status: 201, body: { cents: 2 } }, 'status 201 is not declared'],
    ['a JSON body where none is declared', { status: 204, body: { cents: 2 } }, 'status 204 declares no JSON body'],
  ])('replaces %s with a 500 InternalError and reports it', async (_name, given, problem) => {
    reports.length = 0;
    answer = given;
    const response = await post('/things/abc', { body: '{"cents":1}' });
    expect(response).toMatchObject({ status: 500, body: { type: 'InternalError', message: 'The service failed to complete the request.' } });
    expect(JSON.stringify(response.body)).not.toContain('secret');
    expect(reports).toEqual([{ operationId: 'makeThing', status: given.status, problem }]);
  });

  it('checks the errors raised after it too: a request failure is answered in the declared shape', async () => {
    reports.length = 0;
    expect((await post('/things/abc?limit=0', { body: '{"cents":1}' })).status).toBe(400);
    expect(reports).toEqual([]);
  });
});

describe('compiling the document', () => {
  it('fails at once on a schema Ajv cannot compile, not at the first request', () => {
    const broken = { paths: { '/x': { get: { operationId: 'x', parameters: [{ name: 'n', in: 'query', schema: { type: 'integer', minimum: 'one' } }], responses: {} } } } } as unknown as OpenApiDocument;
    expect(() => createValidators({ document: broken, validateResponses: false, onOffContract: () => undefined })).toThrow();
  });

  it.each([
    ['an exploded list', { name: 'tags', in: 'query', schema: { type: 'array', items: { type: 'string' } } }],
    ['a cookie', { name: 'session', in: 'cookie', schema: { type: 'string' } }],
  ])('refuses at once a parameter it cannot read: %s', (_name, parameter) => {
    const document = { paths: { '/x': { get: { operationId: 'x', parameters: [parameter], responses: {} } } } } as unknown as OpenApiDocument;
    expect(() => createValidators({ document, validateResponses: false, onOffContract: () => undefined })).toThrow(/tags: only comma-separated lists|cookie parameters are not read/);
  });

  it('refuses a route the document does not have', () => {
    const validators = createValidators({ document: DOCUMENT, validateResponses: false, onOffContract: () => undefined });
    expect(() => validators({ operationId: 'nothing' } as unknown as RouteDefinition)).toThrow(/not in the document/);
  });
});
