import { describe, expect, it } from 'vitest';
import { OperationTally, Samples, percentile } from './latencies.js';

describe('percentile', () => {
  it.each([
    ['the 99th of 100 values is the 99th', Array.from({ length: 100 }, (_, i) => i + 1), 99, 99],
    ['the 99th of 1,000 values is the 990th', Array.from({ length: 1000 }, (_, i) => i + 1), 99, 990],
    ['the 50th of 4 values is the 2nd (nearest rank, no interpolation)', [1, 2, 3, 4], 50, 2],
    ['the 99th of one value is that value', [7.5], 99, 7.5],
    ['of none is 0', [], 99, 0],
  ])('%s', (_name, values, p, want) => {
    expect(percentile(Float64Array.from(values), p)).toBe(want);
  });
});

describe('Samples', () => {
  it('keeps every value past its first capacity and sorts them as numbers', () => {
    const samples = new Samples();
    for (let i = 10_000; i > 0; i -= 1) samples.push(i / 100);
    const sorted = samples.sorted();
    expect(samples.count).toBe(10_000);
    expect(sorted[0]).toBe(0.01);
    expect(sorted[9_999]).toBe(100);
    expect(percentile(sorted, 99)).toBe(99);
  });
});

describe('OperationTally', () => {
  it('counts every response but takes latencies from 2xx responses only, as autocannon does', () => {
    const tally = new OperationTally();
    for (let i = 1; i <= 98; i += 1) tally.record(200, 1);
    tally.record(201, 3);
    tally.record(400, 500);
    tally.record(503, 900);
    const { latencies, ...figures } = tally.summary(2);
    expect(figures).toEqual({ requests: 101, rps: 50.5, p50Ms: 1, p99Ms: 3, non2xx: 2 });
    expect(latencies).toHaveLength(99);
  });
});
