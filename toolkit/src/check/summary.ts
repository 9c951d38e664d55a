import type { OperationSpec } from './document.js';
import type { Intent } from './judge.js';
import type { Outcome } from './requests.js';

/**
 * What each operation got: how many requests were sent to it and how many got a 2xx, its responses
 * by status; and, for an operation that never got a 2xx, the likely reason, read from the responses
 * to the requests meant to succeed (valid ones, edge ones, sequences): every one 401 or 403, the
 * credentials; every one 404 where the path names something, no existing ids; every one 400 or 422,
 * the generated requests were rejected; else the statuses seen. A warning: it does not fail a run.
 */

export interface OperationSummary {
  /** The operationId, or `METHOD /path`. */
  readonly operation: string;
  /** Requests sent (with a response or not). */
  readonly requests: number;
  /** Responses with a 2xx status. */
  readonly successes: number;
  /** Responses by status; `none` counts the requests that got none (a hang, a failed connection). */
  readonly statuses: Readonly<Record<string, number>>;
}

/** Why an operation never got a 2xx. */
export type NoSuccessReason = 'credentials' | 'no-ids' | 'rejected' | 'statuses';

export interface CheckWarning {
  readonly operation: string;
  readonly reason: NoSuccessReason;
  readonly message: string;
}

/** Intents of requests meant to succeed: their responses say why an operation never did. */
const MEANT_TO_SUCCEED: ReadonlySet<Intent['kind']> = new Set(['valid', 'read-after-create']);

interface Tally {
  requests: number;
  successes: number;
  readonly statuses: Map<string, number>;
  readonly meantStatuses: Map<string, number>;
}

const statusKey = (outcome: Outcome): string | undefined =>
  outcome.kind === 'response' ? String(outcome.response.status) : outcome.kind === 'unsendable' ? undefined : 'none';

const byStatus = (counts: ReadonlyMap<string, number>): [string, number][] =>
  [...counts].sort(([a], [b]) => (a === 'none' ? 1 : b === 'none' ? -1 : Number(a) - Number(b)));

/** `404 ×3, 500 ×1`: the statuses seen, `none` for requests that got no response. */
export const statusText = (counts: ReadonlyMap<string, number> | Readonly<Record<string, number>>): string =>
  byStatus(counts instanceof Map ? counts : new Map(Object.entries(counts)))
    .map(([status, count]) => `${status === 'none' ? 'no response' : status} ×${count}`)
    .join(', ');

export class OperationTallies {
  private readonly tallies = new Map<string, Tally>();

  private tally(operation: string): Tally {
    let found = this.tallies.get(operation);
    if (found === undefined) {
      found = { requests: 0, successes: 0, statuses: new Map(), meantStatuses: new Map() };
      this.tallies.set(operation, found);
    }
    return found;
  }

  /** Counts one request sent to `operation` and what came back. */
  add(operation: string, intent: Intent['kind'], outcome: Outcome): void {
    const key = statusKey(outcome);
    if (key === undefined) return;
    const tally = this.tally(operation);
    tally.requests += 1;
    if (outcome.kind === 'response' && outcome.response.status >= 200 && outcome.response.status < 300)
      tally.successes += 1;
    tally.statuses.set(key, (tally.statuses.get(key) ?? 0) + 1);
    if (MEANT_TO_SUCCEED.has(intent)) tally.meantStatuses.set(key, (tally.meantStatuses.get(key) ?? 0) + 1);
  }

  /** Each operation's counts, in the order given (those that were sent nothing count zero). */
  summaries(operations: readonly string[]): OperationSummary[] {
    return operations.map((operation) => {
      const tally = this.tallies.get(operation);
      return {
        operation,
        requests: tally?.requests ?? 0,
        successes: tally?.successes ?? 0,
        statuses: Object.fromEntries(byStatus(tally?.statuses ?? new Map())),
      };
    });
  }

  /** A warning for each operation of `operations` that was sent requests and never got a 2xx. */
  warnings(operations: readonly OperationSpec[]): CheckWarning[] {
    const out: CheckWarning[] = [];
    for (const operation of operations) {
      const tally = this.tallies.get(operation.key);
      if (tally === undefined || tally.requests === 0 || tally.successes > 0) continue;
      const meant = tally.meantStatuses.size > 0 ? tally.meantStatuses : tally.statuses;
      const { reason, advice } = noSuccessReason(operation, meant);
      out.push({
        operation: operation.key,
        reason,
        message: `${operation.key} never got a 2xx in ${tally.requests} requests (${statusText(tally.statuses)}): ${advice}`,
      });
    }
    return out;
  }
}

/** The likely reason an operation never got a 2xx, from the statuses of its requests meant to succeed. */
export function noSuccessReason(
  operation: OperationSpec,
  statuses: ReadonlyMap<string, number>,
): { readonly reason: NoSuccessReason; readonly advice: string } {
  const seen = [...statuses.keys()];
  const all = (allowed: readonly string[]): boolean =>
    seen.length > 0 && seen.every((status) => allowed.includes(status));
  if (all(['401', '403'])) return { reason: 'credentials', advice: 'credentials: give --header or --auth' };
  if (all(['404']) && operation.parameters.some((parameter) => parameter.in === 'path'))
    return {
      reason: 'no-ids',
      advice: 'no existing ids: give examples of the path parameters, or links from an operation that creates them',
    };
  if (all(['400', '422']))
    return { reason: 'rejected', advice: 'every generated request was rejected: check the schemas or examples' };
  return { reason: 'statuses', advice: `the requests meant to succeed got ${statusText(statuses)}` };
}
