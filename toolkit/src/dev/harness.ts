/**
 * `npm run dev` as a child process, for its test (test/dev/) and its timing
 * (scripts/bench/dev-loop.ts): start it on a project copy, wait for what it prints, save files
 * the way editors do, stop it.
 */
import { spawn } from 'node:child_process';
import { rename, writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// This module's own extension: .ts run from source (the package's tests), .js built.
const DEV_SCRIPT = fileURLToPath(new URL(`../dev${path.extname(fileURLToPath(import.meta.url))}`, import.meta.url));
const TSX_LOADER = import.meta.resolve('tsx');

export interface DevProcess {
  readonly pid: number;
  /** Where it listens. */
  readonly baseUrl: string;
  /** Every line it printed so far (its own, Redocly's, tsc's, the server's). */
  readonly lines: readonly string[];
  /**
   * The first line from index `after` on that matches; rejects after `timeoutMs`, or when the
   * process exits first, with the last lines it printed.
   */
  waitFor(pattern: RegExp, options: { after: number; timeoutMs: number }): Promise<{ index: number; line: string }>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it has exited. */
  stop(graceMs?: number): Promise<void>;
}

/** Starts `contract-first dev --root ROOT --port 0 [args]` and resolves once it listens. */
export async function startDevProcess(root: string, args: readonly string[] = []): Promise<DevProcess> {
  const child = spawn(process.execPath, ['--import', TSX_LOADER, DEV_SCRIPT, '--root', root, '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  if (child.pid === undefined) throw new Error('npm run dev did not start');
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  let exited = false;
  const exit = new Promise<void>((resolve) => {
    child.once('exit', () => {
      exited = true;
      for (const wake of waiters) wake();
      resolve();
    });
  });
  const add = (line: string): void => {
    lines.push(line);
    for (const wake of waiters) wake();
  };
  createInterface({ input: child.stdout, crlfDelay: Infinity }).on('line', add);
  createInterface({ input: child.stderr, crlfDelay: Infinity }).on('line', add);

  const waitFor: DevProcess['waitFor'] = (pattern, { after, timeoutMs }) =>
    new Promise((resolve, reject) => {
      const tail = (): string => lines.slice(-40).join('\n');
      const check = (): void => {
        for (let index = after; index < lines.length; index += 1) {
          const line = lines[index] ?? '';
          if (pattern.test(line)) {
            done();
            resolve({ index, line });
            return;
          }
        }
        if (exited) {
          done();
          reject(new Error(`npm run dev exited before printing ${pattern}; its last lines:\n${tail()}`));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`npm run dev printed no ${pattern} in ${timeoutMs} ms; its last lines:\n${tail()}`));
      }, timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });

  const stop = async (graceMs = 15_000): Promise<void> => {
    if (exited) return;
    child.kill('SIGTERM');
    const force = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exit;
    clearTimeout(force);
  };

  try {
    const { line } = await waitFor(/^dev: http:\/\/localhost:\d+ /, { after: 0, timeoutMs: 60_000 });
    const port = /localhost:(\d+)/.exec(line)?.[1];
    return { pid: child.pid, baseUrl: `http://127.0.0.1:${port}`, lines, waitFor, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Saves as editors do: the new text under another name, renamed over the file. */
export async function saveFile(file: string, text: string): Promise<void> {
  const temporary = `${file}.${process.pid}.saving`;
  await writeFile(temporary, text);
  await rename(temporary, file);
}
