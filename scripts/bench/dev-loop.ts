/**
 * How long `npm run dev` takes from a save to a server responding on what was saved, on a copy of
 * the project (scripts/project-copy.ts): for a document change (a new optional query parameter
 * of GET /v1/bank, a new name each run, so that the types change each time) and for a change to
 * the server's code alone (the bank list's Cache-Control). Each run is timed from just before the
 * file is saved to the first response that shows the change; the dev process's own split of the time
 * (lint, generate, typecheck, restart) is read from its `server ready` line. Between runs it waits
 * for the reference to be rebuilt and for the dev process to go quiet.
 *
 * Usage: npx tsx scripts/bench/dev-loop.ts [--runs N (7)] [--json]
 */
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseFlags } from 'contract-first/cli';
import { saveFile, startDevProcess, type DevProcess } from 'contract-first/testing';
import { copyProject } from '../project-copy.js';

const USAGE = `Usage: npx tsx scripts/bench/dev-loop.ts [--runs N] [--json]

  --runs N   runs of each kind of change (default 7)
  --json     print the runs as JSON
  --help     show this text`;

const BANK_PATH = 'openapi/paths/v1_bank.yaml';
const BANK_HANDLER = 'server/http/handlers/banks.ts';
const PARAMETERS = '  parameters:\n    - $ref: ../components/parameters/IfNoneMatch.yaml\n';
/** The background work after a restart: the next server standing by, the tests' type check. */
const QUIET_MS = 2_000;
const STEP_MS = 60_000;

interface Run {
  readonly kind: 'document' | 'code';
  /** From just before the save to the response that shows it. */
  readonly milliseconds: number;
  /** The dev process's own split, in ms: lint, generate, typecheck, restart. */
  readonly steps: Readonly<Record<string, number>>;
}

function steps(line: string): Record<string, number> {
  const split: Record<string, number> = {};
  for (const [, name, value] of line.matchAll(/(lint|generate|typecheck|restart) (\d+\.\d+) s/g)) {
    if (name !== undefined && value !== undefined) split[name] = Number(value) * 1000;
  }
  return split;
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

async function timed(
  dev: DevProcess,
  kind: Run['kind'],
  save: () => Promise<void>,
  shows: (response: Response) => boolean,
  url: string,
): Promise<Run> {
  const after = dev.lines.length;
  const started = performance.now();
  await save();
  const { index, line } = await dev.waitFor(
    /^dev: (server ready .* after the save|lint failed|typecheck failed|the server did not start)/,
    { after, timeoutMs: STEP_MS },
  );
  if (!line.includes('server ready'))
    throw new Error(`the ${kind} change did not pass:\n${dev.lines.slice(after, index + 1).join('\n')}`);
  const response = await fetch(`${dev.baseUrl}${url}`, { headers: { Connection: 'close' } });
  await response.arrayBuffer();
  const milliseconds = performance.now() - started;
  if (!shows(response)) throw new Error(`the server responded to ${url} with ${response.status} without the change`);
  return { kind, milliseconds, steps: steps(line) };
}

async function main(argv: readonly string[]): Promise<number> {
  const values = parseFlags(
    argv,
    { runs: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean' } },
    USAGE,
  );
  if (typeof values === 'number') return values;
  const runs = Number(values.runs ?? 7);
  if (!Number.isInteger(runs) || runs < 1) {
    console.error(`--runs must be a whole number above 0\n\n${USAGE}`);
    return 2;
  }

  const copy = await copyProject('dev-bench-');
  const dev = await startDevProcess(copy.root);
  const results: Run[] = [];
  const load = [os.loadavg()[0] ?? 0];
  try {
    const { index } = await dev.waitFor(/^dev: server ready .* after start/, { after: 0, timeoutMs: 120_000 });
    await dev.waitFor(/^dev: reference rebuilt/, { after: index, timeoutMs: STEP_MS });
    await sleep(QUIET_MS);
    const bankDocument = await readFile(path.join(copy.root, BANK_PATH), 'utf8');
    const handler = await readFile(path.join(copy.root, BANK_HANDLER), 'utf8');
    for (let run = 1; run <= runs; run += 1) {
      const name = `probe${run}`;
      const parameter = `    - name: ${name}\n      in: query\n      description: A parameter the server ignores.\n      schema:\n        type: string\n`;
      const after = dev.lines.length;
      results.push(
        await timed(
          dev,
          'document',
          () =>
            saveFile(
              path.join(copy.root, BANK_PATH),
              bankDocument.replace(PARAMETERS, () => `${PARAMETERS}${parameter}`),
            ),
          (response) => response.status === 200,
          `/v1/bank?${name}=x`,
        ),
      );
      await dev.waitFor(/^dev: reference (rebuilt|not rebuilt)/, { after, timeoutMs: STEP_MS });
      await sleep(QUIET_MS);

      const maxAge = `public, max-age=${3600 + run}`;
      results.push(
        await timed(
          dev,
          'code',
          () =>
            saveFile(
              path.join(copy.root, BANK_HANDLER),
              handler.replace("'public, max-age=3600'", () => `'${maxAge}'`),
            ),
          (response) => response.headers.get('cache-control') === maxAge,
          '/v1/bank',
        ),
      );
      await sleep(QUIET_MS);
      if (values.json !== true) {
        const shown = (result: Run | undefined): string =>
          result === undefined
            ? ''
            : `${result.kind} ${seconds(result.milliseconds)} (${Object.entries(result.steps)
                .map(([name, ms]) => `${name} ${seconds(ms)}`)
                .join(', ')})`;
        const [document, code] = results.slice(-2);
        console.log(`run ${run}: ${shown(document)}; ${shown(code)}`);
      }
    }
  } finally {
    load.push(os.loadavg()[0] ?? 0);
    await dev.stop();
    await copy.remove();
  }

  if (values.json === true) {
    console.log(JSON.stringify({ runs: results, loadAverage: load, cpus: os.cpus().length }, null, 2));
    return 0;
  }
  console.log(`\n${os.cpus().length} cores, load average ${load.map((value) => value.toFixed(2)).join(' → ')}`);
  console.log('change     save → response: median (range)     median steps (dev process)');
  for (const kind of ['document', 'code'] as const) {
    const ofKind = results.filter((run) => run.kind === kind);
    const times = ofKind.map((run) => run.milliseconds);
    const names = ['lint', 'generate', 'typecheck', 'restart'].filter((name) =>
      ofKind.some((run) => run.steps[name] !== undefined),
    );
    const split = names
      .map((name) => `${name} ${seconds(median(ofKind.map((run) => run.steps[name] ?? 0)))}`)
      .join(', ');
    console.log(
      `${kind.padEnd(10)} ${seconds(median(times))} (${seconds(Math.min(...times))}–${seconds(Math.max(...times))})`.padEnd(
        43,
      ) + split,
    );
  }
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
