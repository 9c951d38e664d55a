import { describe, expect, it } from 'vitest';
import { derivedIds, hashSeed, mulberry32, picker } from './seeded-random.js';

describe('mulberry32', () => {
  it('gives the same sequence for the same seed, another for another seed', () => {
    const take = (seed: number): number[] => {
      const random = mulberry32(seed);
      return Array.from({ length: 5 }, () => random());
    };
    expect(take(42)).toEqual(take(42));
    expect(take(42)).not.toEqual(take(43));
  });

  it('stays in [0, 1) and spreads evenly', () => {
    const random = mulberry32(1);
    const values = Array.from({ length: 10_000 }, () => random());
    expect(Math.min(...values)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...values)).toBeLessThan(1);
    const buckets = Array<number>(10).fill(0);
    for (const value of values) buckets[Math.floor(value * 10)] = (buckets[Math.floor(value * 10)] ?? 0) + 1;
    expect(Math.min(...buckets)).toBeGreaterThan(900);
  });
});

describe('hashSeed', () => {
  it.each([
    ['', 0x811c9dc5],
    ['a', 0xe40c292c],
    ['foobar', 0xbf9cf968],
  ])('is 32-bit FNV-1a: %j', (text, expected) => {
    expect(hashSeed(text)).toBe(expected);
  });
});

describe('picker', () => {
  it('picks integers within bounds, both included', () => {
    const p = picker(mulberry32(3));
    const seen = new Set<number>();
    for (let i = 0; i < 500; i += 1) seen.add(p.int(2, 5));
    expect([...seen].sort()).toEqual([2, 3, 4, 5]);
  });

  it('never picks an item of weight 0', () => {
    const p = picker(mulberry32(4));
    for (let i = 0; i < 500; i += 1)
      expect(p.weighted(['a', 'b', 'c'], (item) => (item === 'b' ? 0 : 1))).not.toBe('b');
  });
});

describe('derivedIds', () => {
  it('derives prefixed 24-character ids from the organization and the seed', () => {
    const ids = derivedIds('org_1', 7);
    const id = ids.next('crd');
    expect(id).toMatch(/^crd_[0-9a-z]{24}$/);
    expect(derivedIds('org_1', 7).next('crd')).toBe(id);
    expect(derivedIds('org_2', 7).next('crd')).not.toBe(id);
    expect(derivedIds('org_1', 8).next('crd')).not.toBe(id);
    expect(ids.next('crd')).not.toBe(id);
    expect(ids.tag()).toMatch(/^tag_[0-9a-z]{24}$/);
  });
});
