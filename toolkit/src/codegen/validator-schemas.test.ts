import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import type { OpenApiDocument } from './bundle.js';
import { GeneratorError } from './generator-error.js';
import { rejectUncompilableSchemas, rewriteForValidator } from './validator-schemas.js';

const ok = { '200': { description: 'ok' } };

/** A document whose `/a` takes one query parameter of `schema`, with `schemas` in its components. */
const documentWith = (schema: unknown, schemas: Record<string, unknown> = {}): OpenApiDocument =>
  ({
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    paths: { '/a': { get: { parameters: [{ name: 'n', in: 'query', schema }], responses: ok } } },
    components: { schemas },
  }) as unknown as OpenApiDocument;

const parameterSchema = (document: OpenApiDocument): unknown =>
  (document.paths?.['/a'] as { get: { parameters: ReadonlyArray<{ schema: unknown }> } }).get.parameters[0]?.schema;

/** Compiles as the validator's Ajv does (runtime/openapi-validation.ts, express-openapi-validator's options). */
const validatorAjv = (): Ajv2020 =>
  new Ajv2020({
    strict: false,
    strictNumbers: true,
    strictTuples: false,
    allowUnionTypes: false,
    validateSchema: false,
    logger: false,
  });

function rejection(document: OpenApiDocument): GeneratorError {
  try {
    rejectUncompilableSchemas(document);
  } catch (error) {
    if (error instanceof GeneratorError) return error;
    throw error;
  }
  throw new Error('not rejected');
}

describe('rewriteForValidator', () => {
  it.each([
    [
      'an empty enum beside an allOf',
      { allOf: [{ type: 'string' }], enum: [] },
      { allOf: [{ type: 'string' }], not: {} },
      ['/enum'],
      ['x', '', 0, null],
      [],
    ],
    [
      'an empty enum beside a not',
      { not: { const: 1 }, enum: [] },
      { not: { const: 1 }, allOf: [{ not: {} }] },
      ['/enum'],
      [2, 'x'],
      [],
    ],
    [
      'boolean exclusive bounds',
      { type: 'integer', minimum: 5, exclusiveMinimum: true, maximum: 9, exclusiveMaximum: false },
      { type: 'integer', exclusiveMinimum: 5, maximum: 9 },
      ['/exclusiveMinimum', '/exclusiveMaximum'],
      [5, 10],
      [6, 9],
    ],
    [
      'a list of items',
      { type: 'array', items: [{ type: 'string' }, { type: 'integer' }], additionalItems: false },
      { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], items: false },
      ['/items', '/additionalItems'],
      [
        [1, 'a'],
        ['a', 1, 2],
      ],
      [['a', 1], ['a']],
    ],
    ['an id', { id: 'Thing', type: 'string' }, { type: 'string' }, ['/id'], [1], ['x']],
    [
      'patterns the u flag rejects',
      {
        type: 'object',
        properties: { code: { type: 'string', pattern: '^[\\w-.]+$' } },
        patternProperties: { '^x\\-': { type: 'integer' } },
      },
      {
        type: 'object',
        properties: { code: { type: 'string', pattern: '^[\\w\\-.]+$' } },
        patternProperties: { '^x-': { type: 'integer' } },
      },
      ['/patternProperties/^x\\-', '/properties/code/pattern'],
      [{ code: 'a b' }, { 'x-a': 'one' }],
      [{ code: 'a-b.c' }, { 'x-a': 1 }],
    ],
  ])(
    'rewrites %s to what the validator compiles, matching the same values',
    (_name, schema, read, pointers, invalid, valid) => {
      const document = documentWith(schema);
      const warnings = rewriteForValidator(document);
      expect(parameterSchema(document)).toEqual(read);
      expect(warnings.map((warning) => warning.pointer).sort()).toEqual(
        pointers.map((pointer) => `#/paths/~1a/get/parameters/0/schema${pointer}`).sort(),
      );
      const validate = validatorAjv().compile(read);
      for (const value of invalid) expect(validate(value), JSON.stringify(value)).toBe(false);
      for (const value of valid) expect(validate(value), JSON.stringify(value)).toBe(true);
      expect(() => rejectUncompilableSchemas(document)).not.toThrow();
    },
  );

  it('names each change and what it is read as', () => {
    const document = documentWith(
      { allOf: [{ type: 'string' }], enum: [] },
      { A: { type: 'number', minimum: 0, exclusiveMinimum: true } },
    );
    expect(rewriteForValidator(document)).toEqual([
      {
        pointer: '#/paths/~1a/get/parameters/0/schema/enum',
        message:
          'an empty enum, which no value matches, and which the validator (Ajv) cannot compile: read as not: {}, which no value matches either',
      },
      {
        pointer: '#/components/schemas/A/exclusiveMinimum',
        message:
          "a boolean is draft-04's form (and OpenAPI 3.0's), which the validator (Ajv) cannot compile: minimum: 0 with exclusiveMinimum: true is read as exclusiveMinimum: 0, JSON Schema 2020-12's form",
      },
    ]);
  });

  it('leaves a document the validator compiles as it is', () => {
    const document = documentWith(
      { type: 'string', enum: ['a'], pattern: '^\\p{L}+$' },
      { A: { type: 'object', properties: { id: { type: 'integer' } }, $defs: { B: { items: { type: 'string' } } } } },
    );
    const before = structuredClone(document);
    expect(rewriteForValidator(document)).toEqual([]);
    expect(document).toEqual(before);
  });
});

describe('rejectUncompilableSchemas', () => {
  it.each([
    [
      'a type JSON Schema does not have, at the keyword',
      documentWith({}, { Upload: { type: 'object', properties: { file: { type: 'file' } } } }),
      '#/components/schemas/Upload/properties/file/type',
      'type must be JSONType or JSONType[]: file',
    ],
    [
      'a required flag on a property, at the keyword',
      documentWith({ type: 'object', properties: { a: { type: 'string', required: true } } }),
      '#/paths/~1a/get/parameters/0/schema/properties/a/required',
      'required value must be ["array"]',
    ],
    [
      'the schema a reference leads to, where it is written',
      documentWith({ $ref: '#/components/schemas/Bad' }, { Bad: { type: 'string', minLength: 'two' } }),
      '#/components/schemas/Bad/minLength',
      'minLength value must be ["number"]',
    ],
    [
      'a pattern no flag reads as the document means it',
      documentWith({ type: 'string', pattern: '^(?=a)*$' }),
      '#/paths/~1a/get/parameters/0/schema/pattern',
      'Invalid regular expression',
    ],
    [
      'a reference that leads nowhere',
      documentWith({ type: 'array', items: { $ref: '#/components/schemas/Missing' } }),
      '#/paths/~1a/get/parameters/0/schema/items/$ref',
      "can't resolve reference #/components/schemas/Missing",
    ],
  ])('rejects %s, naming it', (_name, document, pointer, said) => {
    const error = rejection(document);
    expect(error.pointer).toBe(pointer);
    expect(error.message).toContain(said);
    expect(error.message).toContain('the validator (Ajv) cannot compile this schema');
  });

  it('leaves the schemas of webhooks, which the server sends and the validator never checks, to their readers', () => {
    const document = {
      ...documentWith({ type: 'string' }),
      webhooks: {
        tick: {
          post: {
            requestBody: { content: { 'application/json': { schema: { type: 'file' } } } },
            responses: { '200': { description: 'ok' } },
          },
        },
      },
    } as OpenApiDocument;
    expect(() => rejectUncompilableSchemas(document)).not.toThrow();
  });

  it('compiles a document whose schemas reference each other and into each other’s $defs', () => {
    const document = documentWith(
      { $ref: '#/components/schemas/Trip/$defs/Money' },
      {
        Trip: {
          type: 'object',
          properties: {
            fare: { $ref: '#/components/schemas/Trip/$defs/Money' },
            next: { $ref: '#/components/schemas/Trip' },
          },
          $defs: { Money: { $id: 'https://example.test/money.json', type: 'object', required: ['amount'] } },
        },
      },
    );
    expect(() => rejectUncompilableSchemas(document)).not.toThrow();
  });
});
