import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScript, type ScriptRun } from '../helpers/script.js';

// `npm run migrate` as an operator runs it, in an empty directory: DATABASE_URL unset, so the
// embedded database under ./.data/.

const MIGRATIONS = fileURLToPath(new URL('../../server/database/migrations', import.meta.url));

let cwd: string;
beforeAll(async () => {
  cwd = await mkdtemp(path.join(tmpdir(), 'migrate-cli-'));
});
afterAll(async () => {
  await rm(cwd, { recursive: true, force: true });
});

const migrate = (args: string[]): Promise<ScriptRun> => runScript('operations/migrate.ts', args, { cwd });

describe('npm run migrate', () => {
  it('rejects a flag it does not know with its usage and exit code 2, opening no database', async () => {
    const rejected = await migrate(['--dry-run']);
    expect(rejected).toMatchObject({ code: 2, stdout: '' });
    expect(rejected.stderr).toContain("Unknown option '--dry-run'");
    expect(rejected.stderr).toContain('Usage: npm run migrate');
    expect(existsSync(path.join(cwd, '.data'))).toBe(false);
  });

  it('prints its usage for --help, opening no database', async () => {
    const help = await migrate(['--help']);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(/^Usage: npm run migrate\n/);
    expect(existsSync(path.join(cwd, '.data'))).toBe(false);
  });

  it('applies every migration to a new embedded database and names each', async () => {
    const names = (await readdir(MIGRATIONS))
      .filter((file) => file.endsWith('.ts'))
      .map((file) => file.replace(/\.ts$/, ''))
      .sort();
    const applied = await migrate([]);
    expect(applied).toMatchObject({ code: 0, stderr: '' });
    expect(applied.stdout).toBe(`Applied to the embedded database:\n${names.map((name) => `  ${name}\n`).join('')}`);
    expect(existsSync(path.join(cwd, '.data'))).toBe(true);
  }, 120_000);
});
