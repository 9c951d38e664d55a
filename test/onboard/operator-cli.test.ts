import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// `npm run onboard` then `npm run operator` as a person runs them, on an embedded database in a
// temporary directory (each command opens it in turn).

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSX = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));

let cwd: string;
async function command(script: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env['DATABASE_URL'];
  try {
    const { stdout, stderr } = await run(TSX, [path.join(ROOT, 'scripts', script), ...args], { cwd, env, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

beforeAll(async () => {
  cwd = await mkdtemp(path.join(tmpdir(), 'operator-cli-'));
});
afterAll(async () => {
  await rm(cwd, { recursive: true, force: true });
});

describe('npm run operator', () => {
  it('adds, lists and disables the operators of an organization', async () => {
    const onboarded = await command('onboard.ts', ['--name', 'Aswan Trading', '--operator', 'first.approver', '--json']);
    expect(onboarded.code).toBe(0);
    const { organizationId } = JSON.parse(onboarded.stdout) as { organizationId: string };

    const added = await command('operator.ts', ['add', '--organization', organizationId, '--username', 'Salma.Viewer', '--json']);
    expect(added.code).toBe(0);
    expect(JSON.parse(added.stdout)).toEqual({ id: expect.stringMatching(/^opr_/), username: 'Salma.Viewer', role: 'viewer', disabledAt: null, password: expect.stringMatching(/^[A-Za-z0-9_-]{24}$/) });

    const taken = await command('operator.ts', ['add', '--organization', organizationId, '--username', 'salma.viewer', '--role', 'approver']);
    expect(taken).toMatchObject({ code: 1, stdout: '' });
    expect(taken.stderr).toContain('The username salma.viewer is taken');

    const disabled = await command('operator.ts', ['disable', '--username', 'SALMA.VIEWER']);
    expect(disabled).toMatchObject({ code: 0, stdout: 'Operator Salma.Viewer is disabled; their sessions have ended.\n' });

    const listed = await command('operator.ts', ['list', '--organization', organizationId, '--json']);
    expect(JSON.parse(listed.stdout)).toEqual([
      { id: expect.stringMatching(/^opr_/), username: 'first.approver', role: 'approver', disabledAt: null },
      { id: expect.stringMatching(/^opr_/), username: 'Salma.Viewer', role: 'viewer', disabledAt: expect.any(Number) },
    ]);
    // Five commands in turn, each starting the embedded database: seconds each on a busy machine.
  }, 180_000);

  it.each([
    ['no command', []],
    ['an unknown command', ['promote']],
    ['add without --username', ['add', '--organization', 'org_x']],
    ['an unknown role', ['add', '--organization', 'org_x', '--username', 'abc', '--role', 'admin']],
    ['disable with --organization', ['disable', '--username', 'abc', '--organization', 'org_x']],
  ])('explains its usage and exits with 2 for %s', async (_name, args) => {
    const { code, stdout, stderr } = await command('operator.ts', args);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain('Usage:\n  npm run operator -- add');
  });

  it('names an option it does not know in one line, then its usage', async () => {
    const { code, stdout, stderr } = await command('operator.ts', ['list', '--organization', 'org_x', '--colour', 'blue']);
    expect({ code, stdout }).toEqual({ code: 2, stdout: '' });
    expect(stderr.split('\n').slice(0, 3)).toEqual(["Unknown option '--colour'", '', 'Usage:']);
  });
});
