/**
 * How fast `npm run check` checks a server, and whether its memory stays flat: `npm run serve` of
 * Redocly's Museum document (toolkit/test/fixtures/third-party/redocly-museum.yaml) in
 * a child process, and the checker in this one, sending at least --requests requests (default
 * 100,000). It prints the checked requests a second, and the checker's heap after a garbage
 * collection every 10 % of the run: flat means the last is within a few MB of the first.
 *
 * Usage: node --expose-gc --import tsx scripts/bench/check.ts [--requests N] [--seed N]
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { runCheck } from 'contract-first/check';
import { runAsMain } from 'contract-first/cli';
import { PROJECT_ROOT } from './processes.js';

const MUSEUM = path.join(PROJECT_ROOT, 'toolkit/test/fixtures/third-party/redocly-museum.yaml');
/** Requests the checker sends per valid case of the Museum document's 8 operations (valid, invalid, without credentials, sequences), measured. */
const REQUESTS_PER_CASE = 16;

/** Starts `npm run serve` on a free port; resolves with its URL once it prints it. */
function startServe(): Promise<{ url: string; stop: () => void }> {
  const child = spawn(
    process.execPath,
    [
      path.join(PROJECT_ROOT, 'node_modules/contract-first/bin/contract-first.js'),
      'serve',
      '--input',
      MUSEUM,
      '--port',
      '0',
    ],
    {
      cwd: PROJECT_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      const url = /serving .* at (http:\/\/\S+)/.exec(output)?.[1];
      if (url !== undefined) resolve({ url, stop: () => child.kill('SIGTERM') });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`serve exited (${code}) before it served:\n${output}`)));
  });
}

const megabytes = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;

async function main(argv: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...argv],
    options: { requests: { type: 'string' }, seed: { type: 'string' } },
  });
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) {
    console.error(
      'run with node --expose-gc --import tsx scripts/bench/check.ts, so that heap samples follow a garbage collection',
    );
    return 2;
  }
  const wanted = Number(values.requests ?? 100_000);
  const serve = await startServe();
  try {
    const heap: number[] = [];
    gc();
    heap.push(process.memoryUsage().heapUsed);
    const sampler = setInterval(() => {
      gc();
      heap.push(process.memoryUsage().heapUsed);
    }, 1_000);
    const report = await runCheck({
      input: MUSEUM,
      baseUrl: serve.url,
      cases: Math.ceil(wanted / REQUESTS_PER_CASE),
      seed: Number(values.seed ?? 1),
      headers: [['Authorization', `Basic ${Buffer.from('user:password').toString('base64')}`]],
    });
    clearInterval(sampler);
    gc();
    heap.push(process.memoryUsage().heapUsed);
    const seconds = report.durationMs / 1000;
    const tenth = (i: number): number => heap[Math.min(heap.length - 1, Math.round(((heap.length - 1) * i) / 10))] ?? 0;
    console.log(
      `check of npm run serve (Museum document): ${report.requests} requests in ${seconds.toFixed(1)} s, ${Math.round(report.requests / seconds)} requests/s; p50 ${report.timings.p50Ms} ms, p99 ${report.timings.p99Ms} ms`,
    );
    console.log(`findings: ${report.findings.length} (the document's and serve's own; npm run check prints them)`);
    console.log(
      `checker heap after GC, every 10 %: ${Array.from({ length: 11 }, (_, i) => megabytes(tenth(i))).join(', ')}`,
    );
    return 0;
  } finally {
    serve.stop();
  }
}

runAsMain(import.meta.url, main);
