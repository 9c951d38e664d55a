import { describe, expect, it } from 'vitest';
import type { OpenApiDocument } from './bundle.js';
import { mediaExample } from './examples.js';
import { workAroundMistakes } from './mistakes.js';

const ok = { '200': { description: 'ok' } };
const doc = (extra: Record<string, unknown>): OpenApiDocument =>
  ({ openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {}, ...extra }) as unknown as OpenApiDocument;
const schemes = { components: { securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-Key' } } } };
type Json = Record<string, unknown>;
const at = (value: unknown, ...keys: string[]): unknown =>
  keys.reduce<unknown>((node, key) => (node as Json | undefined)?.[key], value);

describe('workAroundMistakes', () => {
  it('leaves out an alternative that names an undefined scheme, of an operation and of the document', () => {
    const { document, warnings } = workAroundMistakes(
      doc({
        ...schemes,
        security: [{ session: [] }, { key: [] }],
        paths: { '/pets': { get: { security: [{ key: [], auth: ['read'] }, {}], responses: ok } } },
      }),
    );
    expect(document.security).toEqual([{ key: [] }]);
    expect(at(document, 'paths', '/pets', 'get', 'security')).toEqual([{}]);
    expect(warnings).toEqual([
      {
        pointer: '#/security/0',
        message:
          'names the security scheme "session", which components.securitySchemes does not define: this alternative is left out',
      },
      {
        pointer: '#/paths/~1pets/get/security/0',
        message:
          'names the security scheme "auth", which components.securitySchemes does not define: this alternative is left out',
      },
    ]);
  });

  it('keeps the alternatives when none is left, so that the operation rejects every request instead of being open', () => {
    const { document, warnings } = workAroundMistakes(
      doc({ paths: { '/pets': { delete: { security: [{ petstore_auth: ['write'] }], responses: ok } } } }),
    );
    expect(at(document, 'paths', '/pets', 'delete', 'security')).toEqual([{ petstore_auth: ['write'] }]);
    expect(warnings.map((w) => w.message)).toEqual([
      'names the security scheme "petstore_auth", which components.securitySchemes does not define, and no other alternative is left: no request can meet it, so every request to DELETE /pets is rejected (never served open)',
    ]);
  });

  it.each([
    ['a type', { type: 'string', nullable: true }, 'write type: [string, "null"]'],
    ['a list of types', { type: ['integer', 'string'], nullable: true }, 'write type: [integer, string, "null"]'],
    [
      'an enum',
      { type: 'string', enum: ['a'], nullable: true },
      'write type: [string, "null"], and add null to its enum',
    ],
    [
      'no type',
      { $ref: '#/components/schemas/Other', nullable: true },
      'write anyOf: [<this schema>, { type: "null" }]',
    ],
    ['nullable: false', { type: 'string', nullable: false }, 'remove it'],
  ])('removes a 3.0 nullable from a schema with %s, naming its pointer', (_name, schema, fix) => {
    const { document, warnings } = workAroundMistakes(
      doc({
        components: { schemas: { Pet: { type: 'object', properties: { tag: schema } }, Other: { type: 'string' } } },
      }),
    );
    expect(at(document, 'components', 'schemas', 'Pet', 'properties', 'tag')).not.toHaveProperty('nullable');
    expect(warnings).toEqual([
      {
        pointer: '#/components/schemas/Pet/properties/tag',
        message: `nullable is an OpenAPI 3.0 keyword; 3.1 ignores it: ${fix}`,
      },
    ]);
  });

  it('leaves a property named nullable alone, and the bundled document unchanged', () => {
    const bundled = doc({
      components: {
        schemas: {
          Flags: { type: 'object', properties: { nullable: { type: 'boolean' } } },
          Tag: { type: 'string', nullable: true },
        },
      },
    });
    const { document, warnings } = workAroundMistakes(bundled);
    expect(at(document, 'components', 'schemas', 'Flags', 'properties', 'nullable')).toEqual({ type: 'boolean' });
    expect(warnings.map((w) => w.pointer)).toEqual(['#/components/schemas/Tag']);
    expect(at(bundled, 'components', 'schemas', 'Tag')).toEqual({ type: 'string', nullable: true });
  });

  it('names each example that does not match its schema, with the first error, and passes over it', () => {
    const media = {
      schema: { $ref: '#/components/schemas/Pet' },
      examples: { wrong: { $ref: '#/components/examples/Wrong' }, right: { value: { id: 2 } } },
    };
    const { document, warnings, rejectedExamples } = workAroundMistakes(
      doc({
        paths: {
          '/pets/{id}': {
            parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' }, example: 'one' }],
            get: {
              responses: {
                '200': {
                  description: 'ok',
                  headers: { 'X-Count': { schema: { type: 'integer', minimum: 0 }, example: -1 } },
                  content: {
                    'application/json': media,
                    'application/xml': { schema: { type: 'object' }, example: '<pet/>' },
                  },
                },
              },
            },
          },
        },
        components: {
          schemas: {
            Pet: {
              type: 'object',
              required: ['id'],
              properties: { id: { type: 'integer', format: 'int64' } },
              examples: [{ id: 2 ** 60 }, { id: 3 }],
            },
          },
          examples: { Wrong: { value: {} } },
        },
      }),
    );
    expect(warnings).toEqual([
      {
        pointer: '#/paths/~1pets~1{id}/parameters/0/example',
        message:
          'the example does not match its schema (/ must be integer): it is not used to build responses or requests',
      },
      {
        pointer: '#/paths/~1pets~1{id}/get/responses/200/headers/X-Count/example',
        message:
          'the example does not match its schema (/ must be >= 0): it is not used to build responses or requests',
      },
      {
        pointer: '#/paths/~1pets~1{id}/get/responses/200/content/application~1json/examples/wrong',
        message:
          "the example does not match its schema (/ must have required property 'id'): it is not used to build responses or requests",
      },
      {
        pointer: '#/components/schemas/Pet/examples/0',
        message:
          'the example does not match its schema (/id must match format "int64"): it is not used to build responses or requests',
      },
    ]);
    const served = at(
      document,
      'paths',
      '/pets/{id}',
      'get',
      'responses',
      '200',
      'content',
      'application/json',
    ) as Json;
    expect(mediaExample(document, served, rejectedExamples)).toEqual({ found: true, value: { id: 2 } });
    const schema = at(document, 'components', 'schemas', 'Pet') as Json;
    expect(mediaExample(document, { schema }, rejectedExamples)).toEqual({ found: true, value: { id: 3 } });
  });

  it('leaves out an extension that still holds a $ref to another file, and keeps the others', () => {
    const topics = [{ title: 'Getting started', content: { $ref: './docs/getting-started.md' } }];
    const { document, warnings } = workAroundMistakes(
      doc({
        'x-topics': topics,
        'x-logo': { url: 'logo.png' },
        'x-local': [{ $ref: '#/info' }],
        info: { title: 't', version: '1', 'x-deep': { list: [{ nested: { $ref: 'other.yaml' } }] } },
      }),
    );
    expect(document['x-topics']).toBeUndefined();
    expect(at(document, 'info', 'x-deep')).toBeUndefined();
    expect(document['x-logo']).toEqual({ url: 'logo.png' });
    expect(document['x-local']).toEqual([{ $ref: '#/info' }]);
    expect(warnings).toEqual([
      {
        pointer: '#/info/x-deep',
        message: expect.stringMatching(
          /^this extension holds a \$ref to "other\.yaml" that bundling left unresolved .*: it is left out of what is served and validated/,
        ),
      },
      {
        pointer: '#/x-topics',
        message: expect.stringMatching(
          /^this extension holds a \$ref to "\.\/docs\/getting-started\.md" that bundling left unresolved/,
        ),
      },
    ]);
  });

  it('rejects a readOnly property in a request’s example and a writeOnly one in a response’s, as the validator does', () => {
    const card = {
      type: 'object',
      properties: { id: { type: 'string', readOnly: true }, cvc: { type: 'string', writeOnly: true } },
    };
    const media = (example: unknown): Json => ({
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Card' }, example } },
    });
    const { warnings } = workAroundMistakes(
      doc({
        paths: {
          '/cards': {
            post: {
              requestBody: media({ id: 'c1', cvc: '123' }),
              responses: {
                '201': { description: 'made', ...media({ id: 'c1', cvc: '123' }) },
                '200': { description: 'kept', ...media({ id: 'c1' }) },
              },
            },
            put: { requestBody: media({ cvc: '123' }), responses: ok },
          },
        },
        components: { schemas: { Card: { ...card, examples: [{ id: 'c1', cvc: '123' }] } } },
      }),
    );
    expect(warnings.map((warning) => [warning.pointer, warning.message])).toEqual([
      [
        '#/paths/~1cards/post/requestBody/content/application~1json/example',
        'the example does not match its schema (/id is read-only): it is not used to build responses or requests',
      ],
      [
        '#/paths/~1cards/post/responses/201/content/application~1json/example',
        'the example does not match its schema (/cvc is write-only): it is not used to build responses or requests',
      ],
    ]);
  });
});
