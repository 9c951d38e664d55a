/**
 * `npm run new-api` (`contract-first new`) on this repository's own documents: the partner API
 * (several files joined by $refs) and the dashboard's. Each becomes a project in a folder of its
 * own outside this repository, holding every file its document references, that generates the same
 * files from its copy as this repository does, installs the packed package with `npm ci`, passes
 * its own `npm test`, and starts with `npm start`. `NEW_API_DOCUMENTS=partner` makes the one it names.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { generate } from 'contract-first';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/project-root.js';

const run = promisify(execFile);
const folders: string[] = [];
afterAll(async () => {
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

/** The environment of a project's commands: none of this repository's npm or vitest settings leak in. */
function projectEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^(npm_|VITEST|NODE_OPTIONS$|INIT_CWD$|TSX_)/i.test(key)),
  );
  return { ...env, NO_COLOR: '1', FORCE_COLOR: '0', DATABASE_URL: '' };
}

async function npm(args: readonly string[], cwd: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run('npm', [...args], {
      cwd,
      env: projectEnv(),
      timeout: 240_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, output: `${stdout}${stderr}` };
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: string; stderr?: string };
    return {
      code: typeof failed.code === 'number' ? failed.code : 1,
      output: `${failed.stdout ?? ''}${failed.stderr ?? ''}`,
    };
  }
}

/** `npm start` in `root` on a free port: resolves with the port once it logs `listening`, then stops it. */
async function startAndStop(root: string): Promise<number> {
  const child = spawn('npm', ['start', '--silent'], {
    cwd: root,
    env: { ...projectEnv(), PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const lines: string[] = [];
  createInterface({ input: child.stderr }).on('line', (line) => lines.push(line));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    return await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`npm start did not listen:\n${lines.join('\n')}`)), 60_000);
      createInterface({ input: child.stdout }).on('line', (line) => {
        lines.push(line);
        const entry = (() => {
          try {
            return JSON.parse(line) as { msg?: unknown; port?: unknown };
          } catch {
            return {};
          }
        })();
        if (entry.msg === 'listening' && typeof entry.port === 'number') {
          clearTimeout(timer);
          resolve(entry.port);
        }
      });
      void exited.then((code) => reject(new Error(`npm start exited (${code}):\n${lines.join('\n')}`)));
    });
  } finally {
    process.kill(-(child.pid as number), 'SIGTERM');
    await exited;
  }
}

const DOCUMENTS = [
  ['partner', 'openapi/openapi.yaml'],
  ['dashboard', 'openapi/dashboard/dashboard.yaml'],
] as const;
const asked =
  process.env['NEW_API_DOCUMENTS']
    ?.split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '') ?? [];
const chosen = DOCUMENTS.filter(([name]) => asked.length === 0 || asked.includes(name));

describe('npm run new-api on our own documents', () => {
  it.each(chosen)(
    '%s: copies every file the document references, generates what this repository does, installs, tests and starts',
    async (name, document) => {
      const parent = await mkdtemp(path.join(os.tmpdir(), `new-api-${name}-`));
      folders.push(parent);
      const root = path.join(parent, name);
      const made = await npm(
        ['run', '-s', 'new-api', '--', '--input', path.join(PROJECT_ROOT, document), '--out', root],
        PROJECT_ROOT,
      );
      expect(made.code, made.output).toBe(0);
      expect(made.output).toContain(`new: wrote ${root}/`);

      const config = await readFile(path.join(root, 'redocly.yaml'), 'utf8');
      const copied = /^\s+root: (.+)$/m.exec(config)?.[1]?.trim() ?? '';
      const original = await generate(document, 'generated', PROJECT_ROOT);
      const copy = await generate(copied, 'generated', root);
      expect(copy.model.operations.map((operation) => operation.key)).toEqual(
        original.model.operations.map((operation) => operation.key),
      );
      for (const file of copy.files)
        expect(await readFile(path.join(root, file.path), 'utf8'), file.path).toBe(file.content);

      const installed = await npm(['ci', '--prefer-offline', '--no-audit', '--no-fund'], root);
      expect(installed.code, installed.output).toBe(0);
      const tested = await npm(['test'], root);
      expect(tested.code, tested.output).toBe(0);
      expect(await startAndStop(root)).toBeGreaterThan(0);
    },
    400_000,
  );
});
