import { describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '../codegen/bundle.js';
import type { OperationInfo } from '../codegen/operations.js';
import { drawnAnswers } from './drawn-answers.js';

const pet = {
  type: 'object',
  required: ['id', 'name'],
  properties: { id: { type: 'integer', minimum: 1 }, name: { type: 'string', minLength: 1 } },
  additionalProperties: false,
};
const document = {
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  paths: {
    '/pets': {
      get: {
        responses: {
          '200': {
            description: 'pets',
            content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Pet' } } } },
          },
        },
      },
      post: { responses: { '201': { $ref: '#/components/responses/Created' }, '400': { description: 'bad' } } },
      delete: { responses: { '204': { description: 'gone' } } },
      put: { responses: { '400': { description: 'bad' }, '404': { description: 'none' } } },
      patch: {
        responses: {
          '200': {
            description: 'limited',
            headers: { 'X-Rate-Limit': { required: true, schema: { type: 'integer' } } },
          },
        },
      },
      options: {
        responses: {
          default: { description: 'anything', content: { 'application/json': { schema: { const: 'ok' } } } },
        },
      },
    },
    '/code': {
      get: {
        responses: {
          '200': {
            description: 'an image',
            content: { 'image/png': { schema: { type: 'string', format: 'binary' } } },
          },
        },
      },
      put: {
        responses: {
          '200': {
            description: 'bytes',
            content: { 'application/pdf': { schema: { type: 'string', contentMediaType: 'application/pdf' } } },
          },
        },
      },
      post: {
        responses: {
          '201': {
            description: 'text',
            content: { 'text/plain': { schema: { type: 'string', pattern: '^[A-Z]{3}$' } } },
          },
        },
      },
      delete: {},
    },
  },
  components: {
    schemas: { Pet: pet },
    responses: {
      Created: {
        description: 'created',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } },
      },
    },
  },
} as unknown as OpenApiDocument;

const operation = (method: string): OperationInfo =>
  ({ key: `${method}Pets`, method, path: '/pets' }) as unknown as OperationInfo;
const codeOperation = (method: string): OperationInfo =>
  ({ key: `${method}Code`, method, path: '/code' }) as unknown as OperationInfo;

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
    expect(answers.get('putPets')).toBeUndefined();
    expect(answers.get('patchPets')).toBeUndefined();
  });

  it('answers bytes in a binary media type: an image a client can show for PNG, drawn bytes otherwise', () => {
    const code = drawnAnswers(document, ['get', 'put', 'post', 'delete'].map(codeOperation));
    const image = code.get('getCode');
    expect(image).toMatchObject({ status: 200, contentType: 'image/png' });
    expect((image?.body as Buffer).subarray(0, 8)).toEqual(
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    );
    const pdf = code.get('putCode');
    expect(pdf?.contentType).toBe('application/pdf');
    expect((pdf?.body as Buffer).length).toBe(16);
    expect(code.get('postCode')).toMatchObject({
      status: 201,
      contentType: 'text/plain',
      body: expect.stringMatching(/^[A-Z]{3}$/),
    });
  });

  it('answers 200 without a body where an operation declares no responses', () => {
    expect(drawnAnswers(document, [codeOperation('delete')]).get('deleteCode')).toEqual({ status: 200 });
  });

  it('falls back to the smallest value when every full one is off the schema', () => {
    // Each optional property is taken by both branches of its oneOf: present, it spoils the value.
    const both = { oneOf: [{ type: 'string' }, { type: 'string' }] };
    const properties = Object.fromEntries(Array.from({ length: 12 }, (_, index) => [`p${index}`, both]));
    const wide = {
      openapi: '3.1.0',
      info: { title: 't', version: '1' },
      paths: {
        '/wide': {
          get: {
            responses: {
              '200': {
                description: 'ok',
                content: {
                  'application/json': {
                    schema: {
                      type: 'object',
                      required: ['id'],
                      properties: { id: { type: 'integer' }, ...properties },
                    },
                  },
                },
              },
            },
          },
        },
      },
    } as unknown as OpenApiDocument;
    const answer = drawnAnswers(wide, [
      { key: 'getWide', method: 'get', path: '/wide' } as unknown as OperationInfo,
    ]).get('getWide');
    expect(answer).toEqual({ status: 200, body: { id: expect.any(Number) }, contentType: 'application/json' });
  });
});
