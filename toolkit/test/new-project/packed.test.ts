/**
 * The packed package as a user meets it, in an empty folder outside this repository: installed
 * with `npm install`, its command's `--help`, and a new project made by the installed command
 * (which packs itself again for the project); then `npx` on the packed file alone.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packedToolkit, projectEnv } from './project.js';

const MUSEUM = fileURLToPath(new URL('../fixtures/third-party/redocly-museum.yaml', import.meta.url));

let folder: string;
let packed: string;
beforeAll(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), 'contract-first-empty-'));
  packed = await packedToolkit();
}, 120_000);
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

function run(command: string, args: readonly string[], cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      command,
      [...args],
      { cwd, env: projectEnv(), timeout: 240_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) =>
        resolve({
          code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1,
          output: `${stdout}${stderr}`,
        }),
    );
  });
}

describe('the packed package in an empty folder', () => {
  it('installs, prints its commands, and makes a project that installs it packed', async () => {
    await writeFile(
      path.join(folder, 'package.json'),
      '{ "name": "trying", "private": true, "allowScripts": { "esbuild": false } }\n',
    );
    const installed = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', packed], folder);
    expect(installed.code, installed.output).toBe(0);
    expect(installed.output).not.toContain('install-scripts');

    const help = await run('npx', ['contract-first', '--help'], folder);
    expect(help.code, help.output).toBe(0);
    expect(help.output).toContain('Usage: contract-first <command> [options]');
    for (const command of ['new', 'generate', 'lint', 'serve', 'dev', 'check', 'diff', 'release', 'docs'])
      expect(help.output).toMatch(new RegExp(`^  ${command} `, 'm'));

    const made = await run('npx', ['contract-first', 'new', '--input', MUSEUM, '--out', 'museum'], folder);
    expect(made.code, made.output).toBe(0);
    expect(made.output).toContain('new: wrote museum/');
    expect(await readdir(path.join(folder, 'museum', 'vendor'))).toEqual([path.basename(packed)]);
    const tested = await run('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], path.join(folder, 'museum'));
    expect(tested.code, tested.output).toBe(0);
  }, 300_000);

  it('runs from the packed file with npx', async () => {
    const help = await run(
      'npx',
      ['--yes', '--prefer-offline', '--package', packed, 'contract-first', 'generate', '--help'],
      folder,
    );
    expect(help.code, help.output).toBe(0);
    expect(help.output).toContain('Usage: contract-first generate');
  }, 300_000);
});
