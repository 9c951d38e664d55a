/** The benchmark's result: its JSON shape, the speed targets, and the printed table. */
import { cpus, release, totalmem, type as osType } from 'node:os';
import type { DatabaseKind } from './database.js';
import type { Measurement } from './load.js';
import { SERVICE_RUNS, type RunName } from './options.js';

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
  readonly sweep: SweepPoint[];
  readonly targets: TargetResult[];
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
  getCard: 'card read (getCard)',
  listTransactions: 'page of 100 (listTransactions)',
  createTransfer: 'signed transfer create (createTransfer)',
};

/** A run's greatest p99 latency at the benchmark's 10 connections. */
interface LatencyTarget {
  readonly run: RunName;
  readonly maxP99Ms: number;
}

/**
 * The service's speed targets on each database, as the project set them (README, "Benchmark"):
 * ratios to bare Express in the same run, and p99 latencies at 10 connections.
 */
export const SPEED_TARGETS: Readonly<Record<DatabaseKind, { readonly ratios: readonly RatioTarget[]; readonly latencies: readonly LatencyTarget[] }>> = {
  postgres: {
    ratios: [
      { run: 'listBanks', minimum: 0.9 },
      { run: 'getCard', minimum: 0.5 },
      { run: 'listTransactions', minimum: 0.15 },
      { run: 'createTransfer', minimum: 0.3 },
    ],
    latencies: [
      { run: 'createTransfer', maxP99Ms: 20 },
      { run: 'executeTransfer', maxP99Ms: 50 },
    ],
  },
  pglite: {
    ratios: [
      { run: 'listBanks', minimum: 0.7 },
      { run: 'getCard', minimum: 0.3 },
      { run: 'listTransactions', minimum: 0.1 },
      { run: 'createTransfer', minimum: 0.25 },
    ],
    latencies: [
      { run: 'createTransfer', maxP99Ms: 25 },
      { run: 'executeTransfer', maxP99Ms: 50 },
    ],
  },
};

/** The speed targets of the database measured, each checked against this benchmark's own numbers. */
export function evaluateTargets(
  runs: readonly RunResult[],
  sweep: readonly SweepPoint[],
  database: DatabaseKind,
  connections: number,
): TargetResult[] {
  const byName = new Map(runs.map((run) => [run.name, run]));
  const { ratios, latencies } = SPEED_TARGETS[database];
  const targets: TargetResult[] = ratios.map(({ run, minimum }) => {
    const label = RUN_LABELS[run] ?? run;
    const ratio = byName.get(run)?.ratioToExpress;
    if (ratio === undefined || ratio === null) return { target: `${label} ratio ≥ ${minimum}`, measured: 'not run', status: 'n/a' };
    return { target: `${label} ratio ≥ ${minimum}`, measured: ratio.toFixed(3), status: ratio >= minimum ? 'PASS' : 'MISS' };
  });
  for (const { run, maxP99Ms } of latencies) {
    const label = `${run} p99 < ${maxP99Ms} ms at 10 connections`;
    const result = byName.get(run);
    if (result === undefined) targets.push({ target: label, measured: 'not run', status: 'n/a' });
    else if (connections !== 10) targets.push({ target: label, measured: `${result.p99Ms.toFixed(2)} ms at ${connections} connections`, status: 'n/a' });
    else targets.push({ target: label, measured: `${result.p99Ms.toFixed(2)} ms`, status: result.p99Ms < maxP99Ms ? 'PASS' : 'MISS' });
  }

  const sweepLabel = 'listTransactions p99 at 1M rows ≤ 1.5 × p99 at 10k rows';
  const small = sweep.find((point) => point.rows === 10_000);
  const large = sweep.find((point) => point.rows === 1_000_000);
  if (small === undefined || large === undefined) {
    targets.push({ target: sweepLabel, measured: 'needs --rows with 10000 and 1000000', status: 'n/a' });
  } else if (small.p99Ms === null || large.p99Ms === null) {
    targets.push({ target: sweepLabel, measured: 'a size completed no request within the run', status: 'MISS' });
  } else {
    const growth = small.p99Ms === 0 ? Number.POSITIVE_INFINITY : large.p99Ms / small.p99Ms;
    targets.push({
      target: sweepLabel,
      measured: `${large.p99Ms.toFixed(2)} / ${small.p99Ms.toFixed(2)} ms = ${growth.toFixed(2)}×`,
      status: growth <= 1.5 ? 'PASS' : 'MISS',
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
        : { target: rssLabel, measured: `${peak.toFixed(1)} MB on PGlite (the database runs inside the server)`, status: 'n/a' },
    );
  }
  return targets;
}

function table(header: readonly string[], rows: readonly (readonly string[])[], rightAligned: (column: number) => boolean): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, column) => (rightAligned(column) ? cell.padStart(widths[column] ?? 0) : cell.padEnd(widths[column] ?? 0)))
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
    `Database: ${report.database === 'postgres' ? 'PostgreSQL (a fresh database on DATABASE_URL\'s server)' : 'PGlite (embedded, in the server process)'}; ` +
      `${settings.transactions} bulk ledger records (onboarding analyzes the table after a bulk load)`,
    ...(settings.serviceNodeFlags.length > 0 ? [`Service node flags: ${settings.serviceNodeFlags.join(' ')}`] : []),
    ...(Object.keys(settings.serviceEnvironment).length > 0
      ? [`Service environment: ${Object.entries(settings.serviceEnvironment).map(([name, value]) => `${name}=${value}`).join(' ')}`]
      : []),
    `Runs: ${settings.durationS} s each after a ${settings.warmupS} s warm-up, ${settings.connections} connections; ` +
      `load average before: ${settings.loadAverage.map((value) => value.toFixed(2)).join(' ')}`,
    ...(settings.expressBaselineRps.length > 1
      ? [`Express baseline: ${settings.expressBaselineRps.join(' req/s before the service\'s runs, ')} req/s after them; ratios are to the faster`]
      : []),
    '',
  );
  out.push(
    table(
      ['run', 'req/s', 'p50 ms', 'p99 ms', 'server µs/req', 'db µs/req', 'client µs/req', '× express', 'peak RSS MB', 'non-2xx', 'other CPU %'],
      report.runs.map((run) => {
        const detail = details.get(run.name);
        return [
          run.name,
          fixed(run.rps, 0),
          fixed(run.p50Ms, 2),
          fixed(run.p99Ms, 2),
          fixed(run.cpuUsPerRequest, 0),
          detail?.dbCpuUsPerRequest === null || detail?.dbCpuUsPerRequest === undefined ? '-' : fixed(detail.dbCpuUsPerRequest, 0),
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
      'Filtered transaction page (listTransactions), each request a page not kept, by ledger size, a fresh database each:',
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
  out.push('', 'Targets:', table(['target', 'measured', 'result'], report.targets.map((t) => [t.target, t.measured, t.status]), () => false));
  if (report.failures.length > 0) out.push('', 'FAILED:', ...report.failures.map((failure) => `  ${failure}`));
  return out.join('\n');
}
