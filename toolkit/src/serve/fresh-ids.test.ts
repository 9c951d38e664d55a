import { describe, expect, it } from 'vitest';
import { flatten } from '../check/shape.js';
import { freshId, likeExample, type IdRequest } from './fresh-ids.js';

const request = (schema: object, overrides: Partial<IdRequest> = {}): IdRequest => ({
  shape: flatten({}, schema),
  examples: [],
  held: [],
  fits: () => true,
  generated: () => [],
  ...overrides,
});

describe('a fresh id', () => {
  it('is a UUID for format: uuid', () => {
    expect(freshId(request({ type: 'string', format: 'uuid' }))).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });

  it('is the integer after the largest held, from the minimum', () => {
    expect(freshId(request({ type: 'integer' }))).toBe(1);
    expect(freshId(request({ type: 'integer' }, { held: [1, 7, 3] }))).toBe(8);
    expect(freshId(request({ type: 'integer', minimum: 100 }))).toBe(100);
    expect(freshId(request({ type: 'integer', exclusiveMinimum: 0 }))).toBe(1);
  });

  it("is a string like the document's example", () => {
    expect(freshId(request({ type: 'string' }, { examples: ['AC000001'], held: ['AC000001'] }))).toBe('AC000002');
    expect(likeExample('up-1', 12)).toBe('up-12');
    expect(likeExample('ord_8F2k3', 1)).toMatch(/^ord_\d[A-Z]\d[a-z]\d$/);
    expect(likeExample('3be6453c', 1)).toMatch(/^[0-9a-f]{8}$/);
  });

  it('is twelve letters and digits within the lengths of a string without an example', () => {
    expect(freshId(request({ type: 'string' }))).toMatch(/^[a-z0-9]{12}$/);
    expect(freshId(request({ type: 'string', maxLength: 5 }))).toMatch(/^[a-z0-9]{5}$/);
  });

  it('fits every schema it must match, else is one generated from them, else is none', () => {
    const digits = (candidate: string | number): boolean => /^[0-9]{3}$/.test(String(candidate));
    expect(freshId(request({ type: 'string' }, { fits: digits, generated: () => ['12', '345'] }))).toBe('345');
    expect(freshId(request({ type: 'integer', maximum: 2 }, { held: [1, 2], fits: (id) => Number(id) <= 2 }))).toBe(
      undefined,
    );
  });
});
