/**
 * Redocly's CLI as the toolkit's commands run it: the project's own copy (node_modules, the
 * pinned version: never a global one or an npx download), with the current Node binary, so it
 * also works where `.bin` shims do not.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

/** The CLI is missing or broken: the message says what to do. */
export class RedoclyError extends Error {
  override readonly name = 'RedoclyError';
}

export interface CommandResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the CLI with `args` in `cwd` (default: the working directory). */
export async function runRedocly(
  args: readonly string[],
  options: { readonly cwd?: string; readonly env?: Readonly<Record<string, string>> } = {},
): Promise<CommandResult> {
  const require = createRequire(import.meta.url);
  let manifestPath: string;
  try {
    manifestPath = require.resolve('@redocly/cli/package.json');
  } catch {
    throw new RedoclyError('@redocly/cli is not installed: run `npm ci` first.');
  }
  const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as { bin?: Record<string, string> | string };
  const bin = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin?.['redocly'];
  if (bin === undefined) throw new RedoclyError(`${manifestPath} declares no \`redocly\` bin.`);
  const cli = path.join(path.dirname(manifestPath), bin);

  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      cwd: options.cwd ?? process.cwd(),
      // Redocly must not phone home: no usage telemetry, no update check.
      env: { ...process.env, ...options.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', reject);
    child.on('close', (code, signal) =>
      resolve({
        code: code ?? (signal === null ? 1 : 128),
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
      }),
    );
  });
}

/**
 * The CLI's output without its boxed Node 20 deprecation banner (harmless: the CLI works on
 * Node 20) and blank lines, so what remains is worth reading.
 */
export function meaningfulLines(output: string): string[] {
  return output.split(/\r?\n/).filter((line) => line.trim() !== '' && !/[║╔╚]/.test(line));
}
