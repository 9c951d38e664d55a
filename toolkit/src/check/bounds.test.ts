import { describe, expect, it } from 'vitest';
import { classPattern, insideBounds, nextDouble, outsideBounds, wrongTypes } from './bounds.js';
import { Schemas } from './schemas.js';

const document = {
  openapi: '3.1.0',
  info: { title: 'bounds', version: '1' },
  paths: {},
  components: {
    schemas: {
      Id: { type: 'string', pattern: '^[a-c_-]{2,4}$' },
      Amount: { type: 'integer', minimum: 1, maximum: 500 },
      Note: { type: 'string', minLength: 2, maxLength: 5 },
      Status: { type: 'string', enum: ['PENDING', 'DONE'] },
      Statuses: { type: 'array', minItems: 1, items: { $ref: '#/components/schemas/Status' } },
      Ids: { type: 'array', items: { $ref: '#/components/schemas/Id' } },
      Offset: { type: 'integer', minimum: -5, maximum: 5 },
      Ratio: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
      Step: { type: 'integer', minimum: 3, maximum: 22, multipleOf: 5 },
      Price: { type: 'number', exclusiveMinimum: 0, maximum: 10.005, multipleOf: 0.01 },
      Floor: { type: 'integer', exclusiveMinimum: -1, exclusiveMaximum: 3 },
      Codes: { type: 'array', minItems: 2, maxItems: 4, items: { type: 'string', pattern: '^[A-Z]{3}$' } },
      Colors: { type: 'array', uniqueItems: true, minItems: 2, items: { enum: ['red', 'green', 'blue'] } },
    },
  },
};

const schemas = new Schemas(document);
const ref = (name: string): { $ref: string } => ({ $ref: `#/components/schemas/${name}` });
const valid = (name: string, value: unknown): boolean =>
  schemas.valid('request', `#/components/schemas/${name}`, value);

describe('classPattern', () => {
  it('reads a character class with its repetition', () => {
    expect(classPattern('^[a-c_-]{2,4}$')).toEqual({ chars: 'abc_-', min: 2, max: 4 });
    expect(classPattern('^[0-9]{4}$')).toEqual({ chars: '0123456789', min: 4, max: 4 });
    expect(classPattern('^[a-z]+$')).toEqual({ chars: 'abcdefghijklmnopqrstuvwxyz', min: 1, max: undefined });
  });
  it('gives nothing for other patterns', () => {
    expect(classPattern('^(a|b)$')).toBeUndefined();
    expect(classPattern('^[^a]{1,2}$')).toBeUndefined();
    expect(classPattern(undefined)).toBeUndefined();
  });
});

describe('bounds', () => {
  const cases = [
    'Id',
    'Amount',
    'Note',
    'Status',
    'Statuses',
    'Ids',
    'Offset',
    'Ratio',
    'Step',
    'Price',
    'Floor',
    'Codes',
    'Colors',
  ];

  it.each(cases)('%s: every value just inside is valid, every value just outside is not', (name) => {
    const inside = insideBounds(document, ref(name));
    const outside = outsideBounds(document, ref(name));
    expect(inside.length + outside.length).toBeGreaterThan(0);
    for (const { label, value } of inside) expect(valid(name, value), `${label}: ${JSON.stringify(value)}`).toBe(true);
    for (const { label, value } of outside)
      expect(valid(name, value), `${label}: ${JSON.stringify(value)}`).toBe(false);
  });

  it('puts the bounds themselves inside and one past them outside', () => {
    expect(insideBounds(document, ref('Amount')).map((b) => b.value)).toEqual([1, 500]);
    expect(insideBounds(document, ref('Offset')).map((b) => b.value)).toEqual([-5, 5, 0]);
    expect(outsideBounds(document, ref('Amount')).map((b) => b.value)).toEqual([0, 501, 1.5]);
    expect(insideBounds(document, ref('Note')).map((b) => [...String(b.value)].length)).toEqual([2, 5, 5, 5]);
    expect(outsideBounds(document, ref('Note')).map((b) => [...String(b.value)].length)).toEqual([1, 6, 6]);
    expect(insideBounds(document, ref('Id')).map((b) => b.value)).toEqual(['aa', '----']);
  });

  it('puts an exclusive bound one step inside: the multipleOf, 1 for an integer, else the next double', () => {
    expect(insideBounds(document, ref('Ratio')).map((b) => b.value)).toEqual([Number.MIN_VALUE, nextDouble(1, -1)]);
    expect(nextDouble(1, -1)).toBeLessThan(1);
    expect(nextDouble(1, 1)).toBe(1 + Number.EPSILON);
    expect(insideBounds(document, ref('Floor')).map((b) => [b.label, b.value])).toEqual([
      ['exclusiveMinimum -1, one step above', 0],
      ['exclusiveMaximum 3, one step below', 2],
    ]);
    expect(insideBounds(document, ref('Price')).map((b) => b.value)).toEqual([10, 0.01]);
  });

  it('moves a bound onto the multipleOf', () => {
    expect(insideBounds(document, ref('Step')).map((b) => b.value)).toEqual([5, 20]);
  });

  it('makes lists of minItems and maxItems items', () => {
    expect(insideBounds(document, ref('Codes')).map((b) => [b.label, b.value])).toEqual([
      ['2 items (minItems)', ['AAA', 'AAA']],
      ['4 items (maxItems)', ['AAA', 'AAA', 'AAA', 'AAA']],
    ]);
    // Unique items: distinct enum values; no single item under minItems 2.
    expect(insideBounds(document, ref('Colors')).map((b) => b.value)).toEqual([
      ['red', 'green', 'blue'],
      ['red', 'green'],
    ]);
  });

  it('names the characters a class pattern leaves out', () => {
    const labels = outsideBounds(document, ref('Id')).map((b) => b.label);
    expect(labels).toContain('character "." outside the pattern');
    expect(labels).not.toContain('character "-" outside the pattern');
  });

  it('declares no bounds for a schema without any', () => {
    expect(insideBounds(document, { type: 'boolean' })).toEqual([]);
    expect(outsideBounds(document, { type: 'object' })).toEqual([]);
  });
});

describe('wrongTypes', () => {
  it('gives only values of other types, each rejected by the schema', () => {
    for (const name of ['Amount', 'Note', 'Status', 'Statuses']) {
      const wrong = wrongTypes(document, ref(name));
      expect(wrong.length).toBeGreaterThan(3);
      for (const { label, value } of wrong) expect(valid(name, value), `${name} ${label}`).toBe(false);
    }
  });

  it('marks what type coercion would accept', () => {
    const integer = wrongTypes(document, ref('Amount'));
    expect(integer.find((w) => w.value === '150000')?.coercible).toBe(true);
    expect(integer.find((w) => w.value === 'twelve')?.coercible).toBe(false);
    expect(integer.find((w) => w.value === 2.5)?.coercible).toBe(false);
    expect(wrongTypes(document, ref('Note')).find((w) => w.value === 7)?.coercible).toBe(true);
    expect(wrongTypes(document, { type: 'null' }).find((w) => w.value === '')?.coercible).toBe(true);
  });
});
