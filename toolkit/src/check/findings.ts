import fc from 'fast-check';
import type { OperationSpec } from './document.js';
import { DrawStream, FixedValues } from './draws.js';
import type { Verdict } from './judge.js';
import type { CheckPlugin } from './plugin.js';
import { curlLine, shellQuote, type FindingReport } from './report.js';
import type { Exchange, Stream } from './runners.js';

/**
 * Findings: each distinct failure kept once (its key: kind, operation, status and what broke),
 * with the case that first showed it; shrunk by fast-check replaying that case; reported with the
 * curl line of its request and the command that replays it.
 */

/** Where a case comes from: its operation, its stream and its index there. */
export interface Origin {
  readonly operation: OperationSpec;
  readonly stream: Stream;
  readonly index: number;
}

export interface FindingRecord {
  readonly key: string;
  verdict: Verdict;
  exchange: Exchange;
  readonly origin: Origin;
  occurrences: number;
  /** fast-check's path to the shrunk case in the origin's stream. */
  path: string | undefined;
}

export const findingKey = (operation: string, verdict: Verdict): string =>
  `${verdict.kind}|${operation}|${verdict.status ?? ''}|${verdict.detail}`;

/**
 * Whether case `a` is kept before case `b` for a key: generated cases in the run's order (run.ts
 * generates index by index), so that the case kept is the same in every run of a seed, whatever
 * order the responses of cases sent at once come back in (the shrunk request and the replay command
 * then repeat too); an edge request only where no generated case shows the failure, since a
 * generated case is shrunk to the smallest request that shows it and an edge request is not.
 */
function comesBefore(a: Origin, b: Origin): boolean {
  const aFixed = a.stream.draws instanceof FixedValues;
  if (aFixed !== b.stream.draws instanceof FixedValues) return !aFixed;
  if (a.index !== b.index) return a.index < b.index;
  if (a.operation.key !== b.operation.key) return a.operation.key < b.operation.key;
  return a.stream.name < b.stream.name;
}

export class Findings {
  private readonly records = new Map<string, FindingRecord>();

  /** `selected`: whether a verdict's kind is one of the checks the run reports (selection.ts); default every one. */
  constructor(private readonly selected: (kind: string) => boolean = () => true) {}

  /** Counts each verdict of a selected check; each key is kept with the earliest case that showed it. */
  add(origin: Origin, exchanges: readonly Exchange[]): void {
    for (const sent of exchanges) {
      for (const verdict of sent.verdicts) {
        if (!this.selected(verdict.kind)) continue;
        const key = findingKey(sent.operation.key, verdict);
        const known = this.records.get(key);
        if (known === undefined)
          this.records.set(key, { key, verdict, exchange: sent, origin, occurrences: 1, path: undefined });
        else if (comesBefore(origin, known.origin))
          this.records.set(key, {
            key,
            verdict,
            exchange: sent,
            origin,
            occurrences: known.occurrences + 1,
            path: undefined,
          });
        else known.occurrences += 1;
      }
    }
  }

  all(): FindingRecord[] {
    return [...this.records.values()];
  }
}

/**
 * Shrinks a finding: fast-check replays the case that showed it (its index in its stream, as the
 * `path`) and shrinks it while the same failure shows, for `budgetMs` at most; the smallest request
 * that still shows it becomes the finding's. A hang or a failed connection is kept as it came:
 * each try would cost a deadline, and the request is rarely the cause. A case of a stream of fixed
 * values (an edge request) is kept as it came: it is the value at an edge.
 */
export async function shrink(found: FindingRecord, budgetMs: number): Promise<void> {
  if (found.verdict.kind === 'hang' || found.verdict.kind === 'network') return;
  const { origin } = found;
  const { draws } = origin.stream;
  if (!(draws instanceof DrawStream)) return;
  const preferred = found.exchange.constraint;
  let last: { exchange: Exchange; verdict: Verdict } | undefined;
  const property = fc.asyncProperty(draws.arbitrary, async (value) => {
    const result = await origin.stream.run(value, origin.index, preferred);
    for (const sent of typeof result === 'string' ? [] : result) {
      const verdict = sent.verdicts.find((candidate) => findingKey(sent.operation.key, candidate) === found.key);
      if (verdict !== undefined) {
        last = { exchange: sent, verdict };
        return false;
      }
    }
    return true;
  });
  const details = await fc.check(property, {
    seed: draws.seed,
    path: String(origin.index),
    numRuns: 1,
    plugins: [fc.interruptAfterTimeLimit(budgetMs)],
  });
  // The last failing run is the smallest: each later one that passed was a shrink that lost the failure.
  const shrunk = last as { exchange: Exchange; verdict: Verdict } | undefined;
  if (details.failed && shrunk !== undefined) {
    found.exchange = shrunk.exchange;
    found.verdict = shrunk.verdict;
    found.path = details.counterexamplePath ?? undefined;
  }
}

export interface ReplayOptions {
  readonly input: string;
  readonly baseUrl: string;
  readonly seed: number;
  readonly cases: number;
  /** The other command-line words a replay repeats (credentials, deadline). */
  readonly flags: readonly string[];
  /** The plug-ins of the run: one may say how its streams' findings are replayed. */
  readonly plugins?: readonly CheckPlugin[];
}

/**
 * The `contract-first check` command that finds it again: the same seed, the operations involved (a
 * sequence's creator too), enough cases to reach the one that showed it. A stream of one request
 * per ten cases (without credentials, with wrong ones, sequences) reaches case i from 10 i + 1
 * cases; the edge requests are sent whatever the number of cases.
 */
export function replayCommand(found: FindingRecord, options: ReplayOptions): string {
  const { origin, exchange } = found;
  const plugin = options.plugins?.find((candidate) => origin.stream.name.startsWith(`${candidate.name}:`));
  if (plugin?.replay !== undefined)
    return plugin.replay({
      seed: options.seed,
      operation: origin.operation.key,
      stream: origin.stream.name,
      index: origin.index,
    });
  const operations = [...new Set([origin.operation.key, exchange.operation.key])];
  const name = origin.stream.name;
  const needed =
    name === 'edge'
      ? 1
      : name === 'no-credentials' || name === 'wrong-credentials' || name === 'sequence'
        ? origin.index * 10 + 1
        : origin.index + 1;
  return [
    'npx contract-first check',
    '--input',
    shellQuote(options.input),
    '--base-url',
    shellQuote(options.baseUrl),
    '--seed',
    String(options.seed),
    '--include',
    shellQuote(operations.join(',')),
    '--cases',
    String(Math.max(options.cases, needed)),
    ...options.flags.map(shellQuote),
  ].join(' ');
}

export function findingReport(found: FindingRecord, options: ReplayOptions): FindingReport {
  const { exchange: sent, verdict } = found;
  const shown = sent.request.shown;
  return {
    kind: verdict.kind,
    operation: sent.operation.key,
    // The context says why the request was what it was, unless the message says it already.
    message:
      sent.context === undefined ||
      verdict.kind === 'accepted-invalid' ||
      verdict.kind === 'accepted-without-credentials' ||
      verdict.kind === 'ignored-auth'
        ? verdict.message
        : `${verdict.message} (${sent.context})`,
    status: verdict.status,
    requestKind: found.origin.stream.name,
    request: { method: shown.method, url: shown.url, headers: { ...shown.headers }, body: shown.body },
    curl: curlLine(shown),
    seed: options.seed,
    replay: replayCommand(found, options),
  };
}
