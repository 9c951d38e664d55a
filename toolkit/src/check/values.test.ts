import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Schemas } from './schemas.js';
import { ORDINARY_TEXT, valuesOf, withoutLookarounds, type Channel } from './values.js';

/** A document whose components the table's schemas refer to. */
const document = {
  openapi: '3.1.0',
  info: { title: 'values', version: '1' },
  paths: {},
  components: {
    schemas: {
      Node: {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string', maxLength: 5 },
          children: { type: 'array', items: { $ref: '#/components/schemas/Node' } },
        },
      },
      Cat: {
        allOf: [
          { $ref: '#/components/schemas/PetBase' },
          { type: 'object', required: ['meows'], properties: { meows: { type: 'boolean' } } },
        ],
      },
      Dog: {
        allOf: [
          { $ref: '#/components/schemas/PetBase' },
          { type: 'object', required: ['barks'], properties: { barks: { type: 'integer', minimum: 0 } } },
        ],
      },
      PetBase: { type: 'object', required: ['kind'], properties: { kind: { type: 'string' } } },
      Pet: {
        oneOf: [{ $ref: '#/components/schemas/Cat' }, { $ref: '#/components/schemas/Dog' }],
        discriminator: {
          propertyName: 'kind',
          mapping: { cat: '#/components/schemas/Cat', dog: '#/components/schemas/Dog' },
        },
      },
      Account: {
        type: 'object',
        required: ['id', 'owner'],
        properties: { id: { type: 'string', readOnly: true }, owner: { type: 'string', minLength: 1 } },
        additionalProperties: false,
      },
    },
  },
};

const table: ReadonlyArray<[string, unknown]> = [
  ['a type list with null', { type: ['string', 'null'], maxLength: 3 }],
  ['const', { const: 'fixed' }],
  ['enum', { enum: ['a', 'b', 3, null] }],
  ['date', { type: 'string', format: 'date' }],
  ['date-time', { type: 'string', format: 'date-time' }],
  ['time', { type: 'string', format: 'time' }],
  ['uuid', { type: 'string', format: 'uuid' }],
  ['email', { type: 'string', format: 'email' }],
  ['uri', { type: 'string', format: 'uri' }],
  ['hostname', { type: 'string', format: 'hostname' }],
  ['ipv4', { type: 'string', format: 'ipv4' }],
  ['ipv6', { type: 'string', format: 'ipv6' }],
  ['int32', { type: 'integer', format: 'int32' }],
  ['int64', { type: 'integer', format: 'int64' }],
  ['byte', { type: 'string', format: 'byte' }],
  ['pattern', { type: 'string', pattern: '^[A-Z]{2}-\\d{3}$' }],
  ['lengths', { type: 'string', minLength: 2, maxLength: 4 }],
  ['integer bounds', { type: 'integer', minimum: -5, maximum: 5 }],
  ['exclusive bounds', { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 }],
  ['multipleOf', { type: 'number', multipleOf: 0.01, minimum: 0, maximum: 100 }],
  ['integer multipleOf', { type: 'integer', multipleOf: 5 }],
  ['items and lengths', { type: 'array', items: { type: 'integer' }, minItems: 1, maxItems: 3 }],
  ['prefixItems', { type: 'array', prefixItems: [{ type: 'string' }, { type: 'boolean' }], items: false, minItems: 2 }],
  ['uniqueItems', { type: 'array', items: { enum: [1, 2, 3, 4] }, uniqueItems: true }],
  [
    'required and closed',
    {
      type: 'object',
      required: ['a'],
      properties: { a: { type: 'integer' }, b: { type: 'string' } },
      additionalProperties: false,
    },
  ],
  ['additionalProperties schema', { type: 'object', additionalProperties: { type: 'integer' } }],
  [
    'unevaluatedProperties false',
    {
      allOf: [{ type: 'object', properties: { a: { type: 'string' } } }],
      properties: { b: { type: 'string' } },
      unevaluatedProperties: false,
    },
  ],
  ['readOnly left out of requests', { $ref: '#/components/schemas/Account' }],
  [
    'allOf merged',
    {
      allOf: [
        { type: 'object', required: ['a'], properties: { a: { type: 'string', minLength: 1 } } },
        { required: ['b'], properties: { b: { type: 'integer', maximum: 0 } } },
      ],
    },
  ],
  [
    'oneOf branches',
    { oneOf: [{ type: 'string', maxLength: 2 }, { type: 'integer' }, { type: 'array', maxItems: 0 }] },
  ],
  ['anyOf branches', { anyOf: [{ type: 'string', format: 'uuid' }, { type: 'boolean' }] }],
  ['discriminator', { $ref: '#/components/schemas/Pet' }],
  ['recursive reference', { $ref: '#/components/schemas/Node' }],
  ['examples', { type: 'string', maxLength: 4, examples: ['abcd', 'ab'] }],
  ['no type', {}],
];

describe('values generated from a schema', () => {
  const schemas = new Schemas(document);
  // Each schema is checked where it is written: under a pointer of its own in a copy of the document.
  const withTable = {
    ...document,
    'x-table': Object.fromEntries(table.map(([, schema], index) => [String(index), schema])),
  };
  const tableSchemas = new Schemas(withTable);

  it('reads the table (a value off its schema is rejected)', () => {
    expect(tableSchemas.problem('request', '#/x-table/16', 'abcdef')?.message).toBe(
      '/ must NOT have more than 4 characters',
    );
    expect(tableSchemas.notes).toEqual([]);
  });

  it.each(table.map(([name, schema], index): [string, unknown, number] => [name, schema, index]))(
    '%s: every generated value matches the schema',
    (_name, schema, index) => {
      const values = valuesOf(withTable, schema, { channel: 'body', direction: 'request' });
      expect(values).toBeDefined();
      if (values === undefined) return;
      fc.assert(
        fc.property(values, (value) => {
          const problem = tableSchemas.problem('request', `#/x-table/${index}`, value);
          expect(problem?.message, JSON.stringify(value)).toBeUndefined();
        }),
        { numRuns: 150, seed: 7 },
      );
      expect(tableSchemas.notes).toEqual([]);
    },
  );

  it('generates each branch of a discriminated oneOf with its tag', () => {
    const values = valuesOf(document, { $ref: '#/components/schemas/Pet' }, { channel: 'body', direction: 'request' });
    const kinds = new Set(
      fc.sample(values ?? fc.constant(null), { numRuns: 100, seed: 3 }).map((pet) => (pet as { kind?: unknown }).kind),
    );
    expect(kinds).toEqual(new Set(['cat', 'dog']));
  });

  it('leaves readOnly properties out of requests, and the request reading does not require them', () => {
    const values = valuesOf(
      document,
      { $ref: '#/components/schemas/Account' },
      { channel: 'body', direction: 'request' },
    );
    const generated = fc.sample(values ?? fc.constant(null), { numRuns: 50, seed: 1 });
    expect(generated.every((account) => !Object.hasOwn(account as object, 'id'))).toBe(true);
    expect(schemas.valid('request', '#/components/schemas/Account', { owner: 'x' })).toBe(true);
    expect(schemas.valid('response', '#/components/schemas/Account', { owner: 'x' })).toBe(false);
  });

  it('generates long strings now and then where there is no maxLength', () => {
    const values = valuesOf(document, { type: 'string' }, { channel: 'body', direction: 'request' });
    const lengths = fc
      .sample(values ?? fc.constant(''), { numRuns: 400, seed: 11 })
      .map((text) => [...(text as string)].length);
    expect(Math.max(...lengths)).toBeGreaterThanOrEqual(1000);
    expect(lengths.filter((length) => length < 100).length).toBeGreaterThan(300);
  });

  it('mixes in the schema examples', () => {
    const values = valuesOf(
      document,
      { type: 'string', examples: ['from-the-document'] },
      { channel: 'body', direction: 'request' },
    );
    expect(fc.sample(values ?? fc.constant(''), { numRuns: 100, seed: 2 })).toContain('from-the-document');
  });

  it.each<[Channel, RegExp]>([
    ['header', /^[\x20-\x7e]*$/],
    ['path', /^.+$/su],
  ])('keeps %s values sendable', (channel, shape) => {
    const values = valuesOf(document, { type: 'string' }, { channel, direction: 'request' });
    for (const text of fc.sample(values ?? fc.constant(''), { numRuns: 300, seed: 5 })) {
      expect(text).toMatch(shape);
      if (channel === 'header') expect(text).toBe((text as string).trim());
    }
  });

  it.each(table.map(([name, schema], index): [string, unknown, number] => [name, schema, index]))(
    '%s: every ordinary value matches the schema',
    (_name, schema, index) => {
      const values = valuesOf(withTable, schema, { channel: 'body', direction: 'request', ordinary: true });
      expect(values).toBeDefined();
      if (values === undefined) return;
      fc.assert(
        fc.property(values, (value) => {
          expect(
            tableSchemas.problem('request', `#/x-table/${index}`, value)?.message,
            JSON.stringify(value),
          ).toBeUndefined();
        }),
        { numRuns: 100, seed: 7 },
      );
    },
  );

  it('generates ordinary text: printable characters of ORDINARY_TEXT, short, the longest allowed now and then', () => {
    const open = valuesOf(document, { type: 'string' }, { channel: 'body', direction: 'request', ordinary: true });
    const texts = fc.sample(open ?? fc.constant(''), { numRuns: 400, seed: 11 }).map(String);
    const allowed = new Set(ORDINARY_TEXT);
    for (const text of texts) {
      expect(text).not.toMatch(/[\u0000-\u001f\u007f]/);
      expect(
        [...text].every((character) => allowed.has(character)),
        text,
      ).toBe(true);
    }
    expect(Math.max(...texts.map((text) => [...text].length))).toBeLessThanOrEqual(20);
    const bounded = valuesOf(
      document,
      { type: 'string', maxLength: 30 },
      { channel: 'text', direction: 'request', ordinary: true },
    );
    expect(fc.sample(bounded ?? fc.constant(''), { numRuns: 300, seed: 4 })).toContain('😀'.repeat(30));
  });

  it('adds no undeclared properties to open objects when ordinary', () => {
    const values = valuesOf(
      document,
      { type: 'object', required: ['a'], properties: { a: { type: 'integer' } } },
      { channel: 'body', direction: 'request', ordinary: true },
    );
    for (const value of fc.sample(values ?? fc.constant({}), { numRuns: 200, seed: 9 }))
      expect(Object.keys(value as object)).toEqual(['a']);
  });

  it('generates from patterns fast-check cannot read whole: lookarounds, \\b, backreferences', () => {
    const generate = (pattern: string) =>
      fc.sample(
        valuesOf(document, { type: 'string', pattern }, { channel: 'body', direction: 'request' }) ?? fc.constant(null),
        { numRuns: 100, seed: 5 },
      );
    // A prefix the pattern rejects: what follows the lookahead always holds, the lookahead nearly always.
    const ids = generate('^(?!sink_)[a-zA-Z0-9_-]+$') as string[];
    expect(ids.every((id) => /^[a-zA-Z0-9_-]+$/.test(id))).toBe(true);
    expect(ids.filter((id) => !id.startsWith('sink_')).length).toBeGreaterThan(90);
    expect((generate('^\\bv(?<=v)\\d+\\B$') as string[]).every((version) => /^v\d+$/.test(version))).toBe(true);
    // A backreference: generated as plain strings, which the whole pattern then rejects (such requests are not sent).
    expect(generate('^(a)\\1$')).toHaveLength(100);
  });

  it('reads a pattern without its lookarounds, keeping groups, classes and escapes', () => {
    expect(withoutLookarounds('^(?!sink_)[a-z]+$')).toBe('^[a-z]+$');
    expect(withoutLookarounds('^(?=.*\\d)(?=.*[a-z(])(?<!x)(?<=(y|z))\\w+\\b$')).toBe('^\\w+$');
    expect(withoutLookarounds('^(ab|(?:c\\)))[\\b(?=]\\(?=$')).toBe('^(ab|(?:c\\)))[\\b(?=]\\(?=$');
  });

  it('gives nothing for a schema no value matches', () => {
    expect(valuesOf(document, false, { channel: 'body', direction: 'request' })).toBeUndefined();
    expect(
      valuesOf(document, { type: 'integer', minimum: 3, maximum: 2 }, { channel: 'body', direction: 'request' }),
    ).toBeUndefined();
  });
});

describe('objects generated', () => {
  it('keep Object’s prototype, which Ajv’s comparison of values (enum, const, uniqueItems) needs', () => {
    const schema = { type: 'object', properties: { a: { type: 'object', properties: { b: { type: 'integer' } } } } };
    const prototypes = new Set<unknown>();
    const visit = (value: unknown): void => {
      if (typeof value !== 'object' || value === null) return;
      if (!Array.isArray(value)) prototypes.add(Object.getPrototypeOf(value));
      Object.values(value).forEach(visit);
    };
    for (const ordinary of [true, false]) {
      const values = valuesOf(document, schema, { channel: 'body', direction: 'request', ordinary });
      fc.sample(values!, { numRuns: 300, seed: 3 }).forEach(visit);
    }
    expect([...prototypes]).toEqual([Object.prototype]);
  });
});
