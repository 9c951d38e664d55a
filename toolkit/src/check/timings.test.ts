import { describe, expect, it } from 'vitest';
import { StatusCounts, Timings } from './timings.js';

describe('response times', () => {
  it('gives percentiles and the largest time', () => {
    const timings = new Timings();
    for (let ms = 1; ms <= 100; ms += 1) timings.add(ms);
    expect(timings.summary()).toEqual({ p50Ms: 50, p99Ms: 99, maxMs: 100 });
  });

  it('holds a fixed number of times however many responses come', () => {
    let state = 1;
    const random = (): number => {
      state = (state * 48271) % 2147483647;
      return state / 2147483647;
    };
    const timings = new Timings(1000, random);
    for (let i = 0; i < 100_000; i += 1) timings.add(i % 1000);
    expect(timings.count).toBe(100_000);
    expect(timings.held).toBe(1000);
    const { p50Ms, maxMs } = timings.summary();
    expect(maxMs).toBe(999);
    // A uniform sample of 0..999 repeated: its median is near 500.
    expect(Math.abs(p50Ms - 500)).toBeLessThan(60);
  });

  it('counts responses by status class', () => {
    const counts = new StatusCounts();
    for (const status of [200, 201, 404, null, 500]) counts.add(status);
    expect(counts.entries()).toEqual([
      ['2xx', 2],
      ['4xx', 1],
      ['5xx', 1],
      ['none', 1],
    ]);
  });
});
