import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');

export interface ScriptRun {
  /** The exit code; -1 when the script was killed (its time ran out). */
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs one of the project's scripts (a path under scripts/) as `npm run` runs it, with tsx, in
 * `cwd`. `databaseUrl` is its DATABASE_URL; undefined leaves it unset, so the script opens the
 * embedded database under cwd's .data/. Never throws for a failing script.
 */
export async function runScript(
  script: string,
  args: readonly string[],
  options: { cwd: string; databaseUrl?: string; timeoutMs?: number },
): Promise<ScriptRun> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (options.databaseUrl === undefined) delete env['DATABASE_URL'];
  else env['DATABASE_URL'] = options.databaseUrl;
  try {
    const { stdout, stderr } = await run(TSX, [path.join(ROOT, 'scripts', script), ...args], {
      cwd: options.cwd,
      env,
      timeout: options.timeoutMs ?? 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: string; stderr?: string };
    return {
      code: typeof failed.code === 'number' ? failed.code : -1,
      stdout: failed.stdout ?? '',
      stderr: failed.stderr ?? '',
    };
  }
}
