import { describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '../codegen/bundle.js';
import { readOperations } from './document.js';
import {
  evaluateExpression,
  followUps,
  linkValue,
  locationPath,
  matchField,
  matchTemplate,
  mayCreate,
  type CreationContext,
} from './sequences.js';

const context: CreationContext = {
  url: 'http://h/pets?dryRun=false',
  method: 'POST',
  status: 201,
  requestHeaders: { 'x-request-id': 'r-1' },
  requestParameters: { path: { ownerId: 7 }, query: { dryRun: false } },
  requestBody: { name: 'Rex', tags: ['a'] },
  responseHeaders: { location: '/pets/42' },
  responseBody: { id: 42, owner: { id: 'o-1' }, 'a/b': 'slash' },
};

describe('runtime expressions', () => {
  it.each<[string, unknown]>([
    ['$response.body#/id', 42],
    ['$response.body#/owner/id', 'o-1'],
    ['$response.body#/a~1b', 'slash'],
    ['$response.header.Location', '/pets/42'],
    ['$request.body#/tags/0', 'a'],
    ['$request.path.ownerId', 7],
    ['$request.query.dryRun', false],
    ['$request.header.X-Request-Id', 'r-1'],
    ['$method', 'POST'],
    ['$statusCode', 201],
    ['$url', 'http://h/pets?dryRun=false'],
  ])('%s', (expression, value) => {
    expect(evaluateExpression(expression, context)).toEqual({ found: true, value });
  });

  it('finds nothing where the response has nothing', () => {
    expect(evaluateExpression('$response.body#/missing', context).found).toBe(false);
    expect(evaluateExpression('$response.query.x', context).found).toBe(false);
  });

  it('fills expressions in braces and keeps constants', () => {
    expect(linkValue('/pets/{$response.body#/id}/photos', context)).toEqual({ found: true, value: '/pets/42/photos' });
    expect(linkValue(5, context)).toEqual({ found: true, value: 5 });
  });
});

describe('path parameter names', () => {
  it.each<[string, unknown, unknown]>([
    ['petId', { petId: 'p-1', id: 'other' }, 'p-1'],
    ['petId', { id: 3 }, 3],
    ['id', { id: 'x' }, 'x'],
    ['pet_id', { id: 'x' }, 'x'],
    ['name', { id: 'x' }, undefined],
    ['petId', { id: { nested: true } }, undefined],
  ])('{%s} of %j', (name, created, want) => {
    const found = matchField(name, created);
    expect(found.found ? found.value : undefined).toEqual(want);
  });
});

const document = {
  openapi: '3.1.0',
  info: { title: 'seq', version: '1' },
  paths: {
    '/pets': {
      post: {
        operationId: 'createPet',
        responses: {
          '201': { description: 'created', content: { 'application/json': { schema: { type: 'object' } } } },
        },
      },
    },
    '/pets/{petId}': {
      parameters: [{ name: 'petId', in: 'path', required: true, schema: { type: 'integer' } }],
      delete: { operationId: 'deletePet', responses: { '204': { description: 'gone' } } },
      get: { operationId: 'getPet', responses: { '200': { description: 'the pet' } } },
      patch: { operationId: 'updatePet', responses: { '200': { description: 'the pet' } } },
    },
    '/owners': {
      post: {
        operationId: 'createOwner',
        responses: {
          '201': {
            description: 'created',
            links: {
              ownerPets: {
                operationId: 'listOwnerPets',
                parameters: { 'path.ownerId': '$response.body#/ownerNumber', limit: 5 },
              },
            },
          },
        },
      },
    },
    '/jobs/start': {
      post: {
        operationId: 'startJob',
        responses: {
          '202': {
            description: 'started',
            headers: { Location: { schema: { type: 'string' } } },
          },
        },
      },
    },
    '/jobs/{jobId}': {
      parameters: [{ name: 'jobId', in: 'path', required: true, schema: { type: 'string' } }],
      get: { operationId: 'getJob', responses: { '200': { description: 'the job' } } },
      delete: { operationId: 'cancelJob', responses: { '204': { description: 'cancelled' } } },
    },
    '/owners/{ownerId}/pets': {
      get: {
        operationId: 'listOwnerPets',
        parameters: [
          { name: 'ownerId', in: 'path', required: true, schema: { type: 'integer' } },
          { name: 'limit', in: 'query', schema: { type: 'integer' } },
        ],
        responses: { '200': { description: 'pets' } },
      },
    },
  },
} as unknown as OpenApiDocument;

describe('follow-ups of a created object', () => {
  const { operations } = readOperations(document);
  const named = (key: string) => {
    const found = operations.find((operation) => operation.key === key);
    if (found === undefined) throw new Error(key);
    return found;
  };

  it('by path parameter names: read, change, then delete', () => {
    const creator = named('createPet');
    const response = creator.responses[0];
    if (response === undefined) throw new Error('response');
    const found = followUps(operations, creator, response, { ...context, responseBody: { id: 9 } });
    expect(found.map((followUp) => followUp.target.key)).toEqual(['getPet', 'updatePet', 'deletePet']);
    expect(found[0]?.parameters).toEqual([{ in: 'path', name: 'petId', value: 9 }]);
    expect(mayCreate(operations, creator)).toBe(true);
    expect(mayCreate(operations, named('getPet'))).toBe(false);
  });

  it("by the document's links", () => {
    const creator = named('createOwner');
    const response = creator.responses[0];
    if (response === undefined) throw new Error('response');
    const found = followUps(operations, creator, response, { ...context, responseBody: { ownerNumber: 12 } });
    expect(found).toHaveLength(1);
    expect(found[0]?.target.key).toBe('listOwnerPets');
    expect(found[0]?.parameters).toEqual([
      { in: 'path', name: 'ownerId', value: 12 },
      { in: undefined, name: 'limit', value: 5 },
    ]);
    expect(mayCreate(operations, creator)).toBe(true);
  });

  it('by the Location header, for the operations whose path it matches', () => {
    const creator = named('startJob');
    const response = creator.responses[0];
    if (response === undefined) throw new Error('response');
    const found = followUps(operations, creator, response, {
      ...context,
      url: 'http://h/api/jobs/start',
      responseHeaders: { location: '/api/jobs/j%2F7' },
      responseBody: undefined,
    });
    expect(found.map((followUp) => [followUp.target.key, followUp.parameters])).toEqual([
      ['getJob', [{ in: 'path', name: 'jobId', value: 'j/7' }]],
      ['cancelJob', [{ in: 'path', name: 'jobId', value: 'j/7' }]],
    ]);
    expect(found[0]?.via).toBe('the Location header /api/jobs/j%2F7');
    expect(mayCreate(operations, creator)).toBe(true);
  });

  it('by the Location header where the created object names no id', () => {
    const creator = named('createPet');
    const response = creator.responses[0];
    if (response === undefined) throw new Error('response');
    const found = followUps(operations, creator, response, { ...context, responseBody: { name: 'Rex' } });
    expect(found.map((followUp) => [followUp.target.key, followUp.via, followUp.parameters[0]?.value])).toEqual([
      ['getPet', 'the Location header /pets/42', '42'],
      ['updatePet', 'the Location header /pets/42', '42'],
      ['deletePet', 'the Location header /pets/42', '42'],
    ]);
  });
});

describe('the Location header', () => {
  it('matches path templates segment by segment', () => {
    expect(matchTemplate('/orders/{orderId}', '/orders/123')).toEqual({ orderId: '123' });
    expect(matchTemplate('/orders/{orderId}/items/{n}', '/orders/a%20b/items/2')).toEqual({ orderId: 'a b', n: '2' });
    expect(matchTemplate('/files/{name}.json', '/files/report.json')).toEqual({ name: 'report' });
    expect(matchTemplate('/orders/{orderId}', '/orders/123/items')).toBeUndefined();
    expect(matchTemplate('/orders/{orderId}', '/carts/123')).toBeUndefined();
  });

  it("is read after the base URL's path, relative or absolute, on the API's origin only", () => {
    const { operations } = readOperations(document);
    const creator = operations.find((operation) => operation.key === 'createPet');
    if (creator === undefined) throw new Error('createPet');
    const at = (url: string, location: string): string | undefined =>
      locationPath(creator, { ...context, url, responseHeaders: { location } });
    expect(at('http://h/v2/pets', '/v2/pets/7')).toBe('/pets/7');
    expect(at('http://h/v2/pets?x=1', 'http://h/v2/pets/7')).toBe('/pets/7');
    expect(at('http://h/v2/pets', 'pets/7')).toBe('/pets/7');
    expect(at('http://h/v2/pets', 'http://elsewhere/v2/pets/7')).toBeUndefined();
    expect(at('http://h/v2/pets', '/v3/pets/7')).toBeUndefined();
  });
});
