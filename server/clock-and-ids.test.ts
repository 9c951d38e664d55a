import { describe, expect, it } from 'vitest';
import { randomIds } from './clock-and-ids.js';

describe('randomIds', () => {
  it('makes prefixed ids of 24 base-36 characters, never the same twice', () => {
    const ids = Array.from({ length: 5_000 }, () => randomIds.next('trf'));
    for (const id of ids) expect(id).toMatch(/^trf_[0-9a-z]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('uses every character about equally often, across many refills of its random pool', () => {
    const counts = new Map<string, number>();
    const n = 20_000;
    for (let i = 0; i < n; i += 1) {
      for (const c of randomIds.next('req').slice(4)) counts.set(c, (counts.get(c) ?? 0) + 1);
    }
    expect(counts.size).toBe(36);
    const expected = (n * 24) / 36;
    // 480,000 draws: each count is within 5 % of its expectation far beyond any chance failure
    // (the standard deviation is about 0.9 % of it).
    for (const count of counts.values()) expect(Math.abs(count - expected) / expected).toBeLessThan(0.05);
  });
});
