import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runScript, type ScriptRun } from '../helpers/script.js';

// `npm run onboard` as an operator runs it, on an in-memory embedded database.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Each run starts its own embedded database (~7–12 s, more on a busy machine); a test runs at most two. */
const ONBOARD_RUN_TIMEOUT_MS = 60_000;

/** Runs the command in `cwd` (the project by default) on DATABASE_URL (in memory by default; '': embedded under cwd's .data/). */
function onboard(args: string[], { cwd = ROOT, databaseUrl = 'memory://' } = {}): Promise<ScriptRun> {
  return runScript('operations/onboard.ts', args, { cwd, databaseUrl, timeoutMs: ONBOARD_RUN_TIMEOUT_MS });
}

describe('npm run onboard', { timeout: 2 * ONBOARD_RUN_TIMEOUT_MS }, () => {
  it('prints exactly the JSON document with --json, sandbox data included', async () => {
    const { code, stdout } = await onboard([
      '--name',
      'Cairo Logistics',
      '--demo',
      '--transactions',
      '500',
      '--operator',
      'amira.hassan',
      '--json',
    ]);
    expect(code).toBe(0);
    const parsed = JSON.parse(stdout) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual([
      'organizationId',
      'clientId',
      'clientSecret',
      'privateKeyPem',
      'scopes',
      'operator',
    ]);
    expect(parsed['operator']).toEqual({
      username: 'amira.hassan',
      password: expect.stringMatching(/^[A-Za-z0-9_-]{24}$/),
      role: 'approver',
    });
    expect(parsed['organizationId']).toMatch(/^org_/);
    expect(parsed['clientId']).toMatch(/^cli_/);
    expect(parsed['privateKeyPem']).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(parsed['scopes']).toEqual(['cards:read', 'cards:write', 'transfers:read', 'transfers:write']);
  });

  it.concurrent.each([
    ['no --name', ['--demo']],
    ['a balance that is not whole cents', ['--name', 'X', '--balance', '12.5']],
    ['a negative number of transactions', ['--name', 'X', '--transactions', '-3']],
    ['an unknown option', ['--name', 'X', '--colour', 'blue']],
  ])('explains its usage and exits with 2 for %s', async (_name, args) => {
    const { code, stdout, stderr } = await onboard(args);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain('Usage: npm run onboard');
  });

  it("prints the first operator's login once, and rejects a username that cannot be one", async () => {
    const { code, stdout } = await onboard(['--name', 'Giza Foods']);
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /dashboard: +\/dashboard, operator admin-[a-z0-9]{8} \(approver\)\n +password: +[A-Za-z0-9_-]{24}\n/,
    );
    // Rejected before a database is opened: none is made in an empty directory.
    const empty = await mkdtemp(path.join(tmpdir(), 'onboard-refused-'));
    try {
      const rejected = await onboard(['--name', 'Giza Foods', '--operator', 'two words'], {
        cwd: empty,
        databaseUrl: '',
      });
      expect(rejected).toMatchObject({ code: 1, stdout: '' });
      expect(rejected.stderr).toContain('A username is 3 to 100 letters');
      expect(existsSync(path.join(empty, '.data'))).toBe(false);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
