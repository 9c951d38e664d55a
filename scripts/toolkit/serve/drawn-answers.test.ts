import { describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '../codegen/bundle.js';
import type { OperationInfo } from '../codegen/operations.js';
import { drawnAnswers } from './drawn-answers.js';

const pet = { type: 'object', required: ['id', 'name'], properties: { id: { type: 'integer', minimum: 1 }, name: { type: 'string', minLength: 1 } }, additionalProperties: false };
const document = {
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  paths: {
    '/pets': {
      get: { responses: { '200': { description: 'pets', content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Pet' } } } } } } },
      post: { responses: { '201': { $ref: '#/components/responses/Created' }, '400': { description: 'bad' } } },
      delete: { responses: { '204': { description: 'gone' } } },
      put: { responses: { '400': { description: 'bad' }, '404': { description: 'none' } } },
      patch: { responses: { '200': { description: 'limited', headers: { 'X-Rate-Limit': { required: true, schema: { type: 'integer' } } } } } },
      options: { responses: { default: { description: 'anything', content: { 'application/json': { schema: { const: 'ok' } } } } } },
    },
  },
  components: { schemas: { Pet: pet }, responses: { Created: { description: 'created', content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } } } } },
} as unknown as OpenApiDocument;

const operation = (method: string): OperationInfo => ({ key: `${method}Pets`, method, path: '/pets' }) as unknown as OperationInfo;

describe('the answers serve draws where a document gives no example', () => {
  const answers = drawnAnswers(document, ['get', 'post', 'delete', 'put', 'patch', 'options'].map(operation));

  it('draws a value of the first success answer’s schema, through references, the same on every call', () => {
    const list = answers.get('getPets');
    expect(list?.status).toBe(200);
    expect(list?.contentType).toBe('application/json');
    expect(Array.isArray(list?.body)).toBe(true);
    for (const item of list?.body as { id: number; name: string }[]) {
      expect(Object.keys(item).sort()).toEqual(['id', 'name']);
      expect(item.id).toBeGreaterThanOrEqual(1);
    }
    expect(drawnAnswers(document, [operation('get')]).get('getPets')).toEqual(list);
    const created = answers.get('postPets');
    expect(created?.status).toBe(201);
    expect(created?.body).toMatchObject({ id: expect.any(Number), name: expect.any(String) });
  });

  it('answers a success without content with no body, and a default answer as 200', () => {
    expect(answers.get('deletePets')).toEqual({ status: 204 });
    expect(answers.get('optionsPets')).toEqual({ status: 200, body: 'ok', contentType: 'application/json' });
  });

  it('draws nothing where no success answer is declared, or one needs headers', () => {
    expect(answers.has('putPets')).toBe(false);
    expect(answers.has('patchPets')).toBe(false);
  });
});
