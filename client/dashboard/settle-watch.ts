/**
 * How the transfers page follows an approved transfer until the payment network settles it: an
 * approval responds with PROCESSING, and the sandbox network settles it SUCCEEDED or FAILED after
 * PAYMENT_NETWORK_DELAY_MS (2 s by default), which the settlement worker notices within a
 * quarter second. The page asks again after each of these waits, stopping at a settled status.
 */

export interface SettleWatchPolicy {
  /** The first wait: a quarter of the sandbox's default network delay. */
  readonly firstDelayMs: number;
  /** Each wait is this much longer than the one before, up to `maxDelayMs`. */
  readonly factor: number;
  readonly maxDelayMs: number;
  /** The page stops asking once the waits add up to this: a minute, as `npm run demo` waits for a settlement. */
  readonly totalMs: number;
}

export const SETTLE_WATCH: SettleWatchPolicy = { firstDelayMs: 500, factor: 1.5, maxDelayMs: 4_000, totalMs: 60_000 };

/**
 * The waits, in order, before each request: capped exponential backoff, without jitter (one page
 * following one transfer sends no crowd of requests to spread out), and bounded in total.
 */
export function settleWatchDelays(policy: SettleWatchPolicy = SETTLE_WATCH): number[] {
  if (!(
    policy.firstDelayMs > 0 &&
    policy.factor >= 1 &&
    policy.maxDelayMs >= policy.firstDelayMs &&
    policy.totalMs >= 0
  )) {
    throw new RangeError(
      'settleWatchDelays: the first delay must be positive, the factor at least 1, the cap at least the first delay',
    );
  }
  const delays: number[] = [];
  let total = 0;
  for (
    let delay = policy.firstDelayMs;
    total + delay <= policy.totalMs;
    delay = Math.min(policy.maxDelayMs, delay * policy.factor)
  ) {
    delays.push(Math.round(delay));
    total += delay;
  }
  return delays;
}

/**
 * Whether the page should ask again: only a PROCESSING transfer changes without anyone acting on
 * it, when the network settles it SUCCEEDED or FAILED (the document's transfer lifecycle).
 */
export function awaitsSettlement(status: string): boolean {
  return status === 'PROCESSING';
}
