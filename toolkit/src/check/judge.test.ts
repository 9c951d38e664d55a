import { describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '../codegen/bundle.js';
import { readOperations } from './document.js';
import { judge, type FindingKind, type Intent } from './judge.js';
import type { Outcome } from './requests.js';
import { Schemas } from './schemas.js';

const document = {
  openapi: '3.1.0',
  info: { title: 'judge', version: '1' },
  paths: {
    '/items': {
      get: {
        operationId: 'listItems',
        responses: {
          '200': {
            description: 'the items',
            headers: {
              'X-Total': { required: true, schema: { type: 'integer', minimum: 0 } },
              'X-Next': { schema: { type: 'string', format: 'uri' } },
            },
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['items'],
                  properties: { items: { type: 'array', items: { $ref: '#/components/schemas/Item' } } },
                },
              },
            },
          },
          '202': { description: 'accepted, no content' },
          '204': { description: 'nothing' },
          '4XX': {
            description: 'rejected',
            content: { 'application/problem+json': { schema: { type: 'object', required: ['title'] } } },
          },
        },
      },
    },
  },
  components: {
    schemas: {
      Item: {
        type: 'object',
        required: ['price'],
        properties: { price: { type: 'number' }, secret: { type: 'string', writeOnly: true } },
      },
    },
  },
} as unknown as OpenApiDocument;

const received = (status: number, headers: Record<string, string>, body: unknown): Outcome => ({
  kind: 'response',
  response: { status, headers, body: typeof body === 'string' ? body : JSON.stringify(body), ms: 1 },
});
const json = { 'content-type': 'application/json; charset=utf-8', 'x-total': '1' };
const good = { items: [{ price: 3 }] };

describe('judge', () => {
  const [operation] = readOperations(document).operations;
  if (operation === undefined) throw new Error('the document has an operation');
  const schemas = new Schemas(document);
  const kinds = (outcome: Outcome, intent: Intent = { kind: 'valid' }): FindingKind[] =>
    judge(operation, outcome, intent, schemas, 5000).map((verdict) => verdict.kind);

  it.each<[string, { outcome: Outcome; intent?: Intent; want: FindingKind[] }]>([
    ['a declared response', { outcome: received(200, json, good), want: [] }],
    ['a 204 declared without content', { outcome: received(204, {}, ''), want: [] }],
    [
      'a 4xx by its range',
      { outcome: received(404, { 'content-type': 'application/problem+json' }, { title: 'no' }), want: [] },
    ],
    [
      'a 5xx',
      { outcome: received(500, { 'content-type': 'text/plain' }, 'boom'), want: ['server-error', 'undeclared-status'] },
    ],
    ['an undeclared status', { outcome: received(302, {}, ''), want: ['undeclared-status'] }],
    [
      'an undeclared Content-Type',
      { outcome: received(200, { ...json, 'content-type': 'text/html' }, '<p>'), want: ['content-type'] },
    ],
    [
      'a body where none is declared',
      { outcome: received(202, { 'content-type': 'text/plain' }, 'x'), want: ['content-type'] },
    ],
    [
      'a body off its schema',
      { outcome: received(200, json, { items: [{ price: 'free' }] }), want: ['response-body'] },
    ],
    ['a body that is not JSON', { outcome: received(200, json, '{"items": ['), want: ['response-body'] }],
    ['an empty body where JSON is declared', { outcome: received(200, json, ''), want: ['response-body'] }],
    [
      'a required header missing',
      { outcome: received(200, { 'content-type': 'application/json' }, good), want: ['response-header'] },
    ],
    [
      'a header off its schema',
      { outcome: received(200, { ...json, 'x-total': '-1' }, good), want: ['response-header'] },
    ],
    [
      'an invalid request that gets a 2xx response',
      {
        outcome: received(200, json, good),
        intent: { kind: 'invalid', constraint: 'query limit maximum', description: 'limit 31' },
        want: ['accepted-invalid'],
      },
    ],
    [
      'an invalid request that gets a 4xx response',
      {
        outcome: received(400, { 'content-type': 'application/problem+json' }, { title: 'bad' }),
        intent: { kind: 'invalid', constraint: 'c', description: 'd' },
        want: [],
      },
    ],
    [
      'a 4xx whose body is off its schema',
      {
        outcome: received(400, { 'content-type': 'application/problem+json' }, {}),
        intent: { kind: 'invalid', constraint: 'c', description: 'd' },
        want: ['response-body'],
      },
    ],
    [
      'no credentials, and a 2xx response',
      {
        outcome: received(200, json, good),
        intent: { kind: 'no-credentials' },
        want: ['accepted-without-credentials'],
      },
    ],
    [
      'a wrong credential, and a 2xx response',
      {
        outcome: received(200, json, good),
        intent: { kind: 'wrong-credentials', scheme: 'bearer', change: 'token with one character changed' },
        want: ['ignored-auth'],
      },
    ],
    [
      'a wrong credential, and a 404 response',
      {
        outcome: received(404, { 'content-type': 'application/problem+json' }, { title: 'no' }),
        intent: { kind: 'wrong-credentials', scheme: 'bearer', change: 'token with one character changed' },
        want: ['ignored-auth'],
      },
    ],
    ...[401, 403].map((status): [string, { outcome: Outcome; intent: Intent; want: FindingKind[] }] => [
      `a wrong credential, and a ${status} response`,
      {
        outcome: received(status, { 'content-type': 'application/problem+json' }, { title: 'no' }),
        intent: { kind: 'wrong-credentials', scheme: 'bearer', change: 'token with one character changed' },
        want: [],
      },
    ]),
    [
      'a created object not found',
      {
        outcome: received(404, { 'content-type': 'application/problem+json' }, { title: 'gone' }),
        intent: { kind: 'read-after-create', created: 'x' },
        want: ['created-not-found'],
      },
    ],
    ['no response in time', { outcome: { kind: 'hang', ms: 5000 }, want: ['hang'] }],
    ['a rejected connection', { outcome: { kind: 'network', message: 'ECONNREFUSED', ms: 1 }, want: ['network'] }],
  ])('%s', (_name, { outcome, intent, want }) => {
    expect(kinds(outcome, intent)).toEqual(want);
  });

  it('keys an ignored wrong credential by its scheme and how it was made wrong', () => {
    const [verdict] = judge(
      operation,
      received(200, json, good),
      { kind: 'wrong-credentials', scheme: 'basic', change: 'unknown user name' },
      schemas,
      5000,
    );
    expect(verdict).toMatchObject({ kind: 'ignored-auth', status: 200, detail: 'basic unknown user name' });
    expect(verdict?.message).toContain('basic credential was wrong (unknown user name)');
  });

  it("names the body's problem by instance path and Ajv's message", () => {
    const [verdict] = judge(
      operation,
      received(200, json, { items: [{ price: 'free' }] }),
      { kind: 'valid' },
      schemas,
      5000,
    );
    expect(verdict?.message).toMatch(/^\/items\/0\/price must be number/);
  });

  it('does not require a writeOnly property in a response', () => {
    expect(schemas.valid('response', '#/components/schemas/Item', { price: 1 })).toBe(true);
  });

  it('keys the same failure the same way, whatever the values', () => {
    const first = judge(
      operation,
      received(200, json, { items: [{ price: 'a' }] }),
      { kind: 'valid' },
      schemas,
      5000,
    )[0];
    const second = judge(
      operation,
      received(200, json, { items: [{ price: 1 }, { price: 'b' }] }),
      { kind: 'valid' },
      schemas,
      5000,
    )[0];
    expect(first?.detail).toBe(second?.detail);
  });
});
