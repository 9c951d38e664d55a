import { describe, expect, it } from 'vitest';
import type { OpenApiDocument } from './bundle.js';
import { GeneratorError } from './generator-error.js';
import { dialectOf, readSchemaDialects } from './schema-dialects.js';

const ok = { '200': { description: 'ok' } };
const DRAFT_04 = 'http://json-schema.org/draft-04/schema#';

/** A document whose `/a` takes one query parameter of `schema`, with `components` and any top-level `extra`. */
const documentWith = (
  schema: unknown,
  components: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
): OpenApiDocument & Record<string, unknown> =>
  ({
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    ...extra,
    paths: { '/a': { get: { parameters: [{ name: 'n', in: 'query', schema }], responses: ok } } },
    components: { schemas: components },
  }) as unknown as OpenApiDocument & Record<string, unknown>;

const parameterSchema = (document: OpenApiDocument): unknown =>
  (document.paths?.['/a'] as { get: { parameters: ReadonlyArray<{ schema: unknown }> } }).get.parameters[0]?.schema;

function rejection(document: OpenApiDocument): GeneratorError {
  try {
    readSchemaDialects(document);
  } catch (error) {
    if (error instanceof GeneratorError) return error;
    throw error;
  }
  throw new Error('not rejected');
}

describe('dialectOf', () => {
  it.each([
    ['http://json-schema.org/draft-04/schema#', 'draft-04'],
    ['https://json-schema.org/draft-04/schema', 'draft-04'],
    ['http://json-schema.org/draft-06/schema', 'draft-06'],
    ['https://json-schema.org/draft-07/schema#', 'draft-07'],
    ['https://json-schema.org/draft/2019-09/schema', '2019-09'],
    ['https://json-schema.org/draft/2020-12/schema#', '2020-12'],
    ['https://spec.openapis.org/oas/3.1/dialect/base', '2020-12'],
    ['https://spec.openapis.org/oas/3.1/dialect/2024-11-10', '2020-12'],
    ['http://json-schema.org/draft-03/schema#', undefined],
    ['http://json-schema.org/schema#', undefined],
    [4, undefined],
  ])('%s is %s', (uri, dialect) => {
    expect(dialectOf(uri)).toBe(dialect);
  });
});

describe('readSchemaDialects', () => {
  it('reads a document of draft-04 in the forms of 2020-12, each change named where the document writes it', () => {
    const document = documentWith(
      { type: 'integer', minimum: 5, exclusiveMinimum: true, maximum: 9, exclusiveMaximum: false },
      {
        Trip: {
          id: 'https://example.test/trip.json',
          type: 'object',
          properties: {
            id: { type: 'integer' },
            route: { type: 'array', items: [{ type: 'string' }, { type: 'string' }], additionalItems: false },
            tags: { type: 'array', items: { type: 'string' }, additionalItems: false },
            fare: { $ref: '#/components/schemas/Trip/definitions/Money' },
            legacy: { $ref: '#/components/schemas/Trip/definitions/Money', maxLength: 3, description: 'kept' },
            low: { type: 'number', exclusiveMinimum: true },
          },
          dependencies: { returnDate: ['fare'], fare: { required: ['route'] } },
          definitions: {
            Money: {
              id: '#money',
              type: 'object',
              definitions: { Currency: { type: 'string' } },
              properties: { currency: { $ref: '#/components/schemas/Trip/definitions/Money/definitions/Currency' } },
            },
          },
        },
      },
      { jsonSchemaDialect: DRAFT_04 },
    );
    const warnings = readSchemaDialects(document);
    expect(document['jsonSchemaDialect']).toBeUndefined();
    expect(parameterSchema(document)).toEqual({ type: 'integer', exclusiveMinimum: 5, maximum: 9 });
    expect(document.components?.['schemas']).toEqual({
      Trip: {
        $id: 'https://example.test/trip.json',
        type: 'object',
        properties: {
          id: { type: 'integer' },
          route: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'string' }], items: false },
          tags: { type: 'array', items: { type: 'string' } },
          fare: { $ref: '#/components/schemas/Trip/$defs/Money' },
          legacy: { $ref: '#/components/schemas/Trip/$defs/Money', description: 'kept' },
          low: { type: 'number' },
        },
        dependentRequired: { returnDate: ['fare'] },
        dependentSchemas: { fare: { required: ['route'] } },
        $defs: {
          Money: {
            $anchor: 'money',
            type: 'object',
            $defs: { Currency: { type: 'string' } },
            properties: { currency: { $ref: '#/components/schemas/Trip/$defs/Money/$defs/Currency' } },
          },
        },
      },
    });
    const draft04 = 'JSON Schema draft-04';
    expect(warnings).toEqual([
      {
        pointer: '#/jsonSchemaDialect',
        message:
          "declares JSON Schema draft-04 for the document's schemas: they are read in JSON Schema 2020-12's forms (OpenAPI 3.1's dialect), each change named, and the declaration is left out",
      },
      {
        pointer: '#/paths/~1a/get/parameters/0/schema/exclusiveMinimum',
        message: `${draft04}: minimum: 5 with exclusiveMinimum: true is read as exclusiveMinimum: 5, JSON Schema 2020-12's form`,
      },
      {
        pointer: '#/paths/~1a/get/parameters/0/schema/exclusiveMaximum',
        message: `${draft04}: exclusiveMaximum: false leaves the maximum inclusive, as JSON Schema 2020-12 reads it alone; left out`,
      },
      {
        pointer: '#/components/schemas/Trip/id',
        message: `${draft04}: id "https://example.test/trip.json" is read as $id "https://example.test/trip.json", JSON Schema 2020-12's form`,
      },
      {
        pointer: '#/components/schemas/Trip/definitions',
        message: `${draft04}: read as $defs, JSON Schema 2020-12's name for it (references into it follow)`,
      },
      {
        pointer: '#/components/schemas/Trip/dependencies',
        message: `${draft04}: read as dependentRequired ("returnDate") and dependentSchemas ("fare"), JSON Schema 2020-12's forms`,
      },
      {
        pointer: '#/components/schemas/Trip/properties/route/items',
        message: `${draft04}: a list of schemas, one for each position, is read as prefixItems, JSON Schema 2020-12's form`,
      },
      {
        pointer: '#/components/schemas/Trip/properties/route/additionalItems',
        message: `${draft04}: the schema of the items past those listed is read as items, JSON Schema 2020-12's form`,
      },
      {
        pointer: '#/components/schemas/Trip/properties/tags/additionalItems',
        message: `${draft04}: additionalItems applies only beside a list of items, and there is none: it constrains nothing; left out`,
      },
      {
        pointer: '#/components/schemas/Trip/properties/legacy',
        message: `${draft04} ignores the keywords beside $ref, and JSON Schema 2020-12 applies them: maxLength left out`,
      },
      {
        pointer: '#/components/schemas/Trip/properties/low/exclusiveMinimum',
        message: `${draft04}: exclusiveMinimum: true without a minimum bounds nothing; left out`,
      },
      {
        pointer: '#/components/schemas/Trip/definitions/Money/id',
        message: `${draft04}: id "#money" names this schema: read as $anchor "money", JSON Schema 2020-12's form`,
      },
      {
        pointer: '#/components/schemas/Trip/definitions/Money/definitions',
        message: `${draft04}: read as $defs, JSON Schema 2020-12's name for it (references into it follow)`,
      },
    ]);
  });

  it('reads a schema by the dialect its $schema declares, and the schemas inside it, not its neighbours', () => {
    const document = documentWith(
      { type: 'array', items: [{ type: 'string' }] },
      {
        Old: {
          $schema: 'https://json-schema.org/draft-07/schema',
          $id: '#old',
          type: 'object',
          properties: {
            inner: { type: 'array', items: [{ type: 'integer' }] },
            modern: {
              $schema: 'https://json-schema.org/draft/2020-12/schema',
              type: 'array',
              items: { type: 'integer' },
            },
          },
        },
      },
    );
    const warnings = readSchemaDialects(document);
    // A list of items where the document declares no other dialect is 2020-12's to reject (validator-schemas.ts).
    expect(parameterSchema(document)).toEqual({ type: 'array', items: [{ type: 'string' }] });
    expect(document.components?.['schemas']).toEqual({
      Old: {
        $anchor: 'old',
        type: 'object',
        properties: {
          inner: { type: 'array', prefixItems: [{ type: 'integer' }] },
          modern: {
            $schema: 'https://json-schema.org/draft/2020-12/schema',
            type: 'array',
            items: { type: 'integer' },
          },
        },
      },
    });
    expect(warnings.map((warning) => warning.pointer)).toEqual([
      '#/components/schemas/Old/$schema',
      '#/components/schemas/Old/$id',
      '#/components/schemas/Old/properties/inner/items',
    ]);
  });

  it('leaves a document of JSON Schema 2020-12 or OpenAPI 3.1’s dialect as it is, without a warning', () => {
    const schema = { $schema: 'https://json-schema.org/draft/2020-12/schema#', type: 'number', exclusiveMinimum: 1 };
    const document = documentWith(
      schema,
      { A: { definitions: { B: { type: 'string' } }, id: 'x' } },
      {
        jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
      },
    );
    const before = structuredClone(document);
    expect(readSchemaDialects(document)).toEqual([]);
    expect(document).toEqual(before);
  });

  it.each([
    [
      'an unknown dialect for the document',
      documentWith({}, {}, { jsonSchemaDialect: 'http://json-schema.org/draft-03/schema#' }),
      '#/jsonSchemaDialect',
    ],
    [
      'an unknown dialect for one schema',
      documentWith({ $schema: 'https://example.test/mine' }),
      '#/paths/~1a/get/parameters/0/schema/$schema',
    ],
    [
      "2019-09's $recursiveRef, which 2020-12 has no exact form for",
      documentWith(
        {},
        {
          Tree: {
            $schema: 'https://json-schema.org/draft/2019-09/schema',
            $recursiveAnchor: true,
            items: { $recursiveRef: '#' },
          },
        },
      ),
      '#/components/schemas/Tree/$recursiveAnchor',
    ],
    [
      'an id with a fragment beside a URI, which no 2020-12 keyword writes',
      documentWith({}, { A: { id: 'a.json#part' } }, { jsonSchemaDialect: DRAFT_04 }),
      '#/components/schemas/A/id',
    ],
    [
      'definitions beside $defs',
      documentWith({}, { A: { definitions: { B: {} }, $defs: { C: {} } } }, { jsonSchemaDialect: DRAFT_04 }),
      '#/components/schemas/A/definitions',
    ],
    [
      'a dependency that is neither a list nor a schema',
      documentWith({}, { A: { dependencies: { 'x/y': 5 } } }, { jsonSchemaDialect: DRAFT_04 }),
      '#/components/schemas/A/dependencies/x~1y',
    ],
  ])('rejects %s, naming where', (_name, document, pointer) => {
    const error = rejection(document);
    expect(error.pointer).toBe(pointer);
    expect(error.message).toContain(pointer);
  });
});
