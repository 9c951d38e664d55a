/**
 * How long `npm run new-api` takes on a large document, and the `npm test` of the project it
 * writes: the synthetic document of generator.ts (by default 84 paths of three operations each,
 * 252 operations, over 1,000 component schemas: some 2.5 MB), made into a project in a temporary
 * folder, installed from the npm cache (`npm ci --offline`), then tested.
 *
 * Usage: npx tsx scripts/bench/new-api.ts [--paths N (84)] [--schemas N (1000)] [--keep]
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { runAsMain } from 'contract-first/cli';
import { PROJECT_ROOT } from './processes.js';
import { largeDocument } from './generator.js';

const run = promisify(execFile);

async function timed(
  command: string,
  args: readonly string[],
  cwd: string,
): Promise<{ seconds: number; ok: boolean; output: string }> {
  const started = performance.now();
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(npm_|INIT_CWD$)/i.test(key)));
  const outcome = await run(command, [...args], { cwd, env, maxBuffer: 256 * 1024 * 1024 }).then(
    ({ stdout, stderr }) => ({ ok: true, output: `${stdout}${stderr}` }),
    (error: { stdout?: string; stderr?: string }) => ({
      ok: false,
      output: `${error.stdout ?? ''}${error.stderr ?? ''}`,
    }),
  );
  return { seconds: (performance.now() - started) / 1000, ...outcome };
}

async function main(argv: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...argv],
    options: { paths: { type: 'string' }, schemas: { type: 'string' }, keep: { type: 'boolean' } },
  });
  const work = await mkdtemp(path.join(os.tmpdir(), 'new-api-bench-'));
  try {
    const input = path.join(work, 'large.json');
    await writeFile(
      input,
      JSON.stringify(largeDocument(Number(values.paths ?? 84), Number(values.schemas ?? 1000)), null, 2),
    );
    const size = (await stat(input)).size;
    const project = path.join(work, 'large-api');
    const made = await timed(
      process.execPath,
      [
        path.join(PROJECT_ROOT, 'node_modules/contract-first/bin/contract-first.js'),
        'new',
        '--input',
        input,
        '--out',
        project,
      ],
      PROJECT_ROOT,
    );
    if (!made.ok) throw new Error(`new-api failed:\n${made.output.slice(-4000)}`);
    const installed = await timed('npm', ['ci', '--offline', '--no-audit', '--no-fund'], project);
    if (!installed.ok) throw new Error(`npm ci failed:\n${installed.output.slice(-4000)}`);
    const tested = await timed('npm', ['test'], project);
    const summary = /Tests\s+.*$/m.exec(tested.output.replace(/\u001b\[[0-9;]*m/g, ''))?.[0] ?? '';
    console.log(
      `document: ${(size / 1e6).toFixed(1)} MB, ${/(\d+) operations/.exec(made.output)?.[1] ?? '?'} operations`,
    );
    console.log(
      `new-api: ${made.seconds.toFixed(1)} s; npm ci --offline: ${installed.seconds.toFixed(1)} s; npm test: ${tested.seconds.toFixed(1)} s, ${tested.ok ? 'passed' : 'FAILED'} (${summary})`,
    );
    if (!tested.ok) console.log(tested.output.slice(-4000));
    return tested.ok ? 0 : 1;
  } finally {
    if (values.keep === true) console.log(`kept in ${work}`);
    else await rm(work, { recursive: true, force: true });
  }
}

runAsMain(import.meta.url, main);
