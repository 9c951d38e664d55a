/**
 * `npm run bench`: the service against bare node:http and bare Express 5, side by side, one run
 * after another on this machine, with autocannon. `--help` lists the flags.
 *
 * The service runs as a child process (server/main.ts, NODE_ENV=production so that responses are
 * not validated, LOG_LEVEL=warn) on a fresh database onboarded before it starts: a new
 * PostgreSQL database on the server of DATABASE_URL, or an embedded one in a temporary
 * directory. The baselines respond with the exact bytes GET /v1/bank responded with, each in its own process.
 * Progress goes to stderr; stdout holds the table, or with --json only the JSON.
 *
 * The spread runs (cards of several organizations, ledger paginations, the mixed run) add organizations
 * before the service starts, and once it has stopped measure each spread read's statements alone
 * (the store's function in a loop; pgbench on PostgreSQL). With --without, the service's runs are
 * measured again against a service started without each mechanism named (mechanisms.ts).
 */
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import type autocannon from 'autocannon';
import { SANDBOX_LEDGER_DAYS } from '../../server/sandbox/demo-organization.js';
import {
  copyEmbeddedDatabase,
  createBenchDatabase,
  onboardBench,
  runDatabaseCli,
  seedOrganizations,
  type BenchDatabase,
  type DatabaseKind,
  type Onboarded,
} from './database.js';
import { combineMeasurements } from './combine.js';
import { runLoad, type LoadSpec, type LoadTarget, type Measurement } from './load.js';
import { MECHANISMS, describeOff, variablesNotRead, type Mechanism } from './mechanisms.js';
import {
  RUN_NAMES,
  SANDBOX_ROUNDS_PER_ORGANIZATION,
  SERVICE_RUNS,
  SPREAD_ORGANIZATIONS,
  SPREAD_RUNS,
  USAGE,
  parseBenchArgs,
  type BenchOptions,
  type RunName,
} from './options.js';
import { cardStatementScript, findPgbench, runPgbench, paginationStatementScript } from './pgbench.js';
import {
  PROJECT_ROOT,
  buildService,
  startBaseline,
  startScriptEnvironment,
  startScriptNodeFlags,
  startService,
  type BaselineKind,
  type RunningServer,
} from './processes.js';
import { machineBusyShare, postgresBackends } from './proc-stats.js';
import {
  ablationRun,
  describeMachine,
  evaluateTargets,
  formatReport,
  runDetail,
  runResult,
  type AblationResult,
  type AblationRun,
  type BenchReport,
  type OperationResult,
  type RunDetail,
  type RunResult,
  type StatementRate,
  type SweepDetail,
} from './report.js';
import {
  BENCH_BALANCE_CENTS,
  MIXED_EXECUTE_SHARE,
  MIXED_OPERATIONS,
  createTransferReplayRequest,
  createTransferRequest,
  executeTransferRequest,
  freshPaginationPlan,
  getCardRequest,
  getCardSpreadRequest,
  listBanksRequest,
  listCardIds,
  listTransactionsRequest,
  listTransactionsUnkeptRequest,
  mixedConnection,
  openSession,
  presignExecutes,
  signingCostUs,
  paginationConnection,
  paginationSampleRequest,
  type ExecutePool,
  type MixedOperation,
  type Session,
  type Traffic,
} from './scenarios.js';
import type { StatementLoopInput, StatementLoopResult, StatementRead } from './statements.js';
import { Rotation, WALK_FILTER_SETS, interleaveCards } from './traffic.js';
import { reportUsageError, UsageError } from 'contract-first/cli';

/** A benchmark of errors measures nothing: more than this share of non-2xx fails it. */
const MAX_NON_2XX_SHARE = 0.01;
/** Pending transfers for the execute run: this many times what the create rate would need. */
const EXECUTE_POOL_HEADROOM = 1.5;
/** The mixed run's rate to size its pool of pending transfers by, when no run of this service has shown one: above any measured here. */
const MIXED_RATE_GUESS = 3_000;
/**
 * The mechanism comparison measures each side of a run in this many slices, taking turns: a slow
 * stretch of a shared machine then lands on both sides
 * (server/decisions/0020-a-speed-mechanism-stays-only-if-it-earns-a-tenth.md).
 */
const ABLATION_SLICES = 4;
/** Warm-up before each slice: both services stay up between slices, so only the connections are new. */
const ABLATION_SLICE_WARMUP_S = 1;
/** pgbench's own threads: its client work on two cores, as the benchmark's client has one process. */
const PGBENCH_THREADS = 2;
/** Days of ledger with bulk records: the year before the current month, and that month. */
const BULK_LEDGER_DAYS = 365 + 31;
const DAY_MS = 86_400_000;

/** The mixed run's operations in the order MIXED_OPERATIONS lists them (the order they first responded varies). */
const mixedOrder = (operation: string): number => MIXED_OPERATIONS.findIndex((mixed) => mixed.operation === operation);
const round1 = (value: number): number => Math.round(value * 10) / 10;
const firstLine = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
const round3 = (value: number): number => Math.round(value * 1000) / 1000;

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
    throw new UsageError(
      'DATABASE_URL must be a postgres:// URL (the benchmark creates its own database on that server), or unset for PGlite.',
    );
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

/** One request of the spec sent with fetch, to show what a failing run received. */
async function sampleResponse(baseUrl: string, request: autocannon.Request): Promise<string> {
  const built =
    request.setupRequest === undefined || typeof request.setupRequest === 'string'
      ? request
      : request.setupRequest({ ...request, headers: { ...request.headers } }, {});
  try {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(built.headers ?? {}))
      if (typeof value === 'string') headers[name] = value;
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

/** Waits until `url` responds with 200 (the server has worked off what the warm-up queued). */
async function settle(url: string, timeoutMs = 300_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    await response.arrayBuffer();
    if (response.status === 200) return;
    if (Date.now() > deadline) throw new Error(`${url} did not respond with 200 after the warm-up`);
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
      progress(
        `  the machine is still ${Math.round(busy * 100)} % busy after ${limitS} s: measuring anyway (see "other CPU %")`,
      );
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
  const codes = Object.entries(m.statusCodes)
    .map(([code, count]) => `${code}: ${count}`)
    .join(', ');
  progress(
    `  ${name}: ${m.rps.toFixed(0)} req/s, p50 ${m.p50Ms.toFixed(2)} ms, p99 ${m.p99Ms.toFixed(2)} ms, server ${m.cpuUsPerRequest.toFixed(0)} µs/req (${codes})`,
  );
  if (m.requests === 0 || m.non2xx > m.requests * MAX_NON_2XX_SHARE || m.socketErrors > 0) {
    const sample = await sampleResponse(target.baseUrl, measuredSpec.request);
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
async function fillTransferPool(
  bench: Bench,
  target: LoadTarget,
  session: Session,
  count: number,
  quiet = false,
): Promise<void> {
  const missing = count - session.pendingTransfers.length;
  if (missing <= 0) return;
  if (!quiet) progress(`  creating ${missing} more pending transfers for executeTransfer...`);
  // Generous time: the amount ends it, the time only guards against a stalled service.
  await runLoad(
    target,
    { request: createTransferRequest(session), amount: missing },
    { durationS: 600, connections: bench.options.connections },
  );
}

/** A running service and what its runs need. */
interface ServiceRuns {
  readonly target: LoadTarget;
  /** The first organization's session: the runs that do not spread use it. */
  readonly session: Session;
  /** The spread runs' organizations, cards and walks; undefined when no spread run is chosen. */
  readonly traffic: Traffic | undefined;
  readonly measurements: Map<RunName, Measurement>;
  readonly now: number;
}

/** Starts the service on the benchmark's database (with `env` on top, when a mechanism is off). */
async function startBenchService(
  bench: Bench,
  database: BenchDatabase,
  variant: { env?: Readonly<Record<string, string>> } = {},
): Promise<{ service: RunningServer; target: LoadTarget; stop: () => Promise<void> }> {
  const { options } = bench;
  const service = await startService({
    cwd: database.cwd,
    databaseUrl: database.url,
    cpuProfDir: options.cpuProfDir,
    nodeFlags: options.nodeFlags,
    logLevel: options.logLevel,
    ...variant,
  });
  const stop = defer(() => service.stop());
  progress(`Service pid ${service.child.pid} at ${service.baseUrl}`);
  const target: LoadTarget = {
    pid: service.child.pid,
    baseUrl: service.baseUrl,
    settlePath: '/readyz',
    ...(database.kind === 'postgres' ? { databasePids: () => postgresBackends(database.name) } : {}),
  };
  return { service, target, stop };
}

/** Sessions of every organization and, for the spread runs, their cards interleaved and the walk plan (or those of `previous`, to go on where it stopped). */
async function openTraffic(
  baseUrl: string,
  organizations: readonly Onboarded[],
  options: { signEachRequest: boolean; now: number; previous?: Traffic | undefined },
): Promise<Traffic> {
  const sessions: Session[] = [];
  for (const credentials of organizations)
    sessions.push(await openSession(baseUrl, credentials, { signEachRequest: options.signEachRequest }));
  if (options.previous !== undefined) return { ...options.previous, sessions, paginators: [] };
  const byOrganization: string[][] = [];
  for (const session of sessions) byOrganization.push(await listCardIds(baseUrl, session));
  const cards = interleaveCards(byOrganization);
  return {
    sessions,
    cards: new Rotation(cards),
    cardCount: cards.length,
    paginationPlans: [],
    paginators: [],
    now: options.now,
  };
}

function needTraffic(traffic: Traffic | undefined, name: RunName): Traffic {
  if (traffic === undefined) throw new Error(`${name} needs the spread runs' organizations`);
  return traffic;
}

/** Pages and walks the paginators created since `from` covered, for the report's notes. */
function paginationNote(name: string, traffic: Traffic, from: number): string {
  const paginators = traffic.paginators.slice(from);
  const pages = paginators.reduce((sum, paginator) => sum + paginator.pagesAsked, 0);
  const finished = paginators.reduce((sum, paginator) => sum + paginator.paginationsFinished, 0);
  const rounds = traffic.paginationPlans.at(-1)?.nextFreeRound ?? 0;
  return `${name}: ${pages} walk pages asked (warm-up included), ${finished} walks finished; ${rounds} rounds of walks started so far`;
}

/** The run measuring each of the mixed run's operations alone. */
const RUN_OF_OPERATION: Readonly<Record<MixedOperation, RunName>> = {
  getCard: 'getCardSpread',
  listTransactions: 'listTransactionsPages',
  createTransfer: 'createTransfer',
  executeTransfer: 'executeTransfer',
};

/**
 * The mixed run's rate as the runs of its operations alone predict it (each request costs what it
 * costs alone: the weighted harmonic mean). An operation whose run was not measured counts as
 * free, so the guess errs high, which is the safe side for a pool of pending transfers.
 */
function expectedMixedRps(measurements: ReadonlyMap<RunName, Measurement>): number {
  const total = MIXED_OPERATIONS.reduce((sum, { weight }) => sum + weight, 0);
  let secondsPerRequest = 0;
  for (const { operation, weight } of MIXED_OPERATIONS) {
    const rps = measurements.get(RUN_OF_OPERATION[operation])?.rps;
    if (rps !== undefined && rps > 0) secondsPerRequest += weight / total / rps;
  }
  return secondsPerRequest > 0 ? 1 / secondsPerRequest : MIXED_RATE_GUESS;
}

/** Measures one of the service's runs; `notes` hears what else the run covered. */
async function measureServiceRun(
  bench: Bench,
  name: RunName,
  runs: ServiceRuns,
  notes: string[],
): Promise<Measurement> {
  const { options } = bench;
  const { target, session, now } = runs;
  switch (name) {
    case 'baseline-http':
    case 'baseline-express':
    case 'baseline-express-validated':
      throw new Error(`${name} is not a run of the service`);
    case 'listBanks':
      return measure(bench, name, target, () => ({ request: listBanksRequest() }));
    case 'getCard':
      return measure(bench, name, target, () => ({ request: getCardRequest(session) }));
    case 'getCardSpread': {
      const traffic = needTraffic(runs.traffic, name);
      return measure(bench, name, target, () => ({ request: getCardSpreadRequest(traffic) }));
    }
    case 'listTransactions':
      return measure(bench, name, target, () => ({ request: listTransactionsRequest(session.token, now) }));
    case 'listTransactionsUnkept':
      return measure(bench, name, target, () => ({ request: listTransactionsUnkeptRequest(session.token, now) }));
    case 'listTransactionsPages': {
      const traffic = needTraffic(runs.traffic, name);
      const from = traffic.paginators.length;
      const m = await measure(bench, name, target, () => {
        const plan = freshPaginationPlan(traffic);
        return { request: paginationSampleRequest(traffic), connection: () => paginationConnection(traffic, plan) };
      });
      notes.push(paginationNote(name, traffic, from));
      return m;
    }
    case 'createTransfer':
      return measure(bench, name, target, () => ({ request: createTransferRequest(session) }));
    case 'createTransferReplay': {
      const before = session.replaysNotMarked;
      const m = await measure(bench, name, target, () => ({ request: createTransferReplayRequest(session) }));
      const notMarked = session.replaysNotMarked - before;
      if (notMarked > 0)
        bench.failures.push(`${name}: ${notMarked} responses without Idempotent-Replayed: true (not replays)`);
      return m;
    }
    case 'executeTransfer': {
      // Each execute needs its own PENDING transfer. Enough for the create rate (or, when
      // createTransfer was not run, a create run as long as the warm-up and the run).
      const seconds = options.durationS + bench.warmupS;
      const createRps = runs.measurements.get('createTransfer')?.rps;
      if (createRps === undefined) {
        progress('  creating pending transfers for executeTransfer...');
        await runLoad(
          target,
          { request: createTransferRequest(session) },
          { durationS: seconds * EXECUTE_POOL_HEADROOM, connections: options.connections },
        );
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
      const m = await measure(bench, name, target, () => {
        round += 1;
        const [ids, signed] = round === 1 ? [warmPool, warmSigned] : [mainPool, mainSigned];
        return { request: executeTransferRequest(session, ids, signed), amount: ids.length - options.connections };
      });
      if (m.durationS < options.durationS - 1) {
        progress(`  note: executeTransfer spent its ${mainPool.length} pending transfers in ${m.durationS} s`);
      }
      return m;
    }
    case 'mixed': {
      const traffic = needTraffic(runs.traffic, name);
      // Executes are a twentieth of the run: enough pending transfers for the rate the runs of
      // each operation alone predict, with headroom.
      const expectedRps = expectedMixedRps(runs.measurements);
      const executes =
        Math.ceil(expectedRps * MIXED_EXECUTE_SHARE * (options.durationS + bench.warmupS) * EXECUTE_POOL_HEADROOM) +
        options.connections;
      const perOrganization = Math.ceil(executes / traffic.sessions.length);
      progress(`  creating ${perOrganization} pending transfers in each organization for its executes...`);
      for (const each of traffic.sessions) await fillTransferPool(bench, target, each, perOrganization, true);
      if (!options.signEachRequest)
        progress(`  signing ${perOrganization * traffic.sessions.length} execute requests before the run...`);
      const columns = traffic.sessions.map((each, organization) => {
        const ids = each.pendingTransfers.splice(0);
        const signed = options.signEachRequest ? undefined : presignExecutes(each, ids);
        return ids.map((id, i) => ({ organization, id, signed: signed?.[i] }));
      });
      // The organizations in turn, as the creates go.
      const longest = Math.max(0, ...columns.map((column) => column.length));
      const entries = Array.from({ length: longest }, (_, i) => columns.map((column) => column[i]))
        .flat()
        .filter((entry) => entry !== undefined);
      const pool: ExecutePool = { entries, next: 0, spentTurns: 0 };
      const from = traffic.paginators.length;
      const m = await measure(bench, name, target, () => {
        const plan = freshPaginationPlan(traffic);
        return {
          request: getCardSpreadRequest(traffic),
          connection: (index) => mixedConnection(traffic, plan, pool, index),
        };
      });
      for (const operation of m.operations) {
        if (operation.non2xx > operation.requests * MAX_NON_2XX_SHARE) {
          bench.failures.push(
            `${name}: ${operation.name} responded with ${operation.non2xx} non-2xx in ${operation.requests}`,
          );
        }
      }
      notes.push(paginationNote(`${name} (listTransactions)`, traffic, from));
      if (pool.spentTurns > 0)
        notes.push(
          `${name}: the ${pool.entries.length} pending transfers ran out; ${pool.spentTurns} execute turns sent a create instead`,
        );
      return m;
    }
  }
}

interface MainResult {
  readonly database: DatabaseKind;
  readonly measurements: Map<RunName, Measurement>;
  /** baseline-express measured again after the service's runs, when both were run. */
  readonly expressAgain: Measurement | undefined;
  readonly signingCostUs: number;
  readonly statements: StatementRate[];
  readonly ablation: AblationResult[];
  readonly notes: string[];
}

async function runMain(bench: Bench, serverUrl: string | undefined): Promise<MainResult> {
  const { options } = bench;
  const spread = options.runs.some((name) => SPREAD_RUNS.includes(name));
  const database = await createBenchDatabase(serverUrl, `pps_bench_${stamp()}`);
  const dropDatabase = defer(() => database.dispose());
  progress(`Database: ${database.kind} (${database.name}); onboarding with ${options.transactions} ledger records...`);
  const credentials = await onboardBench(database, {
    transactions: options.transactions,
    balanceCents: BENCH_BALANCE_CENTS,
    progress,
  });
  const organizations: Onboarded[] = [credentials];
  if (spread) {
    progress(
      `Adding ${SPREAD_ORGANIZATIONS - 1} organizations and ${SANDBOX_ROUNDS_PER_ORGANIZATION} rounds of sandbox cards each for the spread runs...`,
    );
    organizations.push(
      ...(await seedOrganizations(database, {
        organizationId: credentials.organizationId,
        more: SPREAD_ORGANIZATIONS - 1,
        seeds: SANDBOX_ROUNDS_PER_ORGANIZATION,
        transactions: options.transactions,
        balanceCents: BENCH_BALANCE_CENTS,
        progress,
      })),
    );
  }

  const now = Date.now();
  const started = await startBenchService(bench, database);
  const traffic = await openTraffic(started.service.baseUrl, spread ? organizations : [credentials], {
    signEachRequest: options.signEachRequest,
    now,
  });
  const session = traffic.sessions[0];
  if (session === undefined) throw new Error('no session');
  if (spread) progress(`  ${traffic.cardCount} cards of ${traffic.sessions.length} organizations`);
  const signCost = signingCostUs(session.signer);
  const bankFile = path.join(await mkdtemp(path.join(tmpdir(), 'pps-bench-banks-')), 'banks.json');
  await writeFile(bankFile, session.bankListJson);

  const measurements = new Map<RunName, Measurement>();
  const notes: string[] = [];
  const runs: ServiceRuns = {
    target: started.target,
    session,
    traffic: spread ? traffic : undefined,
    measurements,
    now,
  };
  const onBaseline = async (kind: BaselineKind): Promise<Measurement> => {
    const baseline: RunningServer = await startBaseline(kind, bankFile);
    try {
      return await measure(bench, `baseline-${kind}`, { pid: baseline.child.pid, baseUrl: baseline.baseUrl }, () => ({
        request: listBanksRequest(),
      }));
    } finally {
      await baseline.stop();
    }
  };
  for (const name of options.runs) {
    progress(`Run ${name}...`);
    const m =
      name === 'baseline-http' || name === 'baseline-express' || name === 'baseline-express-validated'
        ? await onBaseline(
            name === 'baseline-http' ? 'http' : name === 'baseline-express' ? 'express' : 'express-validated',
          )
        : await measureServiceRun(bench, name, runs, notes);
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
  await started.stop();
  await rm(path.dirname(bankFile), { recursive: true, force: true });

  const statements = spread ? await measureStatementsAlone(bench, database, traffic, measurements) : [];
  const ablation: AblationResult[] = [];
  for (const name of options.without) {
    ablation.push(
      await measureWithout(bench, database, MECHANISMS[name], {
        organizations: spread ? organizations : [credentials],
        spread,
        traffic,
        now,
      }),
    );
  }

  await dropDatabase();
  return { database: database.kind, measurements, expressAgain, signingCostUs: signCost, statements, ablation, notes };
}

/**
 * Each spread read's statements alone, with the service stopped (the embedded database belongs to
 * one process): the store's function in a loop on either database, and pgbench on PostgreSQL.
 */
async function measureStatementsAlone(
  bench: Bench,
  database: BenchDatabase,
  traffic: Traffic,
  measurements: ReadonlyMap<RunName, Measurement>,
): Promise<StatementRate[]> {
  const { options } = bench;
  const rates: StatementRate[] = [];
  const reads = (['getCardSpread', 'listTransactionsPages'] as const).filter((name) => measurements.has(name));
  if (reads.length === 0) return rates;
  const dir = await mkdtemp(path.join(tmpdir(), 'pps-bench-statements-'));
  const removeDir = defer(() => rm(dir, { recursive: true, force: true }));
  const cards: { organizationId: string; cardId: string }[] = [];
  for (let i = 0; i < traffic.cardCount; i += 1) {
    // A fresh walk through the same order as the HTTP run's rotation.
    const key = traffic.cards.take();
    const organizationId = traffic.sessions[key.organization]?.organizationId;
    if (organizationId !== undefined) cards.push({ organizationId, cardId: key.cardId });
  }
  const organizationIds = traffic.sessions.map((session) => session.organizationId);
  const pgbench = database.kind === 'postgres' ? findPgbench() : undefined;
  for (const run of reads) {
    const httpRps = measurements.get(run)?.rps ?? null;
    const read: StatementRead = run === 'getCardSpread' ? 'getCard' : 'listTransactions';
    progress(`Statements alone: ${run}, the store loop...`);
    const input: StatementLoopInput = {
      read,
      durationS: options.durationS,
      concurrency: options.connections,
      now: traffic.now,
      cards,
      organizations: organizationIds,
    };
    const inputFile = path.join(dir, `${read}.json`);
    await writeFile(inputFile, JSON.stringify(input));
    try {
      const result = (await runDatabaseCli(
        database,
        `${PROJECT_ROOT}scripts/bench/statements.ts`,
        [inputFile],
        'statements',
        progress,
      )) as StatementLoopResult;
      progress(`  ${run}: ${result.rps.toFixed(0)} calls/s, p99 ${result.p99Ms.toFixed(2)} ms`);
      rates.push({
        run,
        method: 'store loop',
        rps: round1(result.rps),
        p99Ms: round3(result.p99Ms),
        httpRps: httpRps === null ? null : round1(httpRps),
      });
    } catch (error) {
      rates.push({ run, method: 'store loop', rps: null, p99Ms: null, httpRps, note: firstLine(error) });
    }
    if (database.kind !== 'postgres' || database.url === undefined) continue;
    if (pgbench === undefined) {
      rates.push({ run, method: 'pgbench', rps: null, p99Ms: null, httpRps, note: 'pgbench not found (set PGBENCH)' });
      continue;
    }
    progress(`Statements alone: ${run}, pgbench...`);
    const scripts =
      run === 'getCardSpread'
        ? [await cardStatementScript(cards, traffic.now)]
        : await Promise.all(
            WALK_FILTER_SETS.map((filterSet, index) =>
              paginationStatementScript(filterSet, index, {
                organizations: organizationIds,
                now: traffic.now,
                ledgerStart: traffic.now - (options.transactions > 0 ? BULK_LEDGER_DAYS : SANDBOX_LEDGER_DAYS) * DAY_MS,
                limit: 100,
              }),
            ),
          );
    try {
      const result = await runPgbench(pgbench, database.url, scripts, {
        clients: options.connections,
        threads: PGBENCH_THREADS,
        durationS: options.durationS,
        dir,
      });
      progress(`  ${run}: ${result.tps.toFixed(0)} statements/s, average ${result.latencyAverageMs.toFixed(2)} ms`);
      rates.push({
        run,
        method: 'pgbench',
        rps: round1(result.tps),
        p99Ms: null,
        httpRps: httpRps === null ? null : round1(httpRps),
      });
    } catch (error) {
      rates.push({ run, method: 'pgbench', rps: null, p99Ms: null, httpRps, note: firstLine(error) });
    }
  }
  await removeDir();
  return rates;
}

/**
 * The service's runs against two services at once: one as the main runs had it, one started
 * without the mechanism (on PostgreSQL on the same database; on the embedded database on a copy of
 * its files, which one process holds at a time). Each run is measured in ABLATION_SLICES slices
 * per side, the sides taking turns and the first side changing every slice, so that a slow
 * moment of the machine, or what the runs before left in the database, falls on both sides alike.
 */
async function measureWithout(
  bench: Bench,
  database: BenchDatabase,
  mechanism: Mechanism,
  main: { organizations: readonly Onboarded[]; spread: boolean; traffic: Traffic; now: number },
): Promise<AblationResult> {
  const { options } = bench;
  const sliceS = Math.max(1, Math.round(options.durationS / ABLATION_SLICES));
  const base = {
    mechanism: mechanism.name,
    what: mechanism.what,
    off: describeOff(mechanism),
    slices: ABLATION_SLICES,
    sliceS,
  };
  if (!mechanism.databases.includes(database.kind)) {
    return {
      ...base,
      measured: false,
      note: `there is no such mechanism on ${database.kind === 'postgres' ? 'PostgreSQL' : 'the embedded database'}`,
      runs: [],
    };
  }
  const unread = await variablesNotRead(`${PROJECT_ROOT}.build/server`, Object.keys(mechanism.off.env));
  if (unread.length > 0) {
    return {
      ...base,
      measured: false,
      note: `the service reads no ${unread.join(', ')} yet: started with it, it would run unchanged`,
      runs: [],
    };
  }
  const variant: { env?: Readonly<Record<string, string>> } = { env: mechanism.off.env };
  progress(`With and without ${mechanism.name} (${base.off}), ${ABLATION_SLICES} slices of ${sliceS} s a side:`);
  const variantDatabase = await copyEmbeddedDatabase(database);
  const dropCopy =
    variantDatabase === database ? async (): Promise<void> => {} : defer(() => variantDatabase.dispose());
  const open = async (
    on: BenchDatabase,
    settings: typeof variant,
  ): Promise<{ stop: () => Promise<void>; runs: ServiceRuns }> => {
    const started = await startBenchService(bench, on, settings);
    const traffic = await openTraffic(started.service.baseUrl, main.organizations, {
      signEachRequest: options.signEachRequest,
      now: main.now,
      previous: main.traffic,
    });
    const session = traffic.sessions[0];
    if (session === undefined) throw new Error('no session');
    return {
      stop: started.stop,
      runs: {
        target: started.target,
        session,
        traffic: main.spread ? traffic : undefined,
        measurements: new Map(),
        now: main.now,
      },
    };
  };
  const withIt = await open(database, {});
  const without = await open(variantDatabase, variant);
  const slice: Bench = { ...bench, options: { ...options, durationS: sliceS }, warmupS: ABLATION_SLICE_WARMUP_S };
  const results: AblationRun[] = [];
  const notes: string[] = [];
  for (const name of options.runs) {
    if (!SERVICE_RUNS.includes(name)) continue;
    const parts: { with: Measurement[]; without: Measurement[] } = { with: [], without: [] };
    for (let i = 0; i < ABLATION_SLICES; i += 1) {
      const order = i % 2 === 0 ? (['with', 'without'] as const) : (['without', 'with'] as const);
      for (const side of order) {
        progress(`Run ${name} ${side} ${mechanism.name}, slice ${i + 1}...`);
        parts[side].push(await measureServiceRun(slice, name, (side === 'with' ? withIt : without).runs, notes));
      }
    }
    const withM = combineMeasurements(parts.with);
    const withoutM = combineMeasurements(parts.without);
    withIt.runs.measurements.set(name, withM);
    without.runs.measurements.set(name, withoutM);
    progress(
      `  ${name}: ${withM.rps.toFixed(0)} req/s with, ${withoutM.rps.toFixed(0)} without (${(withoutM.rps / withM.rps).toFixed(3)})`,
    );
    results.push(ablationRun(name, withM, withoutM));
    for (const operation of [...withoutM.operations].sort((x, y) => mixedOrder(x.name) - mixedOrder(y.name))) {
      const withOperation = withM.operations.find((candidate) => candidate.name === operation.name);
      if (withOperation !== undefined) results.push(ablationRun(`${name}/${operation.name}`, withOperation, operation));
    }
  }
  await withIt.stop();
  await without.stop();
  await dropCopy();
  // Only what changes the comparison: a mixed run whose executes ran out of pending transfers.
  const shortfalls = notes.filter((note) => note.includes('ran out'));
  return { ...base, measured: true, ...(shortfalls.length > 0 ? { note: shortfalls.join('; ') } : {}), runs: results };
}

/** The filtered walk at one ledger size: a fresh database, onboarded, its own service. */
async function sweepPoint(bench: Bench, serverUrl: string | undefined, rows: number): Promise<SweepDetail> {
  const database: BenchDatabase = await createBenchDatabase(serverUrl, `pps_bench_${stamp()}_r${rows}`);
  const dropDatabase = defer(() => database.dispose());
  progress(`Sweep ${rows} rows: seeding (${database.kind})...`);
  const seeded = Date.now();
  const credentials = await onboardBench(database, { transactions: rows, balanceCents: BENCH_BALANCE_CENTS, progress });
  const seedSeconds = (Date.now() - seeded) / 1000;
  const started = await startBenchService(bench, database);
  const traffic = await openTraffic(started.service.baseUrl, [credentials], {
    signEachRequest: bench.options.signEachRequest,
    now: Date.now(),
  });
  // Each page once: the sweep measures how a walk's pages scale with the ledger.
  const m = await measure(bench, `listTransactionsPages@${rows}`, started.target, () => {
    const plan = freshPaginationPlan(traffic);
    return { request: paginationSampleRequest(traffic), connection: () => paginationConnection(traffic, plan) };
  });
  await started.stop();
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
    progress(
      `warning: the machine is busy (load average ${loadAverage[0]} on ${machine.cpus} cores): the numbers will be noisy`,
    );
  }

  progress('Building the service (npm run build)...');
  buildService();
  const main = await runMain(bench, serverUrl);
  const expressFirst = main.measurements.get('baseline-express');
  const expressRuns = [expressFirst, main.expressAgain].filter((m): m is Measurement => m !== undefined);
  const express = expressRuns.reduce<Measurement | undefined>(
    (best, m) => (best === undefined || m.rps > best.rps ? m : best),
    undefined,
  );
  if (express !== undefined) main.measurements.set('baseline-express', express);
  const expressRps = express?.rps;
  const runs: RunResult[] = [];
  const runDetails: RunDetail[] = [];
  const operations: OperationResult[] = [];
  for (const name of RUN_NAMES) {
    const m = main.measurements.get(name);
    if (m === undefined) continue;
    runs.push(runResult(name, m, expressRps));
    runDetails.push(runDetail(name, m));
    for (const operation of [...m.operations].sort((a, b) => mixedOrder(a.name) - mixedOrder(b.name))) {
      operations.push({
        run: name,
        operation: operation.name,
        requests: operation.requests,
        rps: round1(operation.rps),
        p50Ms: round3(operation.p50Ms),
        p99Ms: round3(operation.p99Ms),
        non2xx: operation.non2xx,
      });
    }
  }

  const sweep: SweepDetail[] = [];
  for (const rows of options.rows) sweep.push(await sweepPoint(bench, serverUrl, rows));

  const report: BenchReport = {
    machine,
    database: main.database,
    runs,
    operations,
    statements: main.statements,
    sweep: sweep.map(({ rows, p99Ms }) => ({ rows, p99Ms })),
    targets: evaluateTargets(runs, sweep, main.database, options.connections, operations),
    ablation: main.ablation,
    notes: main.notes,
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
        : 'one signature per (path, second) reused for creates and replays; executes signed before the run',
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
    progress(
      `\nThe benchmark FAILED: ${bench.failures.length} run(s) responded with more than ${MAX_NON_2XX_SHARE * 100}% errors or nothing at all (see above).`,
    );
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
    return reportUsageError(error.message, USAGE);
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
