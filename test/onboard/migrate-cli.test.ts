import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// `npm run migrate` as an operator runs it, in an empty directory: DATABASE_URL unset, so the
// embedded database under ./.data/.

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSX = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));
const MIGRATIONS = path.join(ROOT, 'server/store/migrations');

let cwd: string;
beforeAll(async () => {
  cwd = await mkdtemp(path.join(tmpdir(), 'migrate-cli-'));
});
afterAll(async () => {
  await rm(cwd, { recursive: true, force: true });
});

async function migrate(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env['DATABASE_URL'];
  try {
    const { stdout, stderr } = await run(TSX, [path.join(ROOT, 'scripts/migrate.ts'), ...args], { cwd, env, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

describe('npm run migrate', () => {
  it('refuses a flag it does not know with its usage and exit code 2, opening no database', async () => {
    const refused = await migrate(['--dry-run']);
    expect(refused).toMatchObject({ code: 2, stdout: '' });
    expect(refused.stderr).toContain("Unknown option '--dry-run'");
    expect(refused.stderr).toContain('Usage: npm run migrate');
    expect(existsSync(path.join(cwd, '.data'))).toBe(false);
  });

  it('prints its usage for --help, opening no database', async () => {
    const help = await migrate(['--help']);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(/^Usage: npm run migrate\n/);
    expect(existsSync(path.join(cwd, '.data'))).toBe(false);
  });

  it('applies every migration to a new embedded database and names each', async () => {
    const names = (await readdir(MIGRATIONS)).filter((file) => file.endsWith('.ts')).map((file) => file.replace(/\.ts$/, '')).sort();
    const applied = await migrate([]);
    expect(applied).toMatchObject({ code: 0, stderr: '' });
    expect(applied.stdout).toBe(`Applied to the embedded database:\n${names.map((name) => `  ${name}\n`).join('')}`);
    expect(existsSync(path.join(cwd, '.data'))).toBe(true);
  }, 120_000);
});
