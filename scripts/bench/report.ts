/** The benchmark's result: its JSON shape, the speed targets, and the printed table. */
import { cpus, release, totalmem, type as osType } from 'node:os';
import type { DatabaseKind } from './database.js';
import type { Measurement } from './load.js';
import type { MechanismName } from './mechanisms.js';
import { RUN_TRAFFIC, SERVICE_RUNS, type RunName } from './options.js';

export interface Machine {
  readonly cpus: number;
  readonly model: string;
  readonly memoryGb: number;
  readonly node: string;
  readonly os: string;
}

export function describeMachine(): Machine {
  const list = cpus();
  return {
    cpus: list.length,
    model: list[0]?.model.trim() ?? 'unknown',
    memoryGb: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    os: `${osType()} ${release()}`,
  };
}

/** One run as the issue's JSON has it. */
export interface RunResult {
  readonly name: RunName;
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly cpuUsPerRequest: number;
  /** rps / baseline-express rps of the same benchmark; null when that baseline was not run. */
  readonly ratioToExpress: number | null;
  readonly peakRssMb: number;
}

/** What else was measured about a run (JSON `details`, beside the issue's fields). */
export interface RunDetail {
  readonly name: RunName;
  readonly requests: number;
  readonly durationS: number;
  readonly non2xx: number;
  readonly statusCodes: Readonly<Record<string, number>>;
  readonly dbCpuUsPerRequest: number | null;
  readonly clientCpuUsPerRequest: number;
  readonly otherCpuPct: number;
}

export interface SweepPoint {
  readonly rows: number;
  /** null when no request completed within the run. */
  readonly p99Ms: number | null;
}

export interface SweepDetail extends SweepPoint {
  readonly rps: number;
  readonly p50Ms: number;
  readonly cpuUsPerRequest: number;
  readonly dbCpuUsPerRequest: number | null;
  readonly otherCpuPct: number;
  readonly seedSeconds: number;
}

/** One operation of a run that names them: the mixed run's reads and writes. */
export interface OperationResult {
  readonly run: RunName;
  readonly operation: string;
  readonly requests: number;
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly non2xx: number;
}

/** A read's statements alone, beside the read over HTTP: how close the service is to its database. */
export interface StatementRate {
  readonly run: RunName;
  /** pgbench at the benchmark's concurrency, or the store's function in a loop (statements.ts). */
  readonly method: 'pgbench' | 'store loop';
  /** Statements a second; null when it could not be measured (`note` says why). */
  readonly rps: number | null;
  readonly p99Ms: number | null;
  /** The read over HTTP in the same benchmark. */
  readonly httpRps: number | null;
  readonly note?: string;
}

/** A run measured with a mechanism and again without it. */
export interface AblationRun {
  /** The run, or `mixed/<operation>` for one operation of the mixed run. */
  readonly name: string;
  readonly withRps: number;
  readonly withoutRps: number;
  /** withoutRps / withRps: below 1 the mechanism earns speed. */
  readonly ratio: number;
  readonly withP99Ms: number;
  readonly withoutP99Ms: number;
  /** Server CPU per request on each side (the run as a whole only). */
  readonly withCpuUsPerRequest: number | null;
  readonly withoutCpuUsPerRequest: number | null;
  /** The rest of the machine's CPU during each side's slices, in % of all cores. */
  readonly withOtherCpuPct: number | null;
  readonly withoutOtherCpuPct: number | null;
}

export interface AblationResult {
  readonly mechanism: MechanismName;
  readonly what: string;
  /** How the benchmark turned it off. */
  readonly off: string;
  /** Each side of each run measured in this many slices of this many seconds, the sides taking turns. */
  readonly slices: number;
  readonly sliceS: number;
  /** False when it was not measured (the database has no such mechanism, or the service reads no switch for it): `note` says why. */
  readonly measured: boolean;
  readonly note?: string;
  readonly runs: AblationRun[];
}

export type TargetStatus = 'PASS' | 'MISS' | 'n/a';

export interface TargetResult {
  readonly target: string;
  readonly measured: string;
  readonly status: TargetStatus;
}

export interface BenchReport {
  readonly machine: Machine;
  readonly database: DatabaseKind;
  readonly runs: RunResult[];
  /** The mixed run's operations, each with its own rate and latencies. */
  readonly operations: OperationResult[];
  readonly statements: StatementRate[];
  readonly sweep: SweepPoint[];
  readonly targets: TargetResult[];
  readonly ablation: AblationResult[];
  /** What else a run covered (a walk's pages and walks), one line each. */
  readonly notes: string[];
  readonly settings: {
    readonly durationS: number;
    readonly warmupS: number;
    readonly connections: number;
    readonly transactions: number;
    readonly serviceNodeFlags: readonly string[];
    /** The variables `npm start` sets for the service (startScriptEnvironment). */
    readonly serviceEnvironment: Readonly<Record<string, string>>;
    /** --wait-quiet: the longest wait for an idle machine before each run, in seconds. */
    readonly waitQuietS: number;
    readonly signing: string;
    readonly signingCostUs: number;
    /**
     * baseline-express's req/s, before the service's runs and (when any ran) again after them;
     * the ratios and the baseline-express row are the faster measurement.
     */
    readonly expressBaselineRps: readonly number[];
    readonly loadAverage: readonly number[];
  };
  readonly details: { readonly runs: RunDetail[]; readonly sweep: SweepDetail[] };
  readonly failures: string[];
}

const round = (value: number, digits: number): number => Math.round(value * 10 ** digits) / 10 ** digits;

export function runResult(name: RunName, m: Measurement, expressRps: number | undefined): RunResult {
  return {
    name,
    rps: round(m.rps, 1),
    p50Ms: round(m.p50Ms, 3),
    p99Ms: round(m.p99Ms, 3),
    cpuUsPerRequest: round(m.cpuUsPerRequest, 1),
    ratioToExpress: expressRps === undefined || expressRps === 0 ? null : round(m.rps / expressRps, 3),
    peakRssMb: round(m.peakRssMb, 1),
  };
}

export function runDetail(name: RunName, m: Measurement): RunDetail {
  return {
    name,
    requests: m.requests,
    durationS: m.durationS,
    non2xx: m.non2xx,
    statusCodes: m.statusCodes,
    dbCpuUsPerRequest: m.dbCpuUsPerRequest === null ? null : round(m.dbCpuUsPerRequest, 1),
    clientCpuUsPerRequest: round(m.clientCpuUsPerRequest, 1),
    otherCpuPct: round(m.otherCpuPct, 1),
  };
}

/** A run's least ratio to bare Express. */
interface RatioTarget {
  readonly run: RunName;
  readonly minimum: number;
}

/** What the report calls the runs that have ratio targets. */
const RUN_LABELS: Readonly<Partial<Record<RunName, string>>> = {
  listBanks: 'bank list (listBanks)',
  getCardSpread: 'card reads over 1,000+ cards (getCardSpread)',
  listTransactionsPages: 'ledger pagination, each page once (listTransactionsPages)',
  createTransfer: 'signed transfer create (createTransfer)',
};

/** A run's greatest p99 latency at the benchmark's 10 connections. */
interface LatencyTarget {
  readonly run: RunName;
  readonly maxP99Ms: number;
}

interface DatabaseTargets {
  readonly ratios: readonly RatioTarget[];
  readonly latencies: readonly LatencyTarget[];
  /** Every operation of the mixed run responds within this at the 99th percentile. */
  readonly mixedMaxP99Ms: number;
  /** The walk's p99 at 1M ledger records at most this many times its p99 at 10k; undefined: no such target on this database. */
  readonly paginationGrowth: number | undefined;
}

/**
 * The service's speed targets on each database: ratios to bare Express in the same run, and p99
 * latencies at 10 connections. The reads are scored on traffic as partners send it (cards
 * spread over organizations, ledger paginations that ask for each page once); the runs that repeat one
 * request carry no target.
 */
export const SPEED_TARGETS: Readonly<Record<DatabaseKind, DatabaseTargets>> = {
  postgres: {
    ratios: [
      { run: 'listBanks', minimum: 0.9 },
      { run: 'getCardSpread', minimum: 0.6 },
      { run: 'listTransactionsPages', minimum: 0.12 },
      { run: 'createTransfer', minimum: 0.3 },
    ],
    latencies: [
      { run: 'createTransfer', maxP99Ms: 20 },
      { run: 'executeTransfer', maxP99Ms: 50 },
    ],
    mixedMaxP99Ms: 50,
    paginationGrowth: 1.5,
  },
  pglite: {
    ratios: [
      { run: 'listBanks', minimum: 0.7 },
      { run: 'getCardSpread', minimum: 0.4 },
      { run: 'listTransactionsPages', minimum: 0.08 },
      { run: 'createTransfer', minimum: 0.3 },
    ],
    latencies: [
      { run: 'createTransfer', maxP99Ms: 25 },
      { run: 'executeTransfer', maxP99Ms: 50 },
    ],
    mixedMaxP99Ms: 50,
    paginationGrowth: undefined,
  },
};

/** The speed targets of the database measured, each checked against this benchmark's own numbers. */
export function evaluateTargets(
  runs: readonly RunResult[],
  sweep: readonly SweepPoint[],
  database: DatabaseKind,
  connections: number,
  operations: readonly OperationResult[] = [],
): TargetResult[] {
  const byName = new Map(runs.map((run) => [run.name, run]));
  const { ratios, latencies, mixedMaxP99Ms, paginationGrowth } = SPEED_TARGETS[database];
  const targets: TargetResult[] = ratios.map(({ run, minimum }) => {
    const label = RUN_LABELS[run] ?? run;
    const ratio = byName.get(run)?.ratioToExpress;
    if (ratio === undefined || ratio === null)
      return { target: `${label} ratio ≥ ${minimum}`, measured: 'not run', status: 'n/a' };
    return {
      target: `${label} ratio ≥ ${minimum}`,
      measured: ratio.toFixed(3),
      status: ratio >= minimum ? 'PASS' : 'MISS',
    };
  });
  const latency = (label: string, p99Ms: number | undefined, maxP99Ms: number): TargetResult => {
    if (p99Ms === undefined) return { target: label, measured: 'not run', status: 'n/a' };
    if (connections !== 10)
      return { target: label, measured: `${p99Ms.toFixed(2)} ms at ${connections} connections`, status: 'n/a' };
    return { target: label, measured: `${p99Ms.toFixed(2)} ms`, status: p99Ms < maxP99Ms ? 'PASS' : 'MISS' };
  };
  for (const { run, maxP99Ms } of latencies) {
    targets.push(latency(`${run} p99 < ${maxP99Ms} ms at 10 connections`, byName.get(run)?.p99Ms, maxP99Ms));
  }

  const mixed = operations.filter((operation) => operation.run === 'mixed');
  if (mixed.length === 0)
    targets.push(
      latency(`mixed: every operation's p99 < ${mixedMaxP99Ms} ms at 10 connections`, undefined, mixedMaxP99Ms),
    );
  for (const operation of mixed) {
    const label = `mixed: ${operation.operation} p99 < ${mixedMaxP99Ms} ms at 10 connections`;
    targets.push(
      operation.requests > operation.non2xx
        ? latency(label, operation.p99Ms, mixedMaxP99Ms)
        : { target: label, measured: 'no 2xx response', status: 'MISS' },
    );
  }

  const growthLimit = paginationGrowth ?? 1.5;
  const sweepLabel = `listTransactionsPages p99 at 1M rows ≤ ${growthLimit} × p99 at 10k rows${paginationGrowth === undefined ? ' (a PostgreSQL target)' : ''}`;
  const small = sweep.find((point) => point.rows === 10_000);
  const large = sweep.find((point) => point.rows === 1_000_000);
  if (small === undefined || large === undefined) {
    targets.push({ target: sweepLabel, measured: 'needs --rows with 10000 and 1000000', status: 'n/a' });
  } else if (small.p99Ms === null || large.p99Ms === null) {
    targets.push({
      target: sweepLabel,
      measured: 'a size completed no request within the run',
      status: paginationGrowth === undefined ? 'n/a' : 'MISS',
    });
  } else {
    const growth = small.p99Ms === 0 ? Number.POSITIVE_INFINITY : large.p99Ms / small.p99Ms;
    const measured = `${large.p99Ms.toFixed(2)} / ${small.p99Ms.toFixed(2)} ms = ${growth.toFixed(2)}×`;
    targets.push({
      target: sweepLabel,
      measured,
      status: paginationGrowth === undefined ? 'n/a' : growth <= paginationGrowth ? 'PASS' : 'MISS',
    });
  }

  const rssLabel = 'server RSS under load < 200 MB on PostgreSQL';
  const service = runs.filter((run) => SERVICE_RUNS.includes(run.name));
  if (service.length === 0) targets.push({ target: rssLabel, measured: 'not run', status: 'n/a' });
  else {
    const peak = Math.max(...service.map((run) => run.peakRssMb));
    targets.push(
      database === 'postgres'
        ? { target: rssLabel, measured: `${peak.toFixed(1)} MB`, status: peak < 200 ? 'PASS' : 'MISS' }
        : {
            target: rssLabel,
            measured: `${peak.toFixed(1)} MB on PGlite (the database runs inside the server)`,
            status: 'n/a',
          },
    );
  }
  return targets;
}

/** What ablationRun reads of a side: a whole run's measurement, or one operation's. */
interface AblationSide {
  readonly rps: number;
  readonly p99Ms: number;
  readonly cpuUsPerRequest?: number;
  readonly otherCpuPct?: number;
}

/** A run measured against the same run without a mechanism: rates, their ratio, p99s, and CPU. */
export function ablationRun(name: string, withM: AblationSide, withoutM: AblationSide): AblationRun {
  const maybe = (value: number | undefined, digits: number): number | null =>
    value === undefined ? null : round(value, digits);
  return {
    name,
    withRps: round(withM.rps, 1),
    withoutRps: round(withoutM.rps, 1),
    ratio: withM.rps === 0 ? 0 : round(withoutM.rps / withM.rps, 3),
    withP99Ms: round(withM.p99Ms, 3),
    withoutP99Ms: round(withoutM.p99Ms, 3),
    withCpuUsPerRequest: maybe(withM.cpuUsPerRequest, 1),
    withoutCpuUsPerRequest: maybe(withoutM.cpuUsPerRequest, 1),
    withOtherCpuPct: maybe(withM.otherCpuPct, 1),
    withoutOtherCpuPct: maybe(withoutM.otherCpuPct, 1),
  };
}

function table(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  rightAligned: (column: number) => boolean,
): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, column) =>
        rightAligned(column) ? cell.padStart(widths[column] ?? 0) : cell.padEnd(widths[column] ?? 0),
      )
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

const fixed = (value: number, digits: number): string => value.toFixed(digits);

export function formatReport(report: BenchReport): string {
  const { machine, settings } = report;
  const details = new Map(report.details.runs.map((detail) => [detail.name, detail]));
  const out: string[] = [];
  out.push(
    `Machine: ${machine.cpus} × ${machine.model}, ${machine.memoryGb} GB, Node ${machine.node}, ${machine.os}`,
    `Database: ${report.database === 'postgres' ? "PostgreSQL (a fresh database on DATABASE_URL's server)" : 'PGlite (embedded, in the server process)'}; ` +
      `${settings.transactions} bulk ledger records (onboarding analyzes the table after a bulk load)`,
    ...(settings.serviceNodeFlags.length > 0 ? [`Service node flags: ${settings.serviceNodeFlags.join(' ')}`] : []),
    ...(Object.keys(settings.serviceEnvironment).length > 0
      ? [
          `Service environment: ${Object.entries(settings.serviceEnvironment)
            .map(([name, value]) => `${name}=${value}`)
            .join(' ')}`,
        ]
      : []),
    `Runs: ${settings.durationS} s each after a ${settings.warmupS} s warm-up, ${settings.connections} connections; ` +
      `load average before: ${settings.loadAverage.map((value) => value.toFixed(2)).join(' ')}`,
    ...(settings.expressBaselineRps.length > 1
      ? [
          `Express baseline: ${settings.expressBaselineRps.join(" req/s before the service's runs, ")} req/s after them; ratios are to the faster`,
        ]
      : []),
    '',
  );
  out.push(
    table(
      [
        'run',
        'req/s',
        'p50 ms',
        'p99 ms',
        'server µs/req',
        'db µs/req',
        'client µs/req',
        '× express',
        'peak RSS MB',
        'non-2xx',
        'other CPU %',
      ],
      report.runs.map((run) => {
        const detail = details.get(run.name);
        return [
          run.name,
          fixed(run.rps, 0),
          fixed(run.p50Ms, 2),
          fixed(run.p99Ms, 2),
          fixed(run.cpuUsPerRequest, 0),
          detail?.dbCpuUsPerRequest === null || detail?.dbCpuUsPerRequest === undefined
            ? '-'
            : fixed(detail.dbCpuUsPerRequest, 0),
          detail === undefined ? '-' : fixed(detail.clientCpuUsPerRequest, 0),
          run.ratioToExpress === null ? '-' : fixed(run.ratioToExpress, 3),
          fixed(run.peakRssMb, 1),
          detail === undefined ? '-' : `${detail.non2xx}/${detail.requests}`,
          detail === undefined ? '-' : fixed(detail.otherCpuPct, 1),
        ];
      }),
      (column) => column > 0,
    ),
  );
  if (report.notes.length > 0) out.push('', ...report.notes);
  out.push('', 'What each run sends:', ...report.runs.map((run) => `  ${run.name}: ${RUN_TRAFFIC[run.name]}`));
  if (report.operations.length > 0) {
    out.push(
      '',
      'Operations of the mixed run, each on its own:',
      table(
        ['operation', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx'],
        report.operations.map((operation) => [
          operation.operation,
          fixed(operation.rps, 0),
          fixed(operation.p50Ms, 2),
          fixed(operation.p99Ms, 2),
          `${operation.non2xx}/${operation.requests}`,
        ]),
        (column) => column > 0,
      ),
    );
  }
  if (report.statements.length > 0) {
    out.push(
      '',
      `Each spread read's statements alone, at ${settings.connections} at once, beside the read over HTTP:`,
      table(
        ['run', 'HTTP req/s', 'statements/s', 'measured by', 'HTTP ÷ statements', 'statements p99 ms'],
        report.statements.map((rate) => [
          rate.run,
          rate.httpRps === null ? '-' : fixed(rate.httpRps, 0),
          rate.rps === null ? '-' : fixed(rate.rps, 0),
          rate.note === undefined ? rate.method : `${rate.method} (${rate.note})`,
          rate.rps === null || rate.httpRps === null || rate.rps === 0 ? '-' : fixed(rate.httpRps / rate.rps, 2),
          rate.p99Ms === null ? '-' : fixed(rate.p99Ms, 2),
        ]),
        (column) => column === 1 || column === 2 || column === 4 || column === 5,
      ),
      ...(report.statements.some((rate) => rate.method === 'pgbench')
        ? [
            'pgbench: -M prepared, one statement a transaction, a random card (or organization and keyset position) each.',
          ]
        : []),
      'store loop: the store function the handler calls, in a loop in one process (scripts/bench/statements.ts).',
    );
  }
  out.push(
    '',
    'server µs/req: CPU time (user + system) of the server process per request, from /proc/<pid>/stat; on PGlite it',
    'includes the database, which runs inside the server. db µs/req: the PostgreSQL backends serving the database.',
    'client µs/req: this process (autocannon). other CPU %: the rest of the machine meanwhile, in % of all cores.',
    `Signing: ${settings.signing}; one RSA-2048 signature costs ${fixed(settings.signingCostUs, 0)} µs here, client CPU`,
    'on the same cores as the server.',
  );
  if (report.details.sweep.length > 0) {
    out.push(
      '',
      'Ledger walk (listTransactionsPages, each page once), by ledger size of one organization, a fresh database each:',
      table(
        ['rows', 'req/s', 'p50 ms', 'p99 ms', 'server µs/req', 'db µs/req', 'other CPU %', 'seed s'],
        report.details.sweep.map((point) => [
          String(point.rows),
          fixed(point.rps, 0),
          fixed(point.p50Ms, 2),
          point.p99Ms === null ? '-' : fixed(point.p99Ms, 2),
          fixed(point.cpuUsPerRequest, 0),
          point.dbCpuUsPerRequest === null ? '-' : fixed(point.dbCpuUsPerRequest, 0),
          fixed(point.otherCpuPct, 1),
          fixed(point.seedSeconds, 1),
        ]),
        (column) => column > 0,
      ),
    );
  }
  if (report.ablation.length > 0) {
    out.push(
      '',
      'Each mechanism turned off: the runs against a service as above and one without it, both up at once on the same',
      'data, in slices taking turns (without ÷ with below 1: the mechanism earns speed; --without none is the noise):',
    );
    const optional = (value: number | null, digits: number): string => (value === null ? '-' : fixed(value, digits));
    for (const result of report.ablation) {
      out.push('', `--without ${result.mechanism}: ${result.what}; off by ${result.off}`);
      if (!result.measured) {
        out.push(`  not measured: ${result.note ?? ''}`);
        continue;
      }
      out.push(
        `  ${result.slices} slices of ${result.sliceS} s a side${result.note === undefined ? '' : `; ${result.note}`}`,
      );
      out.push(
        table(
          [
            'run',
            'with req/s',
            'without req/s',
            'without ÷ with',
            'with p99 ms',
            'without p99 ms',
            'server µs/req with / without',
            'other CPU % with / without',
          ],
          result.runs.map((run) => [
            run.name,
            fixed(run.withRps, 0),
            fixed(run.withoutRps, 0),
            fixed(run.ratio, 3),
            fixed(run.withP99Ms, 2),
            fixed(run.withoutP99Ms, 2),
            run.withCpuUsPerRequest === null
              ? '-'
              : `${optional(run.withCpuUsPerRequest, 0)} / ${optional(run.withoutCpuUsPerRequest, 0)}`,
            run.withOtherCpuPct === null
              ? '-'
              : `${optional(run.withOtherCpuPct, 1)} / ${optional(run.withoutOtherCpuPct, 1)}`,
          ]),
          (column) => column > 0,
        ),
      );
    }
  }
  out.push(
    '',
    'Targets:',
    table(
      ['target', 'measured', 'result'],
      report.targets.map((t) => [t.target, t.measured, t.status]),
      () => false,
    ),
  );
  if (report.failures.length > 0) out.push('', 'FAILED:', ...report.failures.map((failure) => `  ${failure}`));
  return out.join('\n');
}
