import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScript, type ScriptRun } from '../helpers/script.js';

// `npm run onboard` then `npm run operator` as a person runs them, on an embedded database in a
// temporary directory (each command opens it in turn).

let cwd: string;
const command = (script: string, args: string[]): Promise<ScriptRun> => runScript(script, args, { cwd });

beforeAll(async () => {
  cwd = await mkdtemp(path.join(tmpdir(), 'operator-cli-'));
});
afterAll(async () => {
  await rm(cwd, { recursive: true, force: true });
});

describe('npm run operator', () => {
  it('adds, lists and disables the operators of an organization', async () => {
    const onboarded = await command('operations/onboard.ts', [
      '--name',
      'Aswan Trading',
      '--operator',
      'first.approver',
      '--json',
    ]);
    expect(onboarded.code).toBe(0);
    const { organizationId } = JSON.parse(onboarded.stdout) as { organizationId: string };

    const added = await command('operations/operator.ts', [
      'add',
      '--organization',
      organizationId,
      '--username',
      'Salma.Viewer',
      '--json',
    ]);
    expect(added.code).toBe(0);
    expect(JSON.parse(added.stdout)).toEqual({
      id: expect.stringMatching(/^opr_/),
      username: 'Salma.Viewer',
      role: 'viewer',
      disabledAt: null,
      password: expect.stringMatching(/^[A-Za-z0-9_-]{24}$/),
    });

    const taken = await command('operations/operator.ts', [
      'add',
      '--organization',
      organizationId,
      '--username',
      'salma.viewer',
      '--role',
      'approver',
    ]);
    expect(taken).toMatchObject({ code: 1, stdout: '' });
    expect(taken.stderr).toContain('The username salma.viewer is taken');

    const disabled = await command('operations/operator.ts', ['disable', '--username', 'SALMA.VIEWER']);
    expect(disabled).toMatchObject({
      code: 0,
      stdout: 'Operator Salma.Viewer is disabled; their sessions have ended.\n',
    });

    const listed = await command('operations/operator.ts', ['list', '--organization', organizationId, '--json']);
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
    const { code, stdout, stderr } = await command('operations/operator.ts', args);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain('Usage:\n  npm run operator -- add');
  });

  it('names an option it does not know in one line, then its usage', async () => {
    const { code, stdout, stderr } = await command('operations/operator.ts', [
      'list',
      '--organization',
      'org_x',
      '--colour',
      'blue',
    ]);
    expect({ code, stdout }).toEqual({ code: 2, stdout: '' });
    expect(stderr.split('\n').slice(0, 3)).toEqual(["Unknown option '--colour'", '', 'Usage:']);
  });
});
