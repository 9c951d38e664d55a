/**
 * One measured run: autocannon against one server process for a fixed time (or a fixed number
 * of one-use requests), with the server's CPU time and peak RSS read from /proc around it.
 *
 * Latency percentiles come from autocannon's per-response times kept here at full precision
 * (latencies.ts), overall and, when the run says which operation each connection has in flight,
 * per operation. Like autocannon's, they cover 2xx responses only.
 */
import autocannon from 'autocannon';
import { cpus } from 'node:os';
import { OperationTally } from './latencies.js';
import { MICROSECONDS_PER_TICK, ProcessGroupCpu, cpuTicks, machineTicks, sampleRss } from './proc-stats.js';

export interface LoadTarget {
  readonly pid: number;
  readonly baseUrl: string;
  /** PostgreSQL backends of the service's database, when it has any. */
  readonly databasePids?: () => readonly number[];
  /**
   * A path that responds once the work queued before it is done (the service's /readyz queues
   * behind the database work of earlier requests): waited for between warm-up and measurement,
   * so that requests the warm-up left in flight are not measured.
   */
  readonly settlePath?: string;
}

export interface LoadSpec {
  /** Every connection's request; with `connection`, only the request a failing run's sample sends. */
  readonly request: autocannon.Request;
  /** Stop after this many requests even before the time is up (a pool of one-use ids). */
  readonly amount?: number;
  /**
   * Each connection's own request, made as autocannon opens the connection: for what a connection
   * carries from one response to its next request (a walk's cursor). autocannon clears a request's
   * `context` before each request when a run has one request, so the state lives here instead.
   */
  readonly connection?: (index: number) => ConnectionRequest;
}

export interface ConnectionRequest {
  readonly request: autocannon.Request;
  /**
   * The operation of the request this connection has in flight (set by its setupRequest), for
   * latencies per operation: a connection sends its next request only after the response to the last.
   */
  readonly operation?: () => string;
}

/** One operation of a run that names them (the mixed run). */
export interface OperationMeasurement {
  readonly name: string;
  readonly requests: number;
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  /** The 2xx latencies (ms), sorted. */
  readonly latencies: Float64Array;
}

export interface LoadOptions {
  readonly durationS: number;
  readonly connections: number;
}

export interface Measurement {
  readonly requests: number;
  readonly durationS: number;
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Responses by status code (and `errors`: sockets that failed or timed out). */
  readonly statusCodes: Readonly<Record<string, number>>;
  readonly non2xx: number;
  readonly socketErrors: number;
  readonly cpuUsPerRequest: number;
  /** CPU of the PostgreSQL backends serving the database, per request; null on PGlite. */
  readonly dbCpuUsPerRequest: number | null;
  /** CPU of this process (autocannon, and signing when it signs during the run), per request. */
  readonly clientCpuUsPerRequest: number;
  /** CPU the rest of the machine used meanwhile, in % of all its cores: noise from other work. */
  readonly otherCpuPct: number;
  readonly peakRssMb: number;
  /** Per operation, in the order they first responded; empty unless the run names its operations. */
  readonly operations: readonly OperationMeasurement[];
  /** The 2xx latencies (ms), sorted: what the percentiles were taken from, for combining runs (combine.ts). */
  readonly latencies: Float64Array;
}

export async function runLoad(target: LoadTarget, spec: LoadSpec, options: LoadOptions): Promise<Measurement> {
  const all = new OperationTally();
  const byOperation = new Map<string, OperationTally>();
  const statusCodes: Record<string, number> = {};
  let connections = 0;

  const serverStart = cpuTicks(target.pid);
  if (serverStart === undefined) throw new Error(`process ${target.pid} is not running`);
  const databaseCpu = target.databasePids === undefined ? undefined : new ProcessGroupCpu(target.databasePids);
  const clientStart = process.cpuUsage();
  const machineStart = machineTicks();
  const rss = sampleRss(target.pid);

  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: target.baseUrl,
        connections: options.connections,
        duration: options.durationS,
        ...(spec.amount === undefined ? {} : { amount: Math.max(options.connections, spec.amount) }),
        // With `connection`, each connection's own request replaces this one before it connects.
        requests: [spec.connection === undefined ? spec.request : { method: 'GET', path: '/' }],
        ...(spec.connection === undefined
          ? {}
          : { setupClient: (client: autocannon.Client) => setUpConnection(client, spec.connection, connections++) }),
        // A request that takes this long is a failure worth seeing, not a latency sample.
        timeout: 30,
      },
      (error: unknown, res: autocannon.Result) => {
        clearTimeout(timer);
        if (error !== null && error !== undefined) reject(error instanceof Error ? error : new Error(String(error)));
        else resolve(res);
      },
    );
    // With `amount`, autocannon ignores `duration`: stop it at the time limit ourselves.
    const timer = setTimeout(() => instance.stop(), options.durationS * 1000);
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      all.record(statusCode, responseTime);
      const key = String(statusCode);
      statusCodes[key] = (statusCodes[key] ?? 0) + 1;
    });
  });

  function setUpConnection(client: autocannon.Client, connection: LoadSpec['connection'], index: number): void {
    if (connection === undefined) return;
    const own = connection(index);
    client.setRequests([own.request]);
    const { operation } = own;
    if (operation === undefined) return;
    client.on('response', (statusCode, _bytes, responseTime) => {
      const name = operation();
      let tally = byOperation.get(name);
      if (tally === undefined) byOperation.set(name, (tally = new OperationTally()));
      tally.record(statusCode, responseTime);
    });
  }

  const peakRssMb = rss.stop();
  const serverTicks = (cpuTicks(target.pid) ?? serverStart) - serverStart;
  const databaseTicks = databaseCpu?.elapsedTicks();
  const client = process.cpuUsage(clientStart);
  const machineEnd = machineTicks();

  const completed = all.requests;
  const perRequest = (microseconds: number): number => (completed === 0 ? 0 : microseconds / completed);
  const clientUs = client.user + client.system;
  const machineBusyUs = (machineEnd.busy - machineStart.busy) * MICROSECONDS_PER_TICK;
  const otherUs =
    machineBusyUs - serverTicks * MICROSECONDS_PER_TICK - (databaseTicks ?? 0) * MICROSECONDS_PER_TICK - clientUs;
  const durationS = result.duration;
  if (result.errors > 0) statusCodes['errors'] = result.errors;
  const { rps, p50Ms, p99Ms, non2xx, latencies } = all.summary(durationS);
  return {
    requests: completed,
    durationS,
    rps,
    p50Ms,
    p99Ms,
    statusCodes,
    non2xx,
    socketErrors: result.errors,
    cpuUsPerRequest: perRequest(serverTicks * MICROSECONDS_PER_TICK),
    dbCpuUsPerRequest: databaseTicks === undefined ? null : perRequest(databaseTicks * MICROSECONDS_PER_TICK),
    clientCpuUsPerRequest: perRequest(clientUs),
    otherCpuPct: durationS > 0 ? Math.max(0, (100 * otherUs) / (durationS * 1_000_000 * cpus().length)) : 0,
    peakRssMb,
    operations: [...byOperation].map(([name, tally]) => ({ name, ...tally.summary(durationS) })),
    latencies,
  };
}
