import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, describe, expect, it } from 'vitest';
import { errorResponsePlans, type ErrorResponseReason } from './error-responses.js';

const CODE_AND_MESSAGE = {
  type: 'object',
  required: ['code', 'message'],
  properties: { code: { type: 'integer' }, message: { type: 'string' } },
  additionalProperties: false,
};
const PROBLEM_DETAILS = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail'],
  properties: {
    type: { type: 'string', format: 'uri' },
    title: { type: 'string' },
    status: { type: 'integer', minimum: 400, maximum: 599 },
    detail: { type: 'string' },
    instance: { type: 'string' },
  },
};
const STRICT = {
  type: 'object',
  required: ['error', 'requestId', 'kind', 'at', 'retryable'],
  properties: {
    error: { type: 'string', maxLength: 20 },
    requestId: { type: 'string', format: 'uuid' },
    kind: { enum: ['client', 'server'] },
    at: { type: 'string', format: 'date-time' },
    retryable: { const: false },
  },
  additionalProperties: false,
};
const FIXED_MESSAGE = {
  type: 'object',
  required: ['message'],
  properties: { message: { enum: ['Bad request', 'Not found'] } },
};

const json = (schema: object, extra: object = {}) => ({
  description: 'an error',
  content: { 'application/json': { schema, ...extra } },
});
const document = {
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  paths: {
    '/pets': {
      get: {
        responses: {
          '200': { description: 'ok' },
          '400': { $ref: '#/components/responses/Problem' },
          '4XX': { description: 'other', content: { 'text/html': {} } },
          '500': json({ $ref: '#/components/schemas/Error' }),
        },
      },
      post: {
        responses: {
          '201': { description: 'ok' },
          '400': { description: 'no body' },
          '401': {
            description: 'no credentials',
            headers: {
              'X-Trace': { required: true, schema: { type: 'string', format: 'uuid' } },
              'X-Optional': { schema: { type: 'string' } },
            },
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
          },
          default: json(STRICT, {
            example: {
              error: 'see docs',
              requestId: '3f0c9c53-5c43-4c27-9a0c-3b1e2b0ad111',
              kind: 'client',
              at: '2026-01-01T00:00:00Z',
              retryable: false,
            },
          }),
        },
      },
      put: {
        responses: {
          '200': { description: 'ok' },
          '400': json(FIXED_MESSAGE),
          '404': { description: 'xml', content: { 'application/xml': {} } },
        },
      },
    },
  },
  components: {
    schemas: { Error: CODE_AND_MESSAGE },
    responses: {
      Problem: { description: 'A problem', content: { 'application/problem+json': { schema: PROBLEM_DETAILS } } },
    },
  },
};

const ajv = new Ajv2020({ strict: false });
addFormatsModule.default(ajv);
const validFor = (schema: object) => (value: unknown) => ajv.validate(schema, value);

describe("the contract server's own error responses", () => {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'error-responses-'));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));
  const file = path.join(directory, 'openapi.json');
  writeFileSync(file, JSON.stringify(document));
  const logged: string[] = [];
  const plan = errorResponsePlans(file, (line) => logged.push(line));
  const invalid: ErrorResponseReason = { status: 400, message: 'must be integer', field: 'query.limit' };

  it('take the declared schema, the reason in its message and the status in an integer code', () => {
    const declared = plan({ path: '/pets', method: 'get' }, 500);
    expect(declared.form).toEqual({ kind: 'json', mediaType: 'application/json' });
    const body = declared.body({ status: 500, message: 'The handler failed.' });
    expect(body).toEqual({ code: 500, message: 'The handler failed.' });
    expect(validFor(CODE_AND_MESSAGE)(body)).toBe(true);
  });

  it("fill RFC 9457's fields through a response reference: the reason in detail, the reason phrase in title", () => {
    const declared = plan({ path: '/pets', method: 'GET' }, 400);
    expect(declared.form).toEqual({ kind: 'json', mediaType: 'application/problem+json' });
    const body = declared.body(invalid);
    expect(body).toMatchObject({ title: 'Bad Request', status: 400, detail: 'query.limit: must be integer' });
    expect(validFor(PROBLEM_DETAILS)(body)).toBe(true);
  });

  it("keep the example's required values, the reason cut to the field's maxLength", () => {
    const body = plan({ path: '/pets', method: 'post' }, 415).body({
      status: 415,
      message: 'Unsupported media type text/csv',
    });
    expect(body).toEqual({
      error: 'Unsupported media ty',
      requestId: '3f0c9c53-5c43-4c27-9a0c-3b1e2b0ad111',
      kind: 'client',
      at: '2026-01-01T00:00:00Z',
      retryable: false,
    });
    expect(validFor(STRICT)(body)).toBe(true);
  });

  it('send the required headers of the declared response, with values of their schemas', () => {
    const declared = plan({ path: '/pets', method: 'post' }, 401);
    expect(Object.keys(declared.headers)).toEqual(['X-Trace']);
    expect(declared.headers['X-Trace']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });

  it('keep a body valid where the reason cannot go in it: a message of an enum stays one of its values', () => {
    const body = plan({ path: '/pets', method: 'put' }, 400).body(invalid);
    expect(validFor(FIXED_MESSAGE)(body)).toBe(true);
    expect(logged).toEqual([]);
  });

  it('are the reason as text where only a text media type is declared, and no body where no content is', () => {
    expect(plan({ path: '/pets', method: 'get' }, 401).form).toEqual({ kind: 'text', mediaType: 'text/html' });
    expect(plan({ path: '/pets', method: 'post' }, 400).form).toEqual({ kind: 'empty' });
  });

  it('are RFC 9457 problem details where the operation declares nothing for the status, or no operation matched', () => {
    for (const [route, status] of [
      [{ path: '/pets', method: 'put' }, 500],
      [{ path: '/pets', method: 'put' }, 404],
      [{ path: '/nowhere', method: 'get' }, 404],
      [undefined, 405],
    ] as const) {
      const declared = plan(route, status);
      expect(declared.form).toEqual({ kind: 'json', mediaType: 'application/problem+json' });
      expect(declared.body({ status, message: 'Nothing here.' })).toEqual({
        type: 'about:blank',
        title: status === 500 ? 'Internal Server Error' : status === 404 ? 'Not Found' : 'Method Not Allowed',
        status,
        detail: 'Nothing here.',
      });
    }
  });
});
