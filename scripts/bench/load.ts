/**
 * One measured run: autocannon against one server process for a fixed time (or a fixed number
 * of one-use requests), with the server's CPU time and peak RSS read from /proc around it.
 *
 * Latency percentiles come from autocannon's per-response times kept here at full precision:
 * autocannon's own histogram keeps whole milliseconds, too coarse for sub-millisecond baselines.
 * Like autocannon, they cover 2xx responses only.
 */
import autocannon from 'autocannon';
import { cpus } from 'node:os';
import {
  MICROSECONDS_PER_TICK,
  ProcessGroupCpu,
  cpuTicks,
  machineTicks,
  sampleRss,
} from './proc-stats.js';

export interface LoadTarget {
  readonly pid: number;
  readonly baseUrl: string;
  /** PostgreSQL backends of the service's database, when it has any. */
  readonly databasePids?: () => readonly number[];
  /**
   * A path that answers once the work queued before it is done (the service's /readyz queues
   * behind the database work of earlier requests): waited for between warm-up and measurement,
   * so that requests the warm-up left in flight are not measured.
   */
  readonly settlePath?: string;
}

export interface LoadSpec {
  readonly request: autocannon.Request;
  /** Stop after this many requests even before the time is up (a pool of one-use ids). */
  readonly amount?: number;
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
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? 0;
}

/** A growable list of latencies (ms): typed storage keeps 200k samples a run cheap to collect. */
class Samples {
  private values = new Float64Array(1 << 16);
  private length = 0;

  push(value: number): void {
    if (this.length === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.length++] = value;
  }

  sorted(): Float64Array {
    return this.values.slice(0, this.length).sort();
  }
}

export async function runLoad(target: LoadTarget, spec: LoadSpec, options: LoadOptions): Promise<Measurement> {
  const latencies = new Samples();
  const statusCodes: Record<string, number> = {};
  let completed = 0;
  let non2xx = 0;

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
        requests: [spec.request],
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
      completed += 1;
      const key = String(statusCode);
      statusCodes[key] = (statusCodes[key] ?? 0) + 1;
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
      else non2xx += 1;
    });
  });

  const peakRssMb = rss.stop();
  const serverTicks = (cpuTicks(target.pid) ?? serverStart) - serverStart;
  const databaseTicks = databaseCpu?.elapsedTicks();
  const client = process.cpuUsage(clientStart);
  const machineEnd = machineTicks();

  const perRequest = (microseconds: number): number => (completed === 0 ? 0 : microseconds / completed);
  const clientUs = client.user + client.system;
  const machineBusyUs = (machineEnd.busy - machineStart.busy) * MICROSECONDS_PER_TICK;
  const otherUs = machineBusyUs - serverTicks * MICROSECONDS_PER_TICK - (databaseTicks ?? 0) * MICROSECONDS_PER_TICK - clientUs;
  const durationS = result.duration;
  if (result.errors > 0) statusCodes['errors'] = result.errors;
  const sorted = latencies.sorted();
  return {
    requests: completed,
    durationS,
    rps: durationS > 0 ? completed / durationS : 0,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    statusCodes,
    non2xx,
    socketErrors: result.errors,
    cpuUsPerRequest: perRequest(serverTicks * MICROSECONDS_PER_TICK),
    dbCpuUsPerRequest: databaseTicks === undefined ? null : perRequest(databaseTicks * MICROSECONDS_PER_TICK),
    clientCpuUsPerRequest: perRequest(clientUs),
    otherCpuPct: durationS > 0 ? Math.max(0, (100 * otherUs) / (durationS * 1_000_000 * cpus().length)) : 0,
    peakRssMb,
  };
}
