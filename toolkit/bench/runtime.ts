/**
 * The runtime's benchmark: what a request costs through a project's server (routing, security,
 * request validation, the handler's response sent) against the field's servers of the same routes,
 * in one run, and how soon a server of many operations responds to each of its routes.
 *
 * Throughput: the items document (bench/documents.ts) served by a project's server and by
 * node:http, Fastify and Express written by hand (bench/servers/), one process each, loaded by
 * autocannon at 10 connections with a list (pages of 20 items, several queries) and a create (several
 * bodies); every response must be the success the route declares. Each server's rate, p50 and p99,
 * and its rate as a ratio to Fastify's of the same run.
 *
 * Start: a document of 500 operations generated and started as a project's server; the time from
 * the process's start to "listening", then the first request of every route, one after another,
 * and a second round of the same requests.
 *
 * Usage: npm run bench -w contract-first -- [options] (USAGE below).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { writeGenerated } from '../src/dev/steps.js';
import { generate } from '../src/generate.js';
import { parseFlags, runAsMain, UsageError, wholeNumberFlag } from '../src/cli.js';
import { itemsDocument, manyOperationsDocument } from './documents.js';
import { TOKEN } from './servers/items.js';
import { renderTable, replaceTable, type BenchResult, type StartResult, type ThroughputResult } from './report.js';

const USAGE = `Usage: npm run bench -w contract-first -- [--duration S] [--rounds N] [--connections N] [--resources N] [--only NAME] [--json FILE] [--readme]
  --duration S     seconds of load for each server and route in each round (default 5), after 1 s of warm-up
  --rounds N       rounds; each server's figures are the medians of its rounds (default 5)
  --connections N  connections (default 10)
  --resources N    resources of the start document, 4 operations each (default 125)
  --only NAME      throughput or start
  --json FILE      write the result as JSON to FILE
  --readme         write the result to bench/result.json and its tables into the package's README.md`;

const HERE = path.dirname(fileURLToPath(import.meta.url));
const README = path.join(HERE, '..', 'README.md');
/** The run the README's tables show (`--readme` writes both). */
const RESULT = path.join(HERE, 'result.json');

/** The server every ratio is to. */
const FASTIFY = 'Fastify 5 with schemas';

/** The servers measured, by name, with their module in bench/servers/. */
export const SERVERS = [
  { name: 'node:http by hand', module: 'node-http.ts' },
  { name: FASTIFY, module: 'fastify.ts' },
  { name: 'Express 5 as the toolkit serves it, by hand', module: 'express-floor.ts' },
  { name: 'contract-first project', module: 'toolkit.ts' },
  { name: 'Express 5 by hand', module: 'express-by-hand.ts' },
] as const;

const AUTH = { authorization: `Bearer ${TOKEN}` };
const JSON_BODY = { ...AUTH, 'content-type': 'application/json' };

/** The requests of each route, taken in turn by every connection. */
export const ROUTES = {
  list: {
    status: 200,
    requests: [
      { method: 'GET', path: '/items?limit=20', headers: AUTH },
      { method: 'GET', path: '/items?limit=20&status=active', headers: AUTH },
      { method: 'GET', path: '/items?status=archived&limit=20&cursor=c2', headers: AUTH },
    ],
  },
  create: {
    status: 201,
    requests: [
      { method: 'POST', path: '/items', headers: JSON_BODY, body: JSON.stringify({ name: 'Lamp', priceCents: 4200 }) },
      {
        method: 'POST',
        path: '/items',
        headers: JSON_BODY,
        body: JSON.stringify({ name: 'Desk', priceCents: 129_900, status: 'archived', tags: ['oak', 'large'] }),
      },
      {
        method: 'POST',
        path: '/items',
        headers: JSON_BODY,
        body: JSON.stringify({ name: 'Chair with a longer name', priceCents: 0, tags: [] }),
      },
    ],
  },
} as const;

/**
 * On a machine of two or more processors with taskset (util-linux), the servers run on processor 1
 * and this process, which sends the load, on processor 0: neither takes the other's turn, so that
 * each server's figures say what it costs rather than where the scheduler put it.
 */
const PINNED =
  cpus().length >= 2 && spawnSync('taskset', ['--cpu-list', '--pid', '0', String(process.pid)]).status === 0;

interface Started {
  readonly url: string;
  readonly child: ChildProcess;
  /** Milliseconds from spawn to the "listening" line. */
  readonly listeningMs: number;
}

/** Starts a bench server module and resolves once it announces its port. */
async function startServer(module: string, env: Record<string, string>): Promise<Started> {
  const began = performance.now();
  const command = [process.execPath, '--import', 'tsx', path.join(HERE, 'servers', module)];
  const pinned = PINNED ? ['taskset', '--cpu-list', '1', ...command] : command;
  const child = spawn(pinned[0]!, pinned.slice(1), {
    env: { ...process.env, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${module} exited with ${code} before listening`)));
    lines.on('line', (line) => {
      try {
        const message = JSON.parse(line) as { msg?: string; port?: number };
        if (message.msg === 'listening' && typeof message.port === 'number') resolve(message.port);
      } catch {
        // Not the announcement.
      }
    });
  });
  return { url: `http://127.0.0.1:${port}`, child, listeningMs: performance.now() - began };
}

/** The CPU time a server has used, user and system, from /proc (Linux); undefined elsewhere. */
async function cpuSeconds(child: ChildProcess): Promise<number | undefined> {
  try {
    const stat = await readFile(`/proc/${child.pid}/stat`, 'utf8');
    // The fields after the command's name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/** Clock ticks a second, the unit of /proc's CPU times. */
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

async function stopServer(started: Started): Promise<void> {
  const exited = new Promise((resolve) => started.child.once('exit', resolve));
  started.child.kill('SIGKILL');
  await exited;
}

/** Sends each of a route's requests once: a server that does not respond with its success is not measured. */
async function checkResponds(url: string, route: keyof typeof ROUTES): Promise<void> {
  for (const request of ROUTES[route].requests) {
    const response = await fetch(`${url}${request.path}`, {
      method: request.method,
      headers: request.headers,
      ...('body' in request ? { body: request.body } : {}),
    });
    const text = await response.text();
    if (response.status !== ROUTES[route].status)
      throw new Error(`${request.method} ${request.path} got ${response.status}, not ${ROUTES[route].status}: ${text}`);
    JSON.parse(text);
  }
}

async function load(url: string, route: keyof typeof ROUTES, seconds: number, connections: number) {
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    requests: ROUTES[route].requests.map((request) => ({ ...request })),
  });
  if (result.errors > 0 || result.non2xx > 0)
    throw new Error(`${route}: ${result.errors} errors and ${result.non2xx} responses other than 2xx under load`);
  return result;
}

/** The median of `values` (the lower of the two middle ones for an even count). */
const median = (values: readonly number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)] ?? 0;

/**
 * Every server started at once, then rounds: in each, every route loaded on every server in turn
 * (the order turning each round), so that what the machine does meanwhile falls on all of them;
 * each server's figures are the medians of its rounds.
 */
async function throughput(seconds: number, connections: number, rounds: number): Promise<ThroughputResult[]> {
  const work = await mkdtemp(path.join(tmpdir(), 'runtime-bench-'));
  const started: Started[] = [];
  try {
    const generated = await generateInto(work, itemsDocument());
    for (const server of SERVERS)
      started.push(await startServer(server.module, { BENCH_GENERATED: generated, NODE_ENV: 'production' }));
    const routes = Object.keys(ROUTES) as (keyof typeof ROUTES)[];
    for (const server of started) for (const route of routes) await checkResponds(server.url, route);
    const samples = new Map<string, { rps: number; p50: number; p99: number; cpuUs: number | undefined }[]>();
    for (let round = 0; round < rounds; round += 1) {
      for (const route of routes) {
        for (let k = 0; k < SERVERS.length; k += 1) {
          const n = (k + round) % SERVERS.length;
          const { url } = started[n]!;
          await load(url, route, round === 0 ? 2 : 1, connections);
          const cpuBefore = await cpuSeconds(started[n]!.child);
          const result = await load(url, route, seconds, connections);
          const cpuAfter = await cpuSeconds(started[n]!.child);
          const cpuUs =
            cpuBefore === undefined || cpuAfter === undefined || result.requests.total === 0
              ? undefined
              : ((cpuAfter - cpuBefore) * 1e6) / result.requests.total;
          const key = `${n} ${route}`;
          samples.set(key, [
            ...(samples.get(key) ?? []),
            { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, cpuUs },
          ]);
          process.stderr.write(
            `round ${round + 1}, ${SERVERS[n]!.name}, ${route}: ${Math.round(result.requests.average)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, ${cpuUs === undefined ? '?' : Math.round(cpuUs)} µs of CPU a request\n`,
          );
        }
      }
    }
    const results = SERVERS.flatMap((server, n) =>
      routes.map((route) => {
        const of = samples.get(`${n} ${route}`) ?? [];
        return {
          server: server.name,
          route,
          requestsPerSecond: Math.round(median(of.map((sample) => sample.rps))),
          p50Ms: median(of.map((sample) => sample.p50)),
          p99Ms: median(of.map((sample) => sample.p99)),
          cpuMicrosecondsPerRequest: of.every((sample) => sample.cpuUs !== undefined)
            ? Math.round(median(of.map((sample) => sample.cpuUs ?? 0)))
            : null,
        };
      }),
    );
    return results.map((result) => {
      const fastify = results.find((other) => other.server === FASTIFY && other.route === result.route);
      return {
        ...result,
        ratioToFastify:
          fastify === undefined ? null : Math.round((result.requestsPerSecond / fastify.requestsPerSecond) * 100) / 100,
        cpuRatioToFastify:
          fastify?.cpuMicrosecondsPerRequest == null || result.cpuMicrosecondsPerRequest === null
            ? null
            : Math.round((fastify.cpuMicrosecondsPerRequest / result.cpuMicrosecondsPerRequest) * 100) / 100,
      };
    });
  } finally {
    for (const server of started) await stopServer(server);
    await rm(work, { recursive: true, force: true });
  }
}

/** Generates `document` into `work`/generated as a project's generated/ folder; returns the folder. */
async function generateInto(work: string, document: Record<string, unknown>): Promise<string> {
  const input = path.join(work, 'openapi.json');
  await writeFile(input, JSON.stringify(document, null, 2));
  // A project's own package.json says its TypeScript is ES modules; the generated server imports
  // the runtime this package builds, as a project's imports contract-first/runtime.
  await writeFile(path.join(work, 'package.json'), '{ "type": "module" }\n');
  const generation = await generate(input, 'generated', work, {
    runtime: fileURLToPath(import.meta.resolve('contract-first/runtime')),
  });
  await writeGenerated(work, generation.files);
  return path.join(work, 'generated');
}

/** A valid request of each operation of the start document, by what the operation does. */
function requestsOf(document: Record<string, unknown>): { route: string; init: RequestInit; path: string }[] {
  const id = '3f7c0a52-7a5e-4b1e-9f0e-1d2c3b4a5f60';
  const paths = document['paths'] as Record<string, Record<string, unknown>>;
  return Object.entries(paths).flatMap(([template, item]) =>
    Object.keys(item)
      .filter((method) => method !== 'parameters')
      .map((method) => {
        const concrete = template.replace(/\{[^}]+\}/, id);
        return {
          route: `${method.toUpperCase()} ${template}`,
          path: method === 'get' && !template.includes('{') ? `${concrete}?limit=20&status=active` : concrete,
          init:
            method === 'post'
              ? { method: 'POST', headers: JSON_BODY, body: JSON.stringify({ name: 'Lamp', priceCents: 4200 }) }
              : { method: method.toUpperCase(), headers: AUTH },
        };
      }),
  );
}

/** The start of a project's server of `resources` × 4 operations, responses checked (`development`) or not. */
async function start(resources: number, mode: 'production' | 'development'): Promise<StartResult> {
  const work = await mkdtemp(path.join(tmpdir(), 'runtime-bench-start-'));
  try {
    const document = manyOperationsDocument(resources);
    const generated = await generateInto(work, document);
    const started = await startServer('toolkit.ts', { BENCH_GENERATED: generated, NODE_ENV: mode });
    try {
      const requests = requestsOf(document);
      const round = async (): Promise<{ route: string; ms: number }[]> => {
        const times: { route: string; ms: number }[] = [];
        for (const request of requests) {
          const began = performance.now();
          const response = await fetch(`${started.url}${request.path}`, request.init);
          await response.arrayBuffer();
          const ms = performance.now() - began;
          if (response.status >= 300) throw new Error(`${request.route} got ${response.status}`);
          times.push({ route: request.route, ms });
        }
        return times;
      };
      // The client's own first request (its connection, its code compiled) is not the server's:
      // one to a path the document does not have, which reaches no operation.
      await (await fetch(`${started.url}/.well-known/bench-client`)).arrayBuffer();
      const first = await round();
      const second = await round();
      const summary = (times: { route: string; ms: number }[]) => {
        const sorted = [...times].sort((a, b) => a.ms - b.ms);
        const slowest = sorted.at(-1);
        return {
          p50Ms: round1(sorted[Math.floor(sorted.length / 2)]?.ms ?? 0),
          maxMs: round1(slowest?.ms ?? 0),
          slowest: slowest?.route ?? '',
          over50Ms: times.filter((time) => time.ms >= 50).length,
        };
      };
      return {
        mode,
        operations: requests.length,
        listeningMs: Math.round(started.listeningMs),
        firstRequest: summary(first),
        secondRequest: summary(second),
      };
    } finally {
      await stopServer(started);
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

const round1 = (value: number): number => Math.round(value * 10) / 10;

async function main(argv: readonly string[]): Promise<number> {
  const flags = parseFlags(
    argv,
    {
      duration: { type: 'string' },
      rounds: { type: 'string' },
      connections: { type: 'string' },
      resources: { type: 'string' },
      only: { type: 'string' },
      json: { type: 'string' },
      readme: { type: 'boolean' },
      help: { type: 'boolean' },
    },
    USAGE,
  );
  if (typeof flags === 'number') return flags;
  const seconds = wholeNumberFlag('--duration', flags.duration, 1, 600, 5);
  const rounds = wholeNumberFlag('--rounds', flags.rounds, 1, 100, 5);
  const connections = wholeNumberFlag('--connections', flags.connections, 1, 1000, 10);
  const resources = wholeNumberFlag('--resources', flags.resources, 1, 1000, 125);
  const only = flags.only;
  if (only !== undefined && only !== 'throughput' && only !== 'start')
    throw new UsageError(`--only must be throughput or start; got ${JSON.stringify(only)}.`);
  const result: BenchResult = {
    machine: { cpus: cpus().length, model: cpus()[0]?.model.trim() ?? 'unknown', node: process.version },
    pinned: PINNED,
    connections,
    durationSeconds: seconds,
    rounds,
    throughput: only === 'start' ? [] : await throughput(seconds, connections, rounds),
    start: only === 'throughput' ? [] : [await start(resources, 'production'), await start(resources, 'development')],
  };
  const table = renderTable(result);
  process.stdout.write(`${table}\n`);
  if (flags.json !== undefined) await writeFile(flags.json, `${JSON.stringify(result, null, 2)}\n`);
  if (flags.readme === true) {
    await writeFile(RESULT, `${JSON.stringify(result, null, 2)}\n`);
    await writeFile(README, replaceTable(await readFile(README, 'utf8'), table));
  }
  return 0;
}

runAsMain(import.meta.url, main, { usage: USAGE });
