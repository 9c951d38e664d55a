import { describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '../codegen/bundle.js';
import { buildRequest, planOperation } from './cases.js';
import { readOperations, requiresCredentials, selects } from './document.js';

const document = {
  openapi: '3.1.0',
  info: { title: 'operations', version: '1' },
  security: [{ key: [] }],
  paths: {
    '/pets/{petId}': {
      parameters: [
        { $ref: '#/components/parameters/PetId' },
        { name: 'verbose', in: 'query', schema: { type: 'boolean' } },
      ],
      get: {
        operationId: 'getPet',
        parameters: [
          { name: 'verbose', in: 'query', required: true, schema: { type: 'string', enum: ['yes'] } },
          { name: 'Accept', in: 'header', schema: { type: 'string' } },
          { name: 'session', in: 'cookie', required: true, schema: { type: 'string', const: 'a b' } },
          {
            name: 'X-Tag',
            in: 'header',
            required: true,
            schema: { type: 'array', items: { type: 'string', enum: ['x'] }, minItems: 2, maxItems: 2 },
          },
        ],
        responses: { '200': { $ref: '#/components/responses/Pet' } },
      },
      delete: { security: [{}, { key: [] }], responses: { '204': { description: 'gone' } } },
    },
    '/pets#byTag': { get: { operationId: 'listByTag', security: [], responses: { default: { description: 'any' } } } },
  },
  components: {
    parameters: { PetId: { name: 'petId', in: 'path', required: true, schema: { type: 'integer', const: 7 } } },
    responses: {
      Pet: {
        description: 'a pet',
        headers: { 'X-Rate': { required: true, schema: { type: 'integer' } } },
        content: { 'application/json': { schema: { type: 'object' } } },
      },
    },
  },
} as unknown as OpenApiDocument;

describe('operations of a document', () => {
  const checked = readOperations(document);
  const [getPet, deletePet, listByTag] = checked.operations;

  it('names operations by operationId, else METHOD /path, and selects them either way', () => {
    expect(checked.operations.map((operation) => operation.key)).toEqual([
      'getPet',
      'DELETE /pets/{petId}',
      'listByTag',
    ]);
    expect(deletePet !== undefined && selects('delete /pets/{petId}', deletePet)).toBe(true);
    expect(getPet !== undefined && selects('GET /pets/{petId}', getPet)).toBe(true);
  });

  it("merges the path item's parameters, the operation's winning, and ignores an Accept header parameter", () => {
    expect(getPet?.parameters.map((parameter) => `${parameter.in} ${parameter.name} ${parameter.required}`)).toEqual([
      'path petId true',
      'query verbose true',
      'cookie session true',
      'header X-Tag true',
    ]);
    expect(getPet?.parameters[0]?.schemaPointer).toBe('#/components/parameters/PetId/schema');
  });

  it('reads responses by reference, with their headers and media types', () => {
    const [response] = getPet?.responses ?? [];
    expect(response?.pointer).toBe('#/components/responses/Pet');
    expect(response?.headers.map((header) => [header.name, header.required, header.schemaPointer])).toEqual([
      ['X-Rate', true, '#/components/responses/Pet/headers/X-Rate/schema'],
    ]);
    expect(response?.media.map((media) => media.schemaPointer)).toEqual([
      '#/components/responses/Pet/content/application~1json/schema',
    ]);
  });

  it("takes the document's security unless the operation has its own; an empty alternative needs nothing", () => {
    expect(requiresCredentials(getPet?.security ?? [])).toBe(true);
    expect(requiresCredentials(deletePet?.security ?? [])).toBe(false);
    expect(requiresCredentials(listByTag?.security ?? [])).toBe(false);
  });

  it("notes a path with '#', and requests it where the URL ends", () => {
    expect(checked.notes).toContain(
      "#/paths/~1pets#byTag: the path holds '#', which starts a URL's fragment: its operations are requested at /pets",
    );
    if (listByTag === undefined) throw new Error('listByTag');
    const plan = planOperation(document, listByTag);
    expect(buildRequest(plan, { parameters: [], body: undefined }, 'http://h/api/')).toEqual({
      method: 'GET',
      url: 'http://h/api/pets',
      headers: {},
      body: null,
    });
  });

  it('builds a request with each parameter where and as its style says', () => {
    if (getPet === undefined) throw new Error('getPet');
    const plan = planOperation(document, getPet);
    expect(buildRequest(plan, { parameters: [7, 'yes', 'a b', ['x', 'x']], body: undefined }, 'http://h')).toEqual({
      method: 'GET',
      url: 'http://h/pets/7?verbose=yes',
      headers: { 'X-Tag': 'x,x', Cookie: 'session=a%20b' },
      body: null,
    });
  });
});
