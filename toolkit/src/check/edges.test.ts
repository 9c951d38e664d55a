import { describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '../codegen/bundle.js';
import { invalidity, planOperation, type GeneratedRequest } from './cases.js';
import { readOperations } from './document.js';
import { edgeRequests } from './edges.js';
import { Schemas } from './schemas.js';

const document = {
  openapi: '3.1.0',
  info: { title: 'edges', version: '1' },
  paths: {
    '/orders': {
      post: {
        operationId: 'createOrder',
        parameters: [
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 50 } },
          { name: 'X-Region', in: 'header', required: true, schema: { type: 'string', enum: ['eu', 'us', 'ap'] } },
          { name: 'X-Note', in: 'header', schema: { type: 'string', maxLength: 4 } },
        ],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/OrderInput' } } },
        },
        responses: { '201': { description: 'created' } },
      },
    },
  },
  components: {
    schemas: {
      OrderInput: {
        type: 'object',
        additionalProperties: false,
        required: ['title', 'quantity'],
        properties: {
          id: { type: 'string', readOnly: true },
          title: { type: 'string', minLength: 1, maxLength: 5 },
          quantity: { type: 'integer', minimum: 0, maximum: 500 },
          weight: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 2.5 },
          shipping: {
            type: 'object',
            required: ['city'],
            properties: {
              city: { type: 'string', example: 'Oslo' },
              floor: { type: 'integer', exclusiveMinimum: 0, exclusiveMaximum: 10 },
            },
          },
          tags: { type: 'array', minItems: 1, maxItems: 3, items: { type: 'string', enum: ['a', 'b', 'c'] } },
        },
      },
    },
  },
} as unknown as OpenApiDocument;

const [operation] = readOperations(document).operations;
if (operation === undefined) throw new Error('the document has an operation');
const schemas = new Schemas(document);
const plan = planOperation(document, operation);
const edges = edgeRequests(document, plan, schemas, 'http://h');
const labelled = (label: string): GeneratedRequest => {
  const found = edges.find((edge) => edge.label === label);
  if (found === undefined) throw new Error(`no edge ${label} in ${edges.map((edge) => edge.label).join('; ')}`);
  return found.generated;
};
const bodyOf = (generated: GeneratedRequest): Record<string, unknown> =>
  generated.body?.value as Record<string, unknown>;

describe('edge requests', () => {
  it('are valid per the document, each sent once', () => {
    expect(edges.length).toBeGreaterThan(10);
    for (const edge of edges) expect(invalidity(plan, edge.generated, schemas), edge.label).toBeUndefined();
    const keys = edges.map((edge) => JSON.stringify(edge.generated));
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('are the same every time: no seed goes into them', () => {
    expect(edgeRequests(document, plan, schemas, 'http://h')).toEqual(edges);
  });

  it('start with the required values only, then every parameter and property', () => {
    expect(edges[0]?.label).toBe('required values only');
    const required = labelled('required values only');
    expect(required.parameters).toEqual([undefined, 'eu', undefined]);
    expect(Object.keys(bodyOf(required)).sort()).toEqual(['quantity', 'title']);

    expect(edges[1]?.label).toBe('every parameter and property');
    const full = labelled('every parameter and property');
    expect(full.parameters[0]).toEqual(expect.any(Number));
    // readOnly properties are left out of requests.
    expect(Object.keys(bodyOf(full)).sort()).toEqual(['quantity', 'shipping', 'tags', 'title', 'weight']);
    expect(bodyOf(full)['shipping']).toEqual({ city: 'Oslo', floor: expect.any(Number) as number });
  });

  it('put one value at each edge, the others as in the request with every value', () => {
    const full = bodyOf(labelled('every parameter and property'));
    expect(bodyOf(labelled('body /quantity: minimum 0'))).toEqual({ ...full, quantity: 0 });
    expect(bodyOf(labelled('body /quantity: maximum 500'))).toEqual({ ...full, quantity: 500 });
    expect(bodyOf(labelled('body /title: length 5 (maxLength)'))['title']).toBe('xxxxx');
    expect(bodyOf(labelled('body /title: length 5 of astral characters'))['title']).toBe('😀'.repeat(5));
    expect(bodyOf(labelled('body /weight: exclusiveMinimum 0, one step above'))['weight']).toBe(Number.MIN_VALUE);
    expect(bodyOf(labelled('body /weight: exclusiveMaximum 2.5, one step below'))['weight']).toBeLessThan(2.5);
    expect(bodyOf(labelled('body /shipping/floor: exclusiveMaximum 10, one step below'))['shipping']).toMatchObject({
      floor: 9,
    });
    expect(bodyOf(labelled('body /tags: 3 items (maxItems)'))['tags']).toEqual(['a', 'a', 'a']);
    expect(labelled('query parameter limit: minimum 1').parameters[0]).toBe(1);
    expect(labelled('query parameter limit: maximum 50').parameters[0]).toBe(50);
    expect(labelled('header parameter X-Region: enum last ap').parameters[1]).toBe('ap');
  });

  it('are not sent again where an earlier request holds the edge already', () => {
    const full = bodyOf(labelled('every parameter and property'));
    expect(full['tags']).toEqual(['a']);
    expect(edges.map((edge) => edge.label)).not.toContain('body /tags: 1 items (minItems)');
  });

  it('leave out an edge that HTTP cannot carry', () => {
    expect(labelled('header parameter X-Note: length 4 (maxLength)').parameters[2]).toBe('xxxx');
    // A header carries no characters outside Latin-1.
    expect(edges.map((edge) => edge.label)).not.toContain('header parameter X-Note: length 4 of astral characters');
  });
});
