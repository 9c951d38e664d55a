import { describe, expect, it } from 'vitest';
import { awaitsSettlement, SETTLE_WATCH, settleWatchDelays } from './settle-watch.js';

// How long the transfers page waits before asking again about an approved transfer.

describe('settleWatchDelays', () => {
  it('starts soon after the approval, grows by the factor up to the cap, and stops within the bound', () => {
    const delays = settleWatchDelays();
    expect(delays.slice(0, 6)).toEqual([500, 750, 1125, 1688, 2531, 3797]);
    expect(delays.slice(6, 9)).toEqual([4000, 4000, 4000]);
    const total = delays.reduce((sum, delay) => sum + delay, 0);
    expect(total).toBeLessThanOrEqual(SETTLE_WATCH.totalMs);
    expect(total + SETTLE_WATCH.maxDelayMs).toBeGreaterThan(SETTLE_WATCH.totalMs);
  });

  it.each([
    ['a bound shorter than the first wait', { firstDelayMs: 500, factor: 2, maxDelayMs: 1000, totalMs: 400 }, []],
    ['a factor of 1', { firstDelayMs: 100, factor: 1, maxDelayMs: 100, totalMs: 350 }, [100, 100, 100]],
    ['a cap reached at once', { firstDelayMs: 100, factor: 10, maxDelayMs: 300, totalMs: 1000 }, [100, 300, 300, 300]],
  ] as const)('%s', (_name, policy, want) => {
    expect(settleWatchDelays(policy)).toEqual(want);
  });

  it.each([
    ['no first wait', { firstDelayMs: 0, factor: 2, maxDelayMs: 1000, totalMs: 1000 }],
    ['a shrinking factor', { firstDelayMs: 100, factor: 0.5, maxDelayMs: 1000, totalMs: 1000 }],
    ['a cap below the first wait', { firstDelayMs: 500, factor: 2, maxDelayMs: 100, totalMs: 1000 }],
  ] as const)('rejects %s', (_name, policy) => {
    expect(() => settleWatchDelays(policy)).toThrow(RangeError);
  });
});

describe('awaitsSettlement', () => {
  it.each([
    ['PROCESSING', true],
    ['SUCCEEDED', false],
    ['FAILED', false],
    ['PENDING', false],
    ['REJECTED', false],
    ['CANCELLED', false],
  ] as const)('%s: %s', (status, want) => {
    expect(awaitsSettlement(status)).toBe(want);
  });
});
