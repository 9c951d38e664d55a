/**
 * When to try a request again, and how long to wait first: a pure policy, after stripe-node's
 * RequestSender. The transport asks `shouldRetry` after every failed attempt and sleeps for the
 * `delayMs` it gives; nothing here does I/O, so the whole policy is table-tested.
 */

export interface RetryPolicy {
  /** First backoff step. 500 ms as in stripe-node's initial network retry delay. */
  readonly baseDelayMs: number;
  /** Ceiling of one backoff step: 8 s, so that two retries stay well inside a caller's patience. */
  readonly maxDelayMs: number;
  /**
   * The longest `Retry-After` the client will sit through (60 s, stripe-node's MAX_RETRY_AFTER_WAIT).
   * A server asking for longer gets its response handed to the caller instead of a silent wait.
   */
  readonly maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { baseDelayMs: 500, maxDelayMs: 8_000, maxRetryAfterMs: 60_000 };

/** Two retries by default, like stripe-node's `maxNetworkRetries` recommendation. */
export const DEFAULT_MAX_RETRIES = 2;

export interface RetryInput {
  /** Retries already made: 0 when the first attempt has just failed. */
  readonly attempt: number;
  readonly maxRetries: number;
  /** HTTP method of the request (any case). */
  readonly method: string;
  /** Status of the response, when there was one. */
  readonly status?: number | undefined;
  /** True when no response came back at all (connection refused or reset, DNS, timeout). */
  readonly networkError?: boolean | undefined;
  /** The server's `Retry-After`, already turned into milliseconds (see `parseRetryAfter`). */
  readonly retryAfterMs?: number | undefined;
  /** The request carries an `Idempotency-Key`, so the server runs it at most once whatever we resend. */
  readonly idempotencyKey?: boolean | undefined;
  /** Sending it twice does nothing beyond responding twice (a token request), whatever the method. */
  readonly repeatable?: boolean | undefined;
}

export interface RetryDecision {
  readonly retry: boolean;
  /** How long to wait before the next attempt; 0 when `retry` is false. */
  readonly delayMs: number;
  /** Why, in a few words (for logs and test names). */
  readonly reason: string;
}

/** Methods that HTTP itself defines as safe to repeat (RFC 9110 §9.2.2). */
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/** 501 and 505 say the server will never do this, however often it is asked. */
const PERMANENT_5XX = new Set([501, 505]);

function stop(reason: string): RetryDecision {
  return { retry: false, delayMs: 0, reason };
}

/**
 * Capped exponential backoff with full jitter (AWS architecture blog, "Exponential Backoff and
 * Jitter"): a uniformly random wait in [0, min(cap, base * 2^attempt)), which spreads the retries
 * of many clients instead of synchronising them.
 */
export function backoffDelay(
  attempt: number,
  policy: RetryPolicy = DEFAULT_RETRY_POLICY,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.floor(random() * ceiling);
}

/**
 * Retries only what may succeed the next time and cannot do harm:
 * - a network error or a 5xx, if resending cannot apply the request twice (an idempotent method,
 *   a repeatable request such as the token request, or an `Idempotency-Key`: the service stores
 *   nothing under the key on a 5xx, as the document's "Idempotency" says);
 * - 409, the same idempotency key still running elsewhere: the retry gets the replay;
 * - 429, rejected before anything ran.
 * Every other 4xx (400, 401, 403, 404, 405, 413, 415, 422) would fail again and is never retried;
 * the single token refresh on 401 is the transport's business, not a retry.
 */
export function shouldRetry(
  input: RetryInput,
  policy: RetryPolicy = DEFAULT_RETRY_POLICY,
  random: () => number = Math.random,
): RetryDecision {
  if (input.attempt >= input.maxRetries) return stop('retries exhausted');
  const repeatable =
    IDEMPOTENT_METHODS.has(input.method.toUpperCase()) || input.idempotencyKey === true || input.repeatable === true;
  const status = input.status;

  if (input.networkError === true || status === undefined) {
    if (!repeatable) return stop('network error on a request that could apply twice');
    return { retry: true, delayMs: backoffDelay(input.attempt, policy, random), reason: 'network error' };
  }

  let reason: string;
  if (status === 429) reason = 'rate limited';
  else if (status === 409 && input.idempotencyKey === true) reason = 'idempotency key in flight';
  else if (status >= 500 && status <= 599 && !PERMANENT_5XX.has(status)) {
    if (!repeatable) return stop(`${status} on a request that could apply twice`);
    reason = `server error ${status}`;
  } else return stop(status < 400 ? 'not a failure' : `${status} would fail again`);

  let delayMs = backoffDelay(input.attempt, policy, random);
  if (input.retryAfterMs !== undefined) {
    if (input.retryAfterMs > policy.maxRetryAfterMs)
      return stop(`Retry-After ${input.retryAfterMs} ms is longer than the client waits`);
    delayMs = Math.max(delayMs, input.retryAfterMs);
  }
  return { retry: true, delayMs, reason };
}

/**
 * `Retry-After` (RFC 9110 §10.2.3) is either delay-seconds or an HTTP date. Returns milliseconds
 * from `nowMs`, never negative, or undefined when the header is absent or unreadable.
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (/^[0-9]+$/.test(text)) return Number(text) * 1000;
  // Every HTTP date form (IMF-fixdate, RFC 850, asctime) starts with the weekday; anything else
  // that Date.parse might still accept ("1.5", "2024") is not a date here.
  if (!/^[A-Za-z]{3,9},?\s/.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}
