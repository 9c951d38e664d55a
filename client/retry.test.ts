import { describe, expect, it } from 'vitest';
import { backoffDelay, DEFAULT_RETRY_POLICY, parseRetryAfter, shouldRetry, type RetryInput } from './retry.js';

/** random() = 0.5 makes full jitter land on half the ceiling: 250 ms, 500 ms, 1000 ms, ... */
const half = (): number => 0.5;

describe('shouldRetry', () => {
  const write = { method: 'POST', idempotencyKey: true, maxRetries: 2 } as const;
  const read = { method: 'GET', maxRetries: 2 } as const;

  it.each<[string, RetryInput, { retry: boolean; delayMs: number }]>([
    ['network error on a read', { ...read, attempt: 0, networkError: true }, { retry: true, delayMs: 250 }],
    ['network error on a keyed write', { ...write, attempt: 0, networkError: true }, { retry: true, delayMs: 250 }],
    [
      'network error on an unkeyed POST',
      { method: 'POST', maxRetries: 2, attempt: 0, networkError: true },
      { retry: false, delayMs: 0 },
    ],
    [
      'network error on an unkeyed PATCH',
      { method: 'PATCH', maxRetries: 2, attempt: 0, networkError: true },
      { retry: false, delayMs: 0 },
    ],
    [
      'network error on a repeatable POST (token request)',
      { method: 'POST', maxRetries: 2, attempt: 0, networkError: true, repeatable: true },
      { retry: true, delayMs: 250 },
    ],
    ['network error after the last retry', { ...read, attempt: 2, networkError: true }, { retry: false, delayMs: 0 }],
    ['second retry doubles the ceiling', { ...write, attempt: 1, status: 503 }, { retry: true, delayMs: 500 }],
    ['429 on a read', { ...read, attempt: 0, status: 429 }, { retry: true, delayMs: 250 }],
    [
      '429 on an unkeyed POST (rejected before running)',
      { method: 'POST', maxRetries: 2, attempt: 0, status: 429 },
      { retry: true, delayMs: 250 },
    ],
    ['409 idempotency key in flight', { ...write, attempt: 0, status: 409 }, { retry: true, delayMs: 250 }],
    ['409 without an idempotency key', { ...read, attempt: 0, status: 409 }, { retry: false, delayMs: 0 }],
    ['500 on a keyed write (key released)', { ...write, attempt: 0, status: 500 }, { retry: true, delayMs: 250 }],
    ['502 on a read', { ...read, attempt: 0, status: 502 }, { retry: true, delayMs: 250 }],
    [
      '500 on an unkeyed POST',
      { method: 'POST', maxRetries: 2, attempt: 0, status: 500 },
      { retry: false, delayMs: 0 },
    ],
    ['501 never changes', { ...read, attempt: 0, status: 501 }, { retry: false, delayMs: 0 }],
    ['500 after the last retry', { ...write, attempt: 2, status: 500 }, { retry: false, delayMs: 0 }],
    [
      'maxRetries 0 turns retries off',
      { ...write, maxRetries: 0, attempt: 0, status: 503 },
      { retry: false, delayMs: 0 },
    ],
    ['200 is no failure', { ...read, attempt: 0, status: 200 }, { retry: false, delayMs: 0 }],
    ['304 is no failure', { ...read, attempt: 0, status: 304 }, { retry: false, delayMs: 0 }],
    ['400 would fail again', { ...write, attempt: 0, status: 400 }, { retry: false, delayMs: 0 }],
    ['401 is the token refresh, not a retry', { ...write, attempt: 0, status: 401 }, { retry: false, delayMs: 0 }],
    ['403 would fail again', { ...read, attempt: 0, status: 403 }, { retry: false, delayMs: 0 }],
    ['404 would fail again', { ...read, attempt: 0, status: 404 }, { retry: false, delayMs: 0 }],
    ['405 would fail again', { ...write, attempt: 0, status: 405 }, { retry: false, delayMs: 0 }],
    ['413 would fail again', { ...write, attempt: 0, status: 413 }, { retry: false, delayMs: 0 }],
    ['415 would fail again', { ...write, attempt: 0, status: 415 }, { retry: false, delayMs: 0 }],
    ['422 key reused with another body', { ...write, attempt: 0, status: 422 }, { retry: false, delayMs: 0 }],
    [
      'Retry-After longer than the backoff wins',
      { ...read, attempt: 0, status: 429, retryAfterMs: 3_000 },
      { retry: true, delayMs: 3_000 },
    ],
    [
      'backoff longer than Retry-After wins',
      { ...read, attempt: 1, status: 503, retryAfterMs: 100 },
      { retry: true, delayMs: 500 },
    ],
    [
      'Retry-After at the limit is honoured',
      { ...read, attempt: 0, status: 429, retryAfterMs: 60_000 },
      { retry: true, delayMs: 60_000 },
    ],
    [
      'Retry-After past the limit goes back to the caller',
      { ...read, attempt: 0, status: 429, retryAfterMs: 60_001 },
      { retry: false, delayMs: 0 },
    ],
    [
      'Retry-After does not make a 400 retryable',
      { ...write, attempt: 0, status: 400, retryAfterMs: 1_000 },
      { retry: false, delayMs: 0 },
    ],
  ])('%s', (_name, input, want) => {
    const decision = shouldRetry(input, DEFAULT_RETRY_POLICY, half);
    expect({ retry: decision.retry, delayMs: decision.delayMs }).toEqual(want);
    expect(decision.reason).not.toBe('');
  });

  it('method case does not matter', () => {
    expect(
      shouldRetry({ method: 'get', maxRetries: 1, attempt: 0, status: 503 }, DEFAULT_RETRY_POLICY, half).retry,
    ).toBe(true);
  });
});

describe('backoffDelay', () => {
  it.each([
    [0, 0.999, 499],
    [1, 0.999, 999],
    [3, 0.999, 3_996],
    [4, 0.999, 7_992],
    [5, 0.999, 7_992], // capped at 8 s
    [30, 0.999, 7_992],
    [2, 0, 0], // full jitter reaches down to zero
  ])('attempt %i with random %f waits %i ms', (attempt, random, want) => {
    expect(backoffDelay(attempt, DEFAULT_RETRY_POLICY, () => random)).toBe(want);
  });

  it('stays within [0, ceiling) for real randomness', () => {
    for (let i = 0; i < 1_000; i += 1) {
      const delay = backoffDelay(2, DEFAULT_RETRY_POLICY);
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThan(2_000);
    }
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');
  it.each<[string, string | null | undefined, number | undefined]>([
    ['absent', null, undefined],
    ['undefined', undefined, undefined],
    ['delay-seconds', '120', 120_000],
    ['zero seconds', '0', 0],
    ['padded seconds', ' 7 ', 7_000],
    ['IMF-fixdate in the future', 'Wed, 01 Jan 2025 00:00:30 GMT', 30_000],
    ['HTTP date in the past', 'Tue, 31 Dec 2024 23:59:00 GMT', 0],
    ['RFC 850 date', 'Wednesday, 01-Jan-25 00:00:10 GMT', 10_000],
    ['negative seconds', '-5', undefined],
    ['fractional seconds', '1.5', undefined],
    ['garbage', 'soon', undefined],
    ['a bare year', '2026', 2_026_000],
  ])('%s', (_name, value, want) => {
    expect(parseRetryAfter(value, now)).toBe(want);
  });
});
