/** The runtime benchmark's result: its JSON shape and the table the package's README shows. */

export interface ThroughputResult {
  readonly server: string;
  readonly route: 'list' | 'create';
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** requestsPerSecond / Fastify's of the same route and run; null when Fastify was not run. */
  readonly ratioToFastify: number | null;
  /** The server's CPU time (user and system) per request served; null where /proc cannot tell. */
  readonly cpuMicrosecondsPerRequest: number | null;
  /** Fastify's CPU time per request / this server's: its rate were each server alone on its processor. */
  readonly cpuRatioToFastify: number | null;
}

interface RequestTimes {
  readonly p50Ms: number;
  readonly maxMs: number;
  /** The route of the slowest request. */
  readonly slowest: string;
  /** Routes whose request took 50 ms or more. */
  readonly over50Ms: number;
}

export interface StartResult {
  /** `production`: responses not checked; `development`: every response checked against the document. */
  readonly mode: 'production' | 'development';
  readonly operations: number;
  /** From the process's start to its "listening" line. */
  readonly listeningMs: number;
  /** The first request of every route, one after another, at once after "listening". */
  readonly firstRequest: RequestTimes;
  /** The same requests again. */
  readonly secondRequest: RequestTimes;
}

export interface BenchResult {
  readonly machine: { readonly cpus: number; readonly model: string; readonly node: string };
  /** Servers on one processor, the load on another (taskset). */
  readonly pinned: boolean;
  readonly connections: number;
  readonly durationSeconds: number;
  readonly rounds: number;
  readonly throughput: readonly ThroughputResult[];
  readonly start: readonly StartResult[];
}

const BEGIN = '<!-- runtime benchmark: written by npm run bench -w contract-first -- --readme -->';
const END = '<!-- end of runtime benchmark -->';

const ratio = (value: number | null): string => (value === null ? '' : `${value.toFixed(2)} ×`);

/** The result as Markdown tables. */
export function renderTable(result: BenchResult): string {
  const lines: string[] = [];
  const servers = [...new Set(result.throughput.map((row) => row.server))];
  if (servers.length > 0) {
    lines.push(
      `${result.connections} connections, ${result.durationSeconds} s a route in each of ${result.rounds} rounds (medians), Node.js ${result.machine.node}, ${result.machine.cpus} × ${result.machine.model}${result.pinned ? ', servers and load each on its own processor' : ''}:`,
      '',
      '| server, same routes | list: req/s | × Fastify | p50 / p99 ms | µs of CPU (× Fastify) | create: req/s | × Fastify | p50 / p99 ms | µs of CPU (× Fastify) |',
      '|---|---|---|---|---|---|---|---|---|',
    );
    for (const server of servers) {
      const cells = (['list', 'create'] as const).map((route) => {
        const row = result.throughput.find((r) => r.server === server && r.route === route);
        return row === undefined
          ? ' | | | '
          : `${row.requestsPerSecond.toLocaleString('en')} | ${ratio(row.ratioToFastify)} | ${row.p50Ms} / ${row.p99Ms} | ${row.cpuMicrosecondsPerRequest ?? ''}${row.cpuRatioToFastify === null ? '' : ` (${ratio(row.cpuRatioToFastify)})`}`;
      });
      lines.push(`| ${server} | ${cells.join(' | ')} |`);
    }
  }
  if (result.start.length > 0) {
    if (lines.length > 0) lines.push('');
    lines.push(
      '| start of a project of many operations | operations | to "listening" | first request of each route: p50 / max | second: p50 / max | routes ≥ 50 ms |',
      '|---|---|---|---|---|---|',
    );
    for (const start of result.start) {
      lines.push(
        `| ${start.mode === 'production' ? 'production (responses not checked)' : 'development (responses checked)'} | ${start.operations} | ${start.listeningMs} ms | ${start.firstRequest.p50Ms} / ${start.firstRequest.maxMs} ms | ${start.secondRequest.p50Ms} / ${start.secondRequest.maxMs} ms | ${start.firstRequest.over50Ms} |`,
      );
    }
  }
  return lines.join('\n');
}

/** `readme` with the text between the benchmark's markers replaced by `table`. */
export function replaceTable(readme: string, table: string): string {
  const begin = readme.indexOf(BEGIN);
  const end = readme.indexOf(END);
  if (begin < 0 || end < begin) throw new Error(`README.md has no "${BEGIN}" … "${END}" section`);
  return `${readme.slice(0, begin + BEGIN.length)}\n${table}\n${readme.slice(end)}`;
}
