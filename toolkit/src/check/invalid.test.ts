import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '../codegen/bundle.js';
import { buildRequest, invalidity, planOperation, type GeneratedRequest } from './cases.js';
import { readOperations } from './document.js';
import { countCandidates, invalidRequest } from './invalid.js';
import { Schemas } from './schemas.js';
import { wireImage } from './serialize.js';

const document = {
  openapi: '3.1.0',
  info: { title: 'invalid', version: '1' },
  paths: {
    '/items/{id}': {
      post: {
        operationId: 'updateItem',
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } },
          { name: 'limit', in: 'query', required: true, schema: { type: 'integer', minimum: 1, maximum: 30 } },
          { name: 'mode', in: 'query', schema: { type: 'string', enum: ['fast', 'slow'] } },
          { name: 'X-Trace', in: 'header', required: true, schema: { type: 'string', pattern: '^[a-f0-9]{8}$' } },
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['name', 'price', 'tags', 'kind'],
                additionalProperties: false,
                properties: {
                  name: { type: 'string', minLength: 2, maxLength: 10 },
                  price: { type: 'number', exclusiveMinimum: 0, maximum: 1000, multipleOf: 0.5 },
                  tags: {
                    type: 'array',
                    items: { type: 'string', maxLength: 3 },
                    minItems: 1,
                    maxItems: 3,
                    uniqueItems: true,
                  },
                  kind: { type: 'string', enum: ['a', 'b'] },
                  size: {
                    type: 'object',
                    required: ['width'],
                    properties: { width: { type: 'integer', maximum: 10 } },
                  },
                },
              },
            },
          },
        },
        responses: { '200': { description: 'ok' } },
      },
    },
  },
} as unknown as OpenApiDocument;

describe('invalid requests', () => {
  const [operation] = readOperations(document).operations;
  if (operation === undefined) throw new Error('the document has an operation');
  const plan = planOperation(document, operation);
  const schemas = new Schemas(document);
  const valid = plan.valid ?? fc.constant<GeneratedRequest>({ parameters: [], body: undefined });
  const generated = fc
    .sample(valid, { numRuns: 60, seed: 4 })
    .filter((request) => invalidity(plan, request, schemas) === undefined);

  it('starts from valid requests', () => {
    expect(generated.length).toBeGreaterThan(40);
  });

  it('breaks each request in ways the document confirms invalid, one constraint at a time', () => {
    const constraints = new Set<string>();
    for (const request of generated) {
      const count = countCandidates(document, plan, request, schemas);
      for (let choice = 0; choice < count; choice += 1) {
        const broken = invalidRequest(document, plan, request, choice, schemas);
        expect(broken).toBeDefined();
        if (broken === undefined) continue;
        constraints.add(broken.constraint);
        const built = buildRequest(plan, broken.generated, 'http://server.invalid');
        if (typeof built === 'string') continue;
        const sent = broken.rewrite === undefined ? built : broken.rewrite(built);
        // Independent of how it was made: the request as sent breaks the document.
        const body = broken.generated.body;
        const bodyBroken =
          body === undefined ||
          sent.headers['Content-Type'] !== 'application/json' ||
          (() => {
            try {
              return !schemas.valid('request', plan.bodyMedia[0]?.media.schemaPointer, JSON.parse(sent.body ?? ''));
            } catch {
              return true;
            }
          })();
        const parameterBroken = operation.parameters.some((parameter, index) => {
          const value = broken.generated.parameters[index];
          return value === undefined
            ? parameter.required
            : !schemas.valid('parameter', parameter.schemaPointer, wireImage(value));
        });
        expect(bodyBroken || parameterBroken, broken.description).toBe(true);
        // One constraint: the body or the parameters, not both.
        expect(bodyBroken && parameterBroken, broken.description).toBe(false);
      }
    }
    const keywords = new Set([...constraints].map((constraint) => constraint.split(' ').slice(-1)[0]));
    for (const keyword of [
      'required',
      'type',
      'minimum',
      'maximum',
      'exclusiveMinimum',
      'multipleOf',
      'minLength',
      'maxLength',
      'pattern',
      'enum',
      'additionalProperties',
      'minItems',
      'maxItems',
      'uniqueItems',
      'JSON',
      'content-type',
    ]) {
      expect(keywords, keyword).toContain(keyword);
    }
    expect(constraints).toContain('query limit required');
    expect(constraints).toContain('header X-Trace required');
    expect(constraints).toContain('body required');
    expect(constraints).toContain('body/tags/* maxLength');
  });

  it('leaves in a required value that has a default, which a server may take for it', () => {
    const withDefaults = structuredClone(document) as unknown as {
      paths: Record<
        string,
        {
          post: {
            parameters: { schema: Record<string, unknown> }[];
            requestBody: {
              content: Record<string, { schema: { properties: Record<string, Record<string, unknown>> } }>;
            };
          };
        }
      >;
    };
    const post = withDefaults.paths['/items/{id}']?.post;
    if (post === undefined) throw new Error('the document has the operation');
    Object.assign(post.parameters[1]?.schema ?? {}, { default: 10 });
    Object.assign(post.requestBody.content['application/json']?.schema.properties['kind'] ?? {}, { default: 'a' });
    const changed = withDefaults as unknown as OpenApiDocument;
    const [defaulted] = readOperations(changed).operations;
    if (defaulted === undefined) throw new Error('the document has an operation');
    const defaultedPlan = planOperation(changed, defaulted);
    const defaultedSchemas = new Schemas(changed);
    const descriptions = new Set<string>();
    for (const request of generated.slice(0, 10)) {
      for (let choice = 0; choice < countCandidates(changed, defaultedPlan, request, defaultedSchemas); choice += 1) {
        descriptions.add(invalidRequest(changed, defaultedPlan, request, choice, defaultedSchemas)?.description ?? '');
      }
    }
    expect([...descriptions].filter((description) => description.includes('left out'))).toEqual(
      expect.arrayContaining([
        'required header parameter X-Trace left out',
        'body /: required: required property name left out',
      ]),
    );
    expect(
      [...descriptions].filter((description) => /limit left out|property kind left out/.test(description)),
    ).toEqual([]);
  });

  it('passes over a change a string parameter takes as it is on the wire', () => {
    // `12345` for a string is `"12345"` on the wire: a string; `type` is never offered for X-Trace.
    for (const request of generated.slice(0, 10)) {
      for (let choice = 0; choice < countCandidates(document, plan, request, schemas); choice += 1) {
        expect(invalidRequest(document, plan, request, choice, schemas)?.constraint).not.toBe('header X-Trace type');
      }
    }
  });
});
