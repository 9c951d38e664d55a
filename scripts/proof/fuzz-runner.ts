import { fileURLToPath } from 'node:url';
import { runCheckDetailed } from 'contract-first/check';
import { OPERATIONS } from './fuzz-cases.js';
import { fuzzPlugin, type FuzzApp } from './fuzz-plugin.js';

// The fuzz proof: the toolkit's contract checker (contract-first/check) run against the app
// with the service's plug-in (fuzz-plugin.ts): the checker draws each operation's cases from the
// plug-in's stream (the case families of fuzz-cases.ts) with fast-check from one seed, sends them,
// reports a 5xx, a hang or a failed connection, and shrinks a failure; the plug-in runs each case on
// a lane, checks every response and every write's effect on the database. Any finding fails the run.

export type { FuzzApp } from './fuzz-plugin.js';

export interface FuzzOptions {
  readonly runs: number;
  readonly seed: number;
  /** Organizations the cases rotate over. Default 4. */
  readonly lanes?: number;
  /** Requests run at once (each lane runs one at a time). Default: the number of lanes. */
  readonly concurrency?: number;
  /** The per-request deadline: longer is a hang. Default 10 s. */
  readonly timeoutMs?: number;
  readonly log?: (line: string) => void;
  /** The command that runs the same cases again (default: the CI test's). */
  readonly replay?: string;
}

export interface FuzzReport {
  readonly seed: number;
  readonly cases: number;
  readonly byFamily: Record<string, number>;
  readonly byStatus: Record<string, number>;
  readonly byOperation: Record<string, number>;
  readonly writesChecked: number;
  readonly durationMs: number;
}

export class FuzzFailure extends Error {
  override readonly name = 'FuzzFailure';
}

const DOCUMENT = fileURLToPath(new URL('../../openapi/openapi.yaml', import.meta.url));

/** Runs at least `options.runs` cases, spread evenly over the operations, and returns what it saw; throws FuzzFailure naming every finding. */
export async function runFuzz(app: FuzzApp, options: FuzzOptions): Promise<FuzzReport> {
  const started = Date.now();
  const lanes = options.lanes ?? 4;
  const plugin = await fuzzPlugin(app, {
    lanes,
    casesPerOperation: Math.ceil(options.runs / OPERATIONS.length),
    replay:
      options.replay ?? `FUZZ_SEED=${options.seed} FUZZ_RUNS=${options.runs} npx vitest run test/proof/fuzz.test.ts`,
  });
  // Twice as many cases in progress as lanes: a case waiting for its lane does not leave another lane idle.
  const inFlight = Math.max(1, Math.min(options.concurrency ?? lanes, lanes));
  const run = await runCheckDetailed({
    input: DOCUMENT,
    baseUrl: app.baseUrl,
    seed: options.seed,
    // The checker's own streams besides: valid requests generated from each operation's schemas,
    // invalid ones, ones without credentials, create-then-use sequences, one in ten cases.
    cases: Math.ceil(options.runs / OPERATIONS.length / 10),
    auth: plugin.auth,
    timeoutMs: options.timeoutMs ?? 10_000,
    concurrency: inFlight * 2,
    plugins: [plugin],
  });
  const { counts } = plugin;
  options.log?.(`${counts.cases} cases`);
  const { findings } = run.report;
  if (findings.length > 0) {
    const lines = findings.map(
      (finding, index) =>
        `${index + 1}. ${finding.kind} ${finding.operation}${finding.status === null ? '' : ` (${finding.status})`}, seen ${run.statistics.occurrences[index] ?? 1} times: ${finding.message}\n   ${finding.curl.slice(0, 2_000)}\n   replay: ${finding.replay}`,
    );
    throw new FuzzFailure(`${findings.length} finding(s) with seed ${options.seed}:\n${lines.join('\n')}`);
  }
  return {
    seed: options.seed,
    cases: counts.cases,
    byFamily: counts.byFamily,
    byStatus: counts.byStatus,
    byOperation: counts.byOperation,
    writesChecked: counts.writesChecked,
    durationMs: Date.now() - started,
  };
}
