/**
 * `npm run bench`: the service against bare node:http and bare Express 5, side by side, one run
 * after another on this machine, with autocannon. `--help` lists the flags.
 *
 * The service runs as a child process (server/main.ts, NODE_ENV=production so that responses are
 * not validated, LOG_LEVEL=warn) on a fresh database onboarded before it starts: a new
 * PostgreSQL database on the server of DATABASE_URL, or an embedded one in a temporary
 * directory. The baselines answer the exact bytes GET /v1/bank answered, each in its own process.
 * Progress goes to stderr; stdout holds the table, or with --json only the JSON.
 */
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import type autocannon from 'autocannon';
import { createBenchDatabase, onboardBench, type BenchDatabase, type DatabaseKind } from './bench/database.js';
import { runLoad, type LoadSpec, type LoadTarget, type Measurement } from './bench/load.js';
import { RUN_NAMES, SERVICE_RUNS, USAGE, UsageError, parseBenchArgs, type BenchOptions, type RunName } from './bench/options.js';
import { buildService, startBaseline, startScriptEnvironment, startScriptNodeFlags, startService, type BaselineKind, type RunningServer } from './bench/processes.js';
import { machineBusyShare, postgresBackends } from './bench/proc-stats.js';
import {
  describeMachine,
  evaluateTargets,
  formatReport,
  runDetail,
  runResult,
  type BenchReport,
  type RunDetail,
  type RunResult,
  type SweepDetail,
} from './bench/report.js';
import {
  BENCH_BALANCE_CENTS,
  createTransferReplayRequest,
  createTransferRequest,
  executeTransferRequest,
  fetchToken,
  getCardRequest,
  listBanksRequest,
  listTransactionsRequest,
  listTransactionsUnkeptRequest,
  openSession,
  presignExecutes,
  signingCostUs,
  type Session,
} from './bench/scenarios.js';

/** A benchmark of errors measures nothing: more than this share of non-2xx fails it. */
const MAX_NON_2XX_SHARE = 0.01;
/** Pending transfers for the execute run: this many times what the create rate would need. */
const EXECUTE_POOL_HEADROOM = 1.5;

const progress = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

/** Things to undo on the way out, newest first: servers, then databases. */
const cleanups: (() => Promise<void>)[] = [];

async function cleanUp(): Promise<void> {
  while (cleanups.length > 0) {
    const step = cleanups.pop();
    try {
      await step?.();
    } catch (error) {
      progress(`cleanup: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

function defer(step: () => Promise<void>): () => Promise<void> {
  let done = false;
  const once = async (): Promise<void> => {
    if (done) return;
    done = true;
    await step();
  };
  cleanups.push(once);
  return once;
}

function serverUrlFromEnv(): string | undefined {
  const url = process.env['DATABASE_URL'];
  if (url === undefined || url === '') return undefined;
  if (!/^postgres(ql)?:\/\//.test(url)) {
    throw new UsageError('DATABASE_URL must be a postgres:// URL (the benchmark creates its own database on that server), or unset for PGlite.');
  }
  return url;
}

function stamp(): string {
  return new Date().toISOString().replace(/\D/g, '').slice(0, 14);
}

interface Bench {
  readonly options: BenchOptions;
  readonly warmupS: number;
  readonly failures: string[];
}

/** One request of the spec sent with fetch, to show what a failing run was answered. */
async function sampleAnswer(baseUrl: string, request: autocannon.Request): Promise<string> {
  const built = request.setupRequest === undefined || typeof request.setupRequest === 'string'
    ? request
    : request.setupRequest({ ...request, headers: { ...request.headers } }, {});
  try {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(built.headers ?? {})) if (typeof value === 'string') headers[name] = value;
    const response = await fetch(`${baseUrl}${built.path ?? '/'}`, {
      method: built.method ?? 'GET',
      headers,
      ...(built.body === undefined ? {} : { body: built.body }),
    });
    return `${response.status} ${(await response.text()).slice(0, 300)}`;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** Waits until `url` answers 200 (the server has worked off what the warm-up queued). */
async function settle(url: string, timeoutMs = 300_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    await response.arrayBuffer();
    if (response.status === 200) return;
    if (Date.now() > deadline) throw new Error(`${url} did not answer 200 after the warm-up`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Busy share of the machine under which a run may start with --wait-quiet: the idle service and database use a few %. */
const QUIET_BUSY_SHARE = 0.15;

/** --wait-quiet: waits (up to the limit) until other work on the machine has stopped. */
async function waitForQuiet(bench: Bench): Promise<void> {
  const limitS = bench.options.waitQuietS;
  if (limitS === 0) return;
  const started = Date.now();
  let lastNote = 0;
  for (;;) {
    const busy = await machineBusyShare(1000);
    if (busy < QUIET_BUSY_SHARE) return;
    const waited = (Date.now() - started) / 1000;
    if (waited >= limitS) {
      progress(`  the machine is still ${Math.round(busy * 100)} % busy after ${limitS} s: measuring anyway (see "other CPU %")`);
      return;
    }
    if (waited - lastNote >= 10) {
      lastNote = waited;
      progress(`  waiting for the machine to go quiet (${Math.round(busy * 100)} % busy)...`);
    }
  }
}

/** Warm-up (discarded), then the measured run; records a failure when the run is mostly errors. */
async function measure(bench: Bench, name: string, target: LoadTarget, spec: () => LoadSpec): Promise<Measurement> {
  const { options } = bench;
  await waitForQuiet(bench);
  await runLoad(target, spec(), { durationS: bench.warmupS, connections: options.connections });
  if (target.settlePath !== undefined) await settle(`${target.baseUrl}${target.settlePath}`);
  const measuredSpec = spec();
  const m = await runLoad(target, measuredSpec, { durationS: options.durationS, connections: options.connections });
  const codes = Object.entries(m.statusCodes).map(([code, count]) => `${code}: ${count}`).join(', ');
  progress(`  ${name}: ${m.rps.toFixed(0)} req/s, p50 ${m.p50Ms.toFixed(2)} ms, p99 ${m.p99Ms.toFixed(2)} ms, server ${m.cpuUsPerRequest.toFixed(0)} µs/req (${codes})`);
  if (m.requests === 0 || m.non2xx > m.requests * MAX_NON_2XX_SHARE || m.socketErrors > 0) {
    const sample = await sampleAnswer(target.baseUrl, measuredSpec.request);
    const failure =
      m.requests === 0
        ? `${name}: no response completed within ${m.durationS} s; a request now gets: ${sample}`
        : `${name}: ${m.non2xx} non-2xx and ${m.socketErrors} socket errors in ${m.requests} responses (${codes}); a request now gets: ${sample}`;
    progress(`  FAILED ${failure}`);
    bench.failures.push(failure);
  }
  return m;
}

/** Creates transfers (unmeasured) until the session holds `count` pending ones. */
async function fillTransferPool(bench: Bench, target: LoadTarget, session: Session, count: number): Promise<void> {
  const missing = count - session.pendingTransfers.length;
  if (missing <= 0) return;
  progress(`  creating ${missing} more pending transfers for executeTransfer...`);
  // Generous time: the amount ends it, the time only guards against a stalled service.
  await runLoad(target, { request: createTransferRequest(session), amount: missing }, { durationS: 600, connections: bench.options.connections });
}

interface MainResult {
  readonly database: DatabaseKind;
  readonly measurements: Map<RunName, Measurement>;
  /** baseline-express measured again after the service's runs, when both were run. */
  readonly expressAgain: Measurement | undefined;
  readonly signingCostUs: number;
}

async function runMain(bench: Bench, serverUrl: string | undefined): Promise<MainResult> {
  const { options } = bench;
  const database = await createBenchDatabase(serverUrl, `pps_bench_${stamp()}`);
  const dropDatabase = defer(() => database.dispose());
  progress(`Database: ${database.kind} (${database.name}); onboarding with ${options.transactions} ledger records...`);
  const credentials = await onboardBench(database, { transactions: options.transactions, balanceCents: BENCH_BALANCE_CENTS, progress });

  const service = await startService({ cwd: database.cwd, databaseUrl: database.url, cpuProfDir: options.cpuProfDir, nodeFlags: options.nodeFlags, logLevel: options.logLevel });
  const stopService = defer(() => service.stop());
  progress(`Service pid ${service.child.pid} at ${service.baseUrl}`);
  const session = await openSession(service.baseUrl, credentials, { signEachRequest: options.signEachRequest });
  const signCost = signingCostUs(session.signer);
  const target: LoadTarget = {
    pid: service.child.pid,
    baseUrl: service.baseUrl,
    settlePath: '/readyz',
    ...(database.kind === 'postgres' ? { databasePids: () => postgresBackends(database.name) } : {}),
  };
  const bankFile = path.join(await mkdtemp(path.join(tmpdir(), 'pps-bench-banks-')), 'banks.json');
  await writeFile(bankFile, session.bankListJson);

  const measurements = new Map<RunName, Measurement>();
  const onBaseline = async (kind: BaselineKind): Promise<Measurement> => {
    const baseline: RunningServer = await startBaseline(kind, bankFile);
    try {
      return await measure(bench, `baseline-${kind}`, { pid: baseline.child.pid, baseUrl: baseline.baseUrl }, () => ({ request: listBanksRequest() }));
    } finally {
      await baseline.stop();
    }
  };
  const now = Date.now();
  for (const name of options.runs) {
    progress(`Run ${name}...`);
    let m: Measurement;
    switch (name) {
      case 'baseline-http':
        m = await onBaseline('http');
        break;
      case 'baseline-express':
        m = await onBaseline('express');
        break;
      case 'baseline-express-validated':
        m = await onBaseline('express-validated');
        break;
      case 'listBanks':
        m = await measure(bench, name, target, () => ({ request: listBanksRequest() }));
        break;
      case 'getCard':
        m = await measure(bench, name, target, () => ({ request: getCardRequest(session) }));
        break;
      case 'listTransactions':
        m = await measure(bench, name, target, () => ({ request: listTransactionsRequest(session.token, now) }));
        break;
      case 'listTransactionsUnkept':
        m = await measure(bench, name, target, () => ({ request: listTransactionsUnkeptRequest(session.token, now) }));
        break;
      case 'createTransfer':
        m = await measure(bench, name, target, () => ({ request: createTransferRequest(session) }));
        break;
      case 'createTransferReplay':
        m = await measure(bench, name, target, () => ({ request: createTransferReplayRequest(session) }));
        if (session.replaysNotMarked > 0) {
          bench.failures.push(`${name}: ${session.replaysNotMarked} answers without Idempotent-Replayed: true (not replays)`);
        }
        break;
      case 'executeTransfer': {
        // Each execute needs its own PENDING transfer. Enough for the create rate (or, when
        // createTransfer was not run, a create run as long as the warm-up and the run).
        const seconds = options.durationS + bench.warmupS;
        const createRps = measurements.get('createTransfer')?.rps;
        if (createRps === undefined) {
          progress('  creating pending transfers for executeTransfer...');
          await runLoad(target, { request: createTransferRequest(session) }, { durationS: seconds * EXECUTE_POOL_HEADROOM, connections: options.connections });
        }
        const wanted = Math.ceil((createRps ?? 0) * seconds * EXECUTE_POOL_HEADROOM) + 4 * options.connections;
        await fillTransferPool(bench, target, session, wanted);
        const pool = session.pendingTransfers.splice(0);
        const warmCount = Math.floor((pool.length * bench.warmupS) / seconds);
        const warmPool = pool.slice(0, warmCount);
        const mainPool = pool.slice(warmCount);
        if (!options.signEachRequest) progress(`  signing ${pool.length} execute requests before the run...`);
        const warmSigned = options.signEachRequest ? undefined : presignExecutes(session, warmPool);
        const mainSigned = options.signEachRequest ? undefined : presignExecutes(session, mainPool);
        let round = 0;
        // `amount` leaves one request a connection unsent: autocannon builds each connection's next one ahead.
        m = await measure(bench, name, target, () => {
          round += 1;
          const [ids, signed] = round === 1 ? [warmPool, warmSigned] : [mainPool, mainSigned];
          return { request: executeTransferRequest(session, ids, signed), amount: ids.length - options.connections };
        });
        if (m.durationS < options.durationS - 1) {
          progress(`  note: executeTransfer spent its ${mainPool.length} pending transfers in ${m.durationS} s`);
        }
        break;
      }
    }
    measurements.set(name, m);
  }

  // Once more after the service's runs: a slow moment of the machine during the one baseline run
  // would raise every ratio of the benchmark; the ratios use the faster of the two.
  const servicesRun = options.runs.some((name) => SERVICE_RUNS.includes(name));
  let expressAgain: Measurement | undefined;
  if (measurements.has('baseline-express') && servicesRun) {
    progress('Run baseline-express again...');
    expressAgain = await onBaseline('express');
  }

  await stopService();
  await rm(path.dirname(bankFile), { recursive: true, force: true });
  await dropDatabase();
  return { database: database.kind, measurements, expressAgain, signingCostUs: signCost };
}

/** The filtered page at one ledger size: a fresh database, onboarded, its own service. */
async function sweepPoint(bench: Bench, serverUrl: string | undefined, rows: number): Promise<SweepDetail> {
  const { options } = bench;
  const database: BenchDatabase = await createBenchDatabase(serverUrl, `pps_bench_${stamp()}_r${rows}`);
  const dropDatabase = defer(() => database.dispose());
  progress(`Sweep ${rows} rows: seeding (${database.kind})...`);
  const started = Date.now();
  const credentials = await onboardBench(database, { transactions: rows, balanceCents: BENCH_BALANCE_CENTS, progress });
  const seedSeconds = (Date.now() - started) / 1000;
  const service = await startService({ cwd: database.cwd, databaseUrl: database.url, cpuProfDir: options.cpuProfDir, nodeFlags: options.nodeFlags, logLevel: options.logLevel });
  const stopService = defer(() => service.stop());
  const token = await fetchToken(service.baseUrl, credentials);
  const target: LoadTarget = {
    pid: service.child.pid,
    baseUrl: service.baseUrl,
    settlePath: '/readyz',
    ...(database.kind === 'postgres' ? { databasePids: () => postgresBackends(database.name) } : {}),
  };
  const now = Date.now();
  // Each request a page not kept: the sweep measures how the database's page scales.
  const m = await measure(bench, `listTransactions@${rows}`, target, () => ({ request: listTransactionsUnkeptRequest(token, now) }));
  await stopService();
  await dropDatabase();
  const round = (value: number, digits: number): number => Math.round(value * 10 ** digits) / 10 ** digits;
  return {
    rows,
    // No response within the run: no percentile to give (the target counts it as a miss).
    p99Ms: m.requests === 0 ? null : round(m.p99Ms, 3),
    rps: round(m.rps, 1),
    p50Ms: round(m.p50Ms, 3),
    cpuUsPerRequest: round(m.cpuUsPerRequest, 1),
    dbCpuUsPerRequest: m.dbCpuUsPerRequest === null ? null : round(m.dbCpuUsPerRequest, 1),
    otherCpuPct: round(m.otherCpuPct, 1),
    seedSeconds: round(seedSeconds, 1),
  };
}

async function run(options: BenchOptions): Promise<number> {
  const serverUrl = serverUrlFromEnv();
  let cpuProfDir = options.cpuProfDir;
  if (cpuProfDir === '') cpuProfDir = await mkdtemp(path.join(tmpdir(), 'pps-bench-prof-'));
  else if (cpuProfDir !== undefined) await mkdir((cpuProfDir = path.resolve(cpuProfDir)), { recursive: true });
  const bench: Bench = {
    options: { ...options, cpuProfDir },
    // Long enough for the JIT; discarded.
    warmupS: Math.min(2, Math.max(1, Math.round(options.durationS / 5))),
    failures: [],
  };
  const machine = describeMachine();
  const loadAverage = loadavg().map((value) => Math.round(value * 100) / 100);
  progress(`Machine: ${machine.cpus} × ${machine.model}, load average ${loadAverage.join(' ')}`);
  if ((loadAverage[0] ?? 0) > machine.cpus / 2) {
    progress(`warning: the machine is busy (load average ${loadAverage[0]} on ${machine.cpus} cores): the numbers will be noisy`);
  }

  progress('Building the service (npm run build)...');
  buildService();
  const main = await runMain(bench, serverUrl);
  const expressFirst = main.measurements.get('baseline-express');
  const expressRuns = [expressFirst, main.expressAgain].filter((m): m is Measurement => m !== undefined);
  const express = expressRuns.reduce<Measurement | undefined>((best, m) => (best === undefined || m.rps > best.rps ? m : best), undefined);
  if (express !== undefined) main.measurements.set('baseline-express', express);
  const expressRps = express?.rps;
  const runs: RunResult[] = [];
  const runDetails: RunDetail[] = [];
  for (const name of RUN_NAMES) {
    const m = main.measurements.get(name);
    if (m === undefined) continue;
    runs.push(runResult(name, m, expressRps));
    runDetails.push(runDetail(name, m));
  }

  const sweep: SweepDetail[] = [];
  for (const rows of options.rows) sweep.push(await sweepPoint(bench, serverUrl, rows));

  const report: BenchReport = {
    machine,
    database: main.database,
    runs,
    sweep: sweep.map(({ rows, p99Ms }) => ({ rows, p99Ms })),
    targets: evaluateTargets(runs, sweep, main.database, options.connections),
    settings: {
      durationS: options.durationS,
      warmupS: bench.warmupS,
      connections: options.connections,
      transactions: options.transactions,
      serviceNodeFlags: [...startScriptNodeFlags(), ...options.nodeFlags],
      serviceEnvironment: startScriptEnvironment(),
      waitQuietS: options.waitQuietS,
      signing: options.signEachRequest
        ? 'every write signed as it is sent'
        : "one signature per (path, second) reused for creates and replays; executes signed before the run",
      signingCostUs: Math.round(main.signingCostUs),
      expressBaselineRps: expressRuns.map((m) => Math.round(m.rps)),
      loadAverage,
    },
    details: { runs: runDetails, sweep },
    failures: bench.failures,
  };

  if (options.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else process.stdout.write(`${formatReport(report)}\n`);
  if (cpuProfDir !== undefined) {
    const files = (await readdir(cpuProfDir)).filter((file) => file.endsWith('.cpuprofile'));
    progress(`CPU profiles (one per service process, in start order) in ${cpuProfDir}: ${files.join(', ')}`);
  }
  if (bench.failures.length > 0) {
    progress(`\nThe benchmark FAILED: ${bench.failures.length} run(s) answered more than ${MAX_NON_2XX_SHARE * 100}% errors or nothing at all (see above).`);
    return 1;
  }
  return 0;
}

async function main(argv: string[]): Promise<number> {
  let options: BenchOptions | 'help';
  try {
    options = parseBenchArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message}\n\n${USAGE}\n`);
    return 2;
  }
  if (options === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      progress(`\n${signal}: stopping the servers and dropping the benchmark databases...`);
      void cleanUp().finally(() => process.exit(130));
    });
  }
  try {
    return await run(options);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n`);
      return 2;
    }
    throw error;
  } finally {
    await cleanUp();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exitCode = 1;
  },
);
