import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '../codegen/bundle.js';
import { planOperation } from './cases.js';
import { readOperations } from './document.js';

const document = {
  openapi: '3.1.0',
  info: { title: 'cases', version: '1' },
  paths: {
    '/items': {
      get: {
        parameters: [
          { name: 'sort', in: 'query', required: true, schema: { type: 'string' } },
          {
            name: 'tags',
            in: 'query',
            required: true,
            schema: { type: 'array', items: { type: 'string' } },
            explode: false,
          },
          { name: 'q', in: 'query', required: true, allowEmptyValue: true, schema: { type: 'string' } },
        ],
        responses: { '200': { description: 'ok' } },
      },
    },
  },
} as unknown as OpenApiDocument;

describe('valid requests', () => {
  it('send a query parameter empty only where the document allows an empty value', () => {
    const [operation] = readOperations(document).operations;
    const plan = planOperation(document, operation!);
    const generated = fc.sample(plan.valid!, { numRuns: 300, seed: 5 }).map((request) => request.parameters);
    expect(generated.filter(([sort]) => sort === '')).toEqual([]);
    expect(generated.filter(([, tags]) => Array.isArray(tags) && tags.every((tag) => tag === ''))).toEqual([]);
    expect(generated.some(([, , q]) => q === '')).toBe(true);
  });
});
