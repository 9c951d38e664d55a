/**
 * The server process of `npm run dev`. The dev process starts it ahead of need, while the
 * previous server still responds: it loads the project's runtime packages (its package.json's
 * dependencies), then waits. On the dev process's `start` it runs the project's server entry
 * point (x-dev's `server`, the program `npm start` runs), here through tsx, with PUBLIC_URL set to
 * the address the dev process listens at; the server listens and logs `listening`.
 *
 * It lives as long as the dev process: when the IPC channel closes (the dev process exited, even
 * killed), it shuts down as on SIGTERM.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseFlags } from '../cli.js';

export const USAGE = `Usage: node --import tsx dev/server-entry.js --root DIR --entry FILE

  Started by \`npm run dev\`, which sends it \`start\` over IPC; it then runs FILE.

  --root DIR    the project root whose server runs
  --entry FILE  the server's entry point
  --help       show this text`;

/** What the dev process sends. */
export interface ServerEntryCommand {
  readonly type: 'start';
  /** Where clients reach the server (the dev process's address), for the server to print. */
  readonly publicUrl: string;
}

/**
 * Dependencies that are commands, not libraries the server imports: the loader itself, and the
 * tool npm runs at install (importing patch-package's main module runs it).
 */
const TOOLS = new Set(['tsx', 'patch-package']);

/**
 * The runtime packages of the project's package.json. They are loaded from here, which is the
 * same module for the server when the project shares this repository's node_modules (the
 * repository itself, or a copy that links it); otherwise the server loads its own, and this only
 * cost some memory.
 */
async function preload(root: string): Promise<void> {
  const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  const names = Object.keys(manifest.dependencies ?? {}).filter((name) => !TOOLS.has(name));
  await Promise.allSettled(names.map((name) => import(name)));
}

function main(argv: readonly string[]): void {
  const values = parseFlags(
    argv,
    { root: { type: 'string' }, entry: { type: 'string' }, help: { type: 'boolean' } },
    USAGE,
  );
  if (typeof values === 'number') process.exit(values);
  if (values.root === undefined || values.entry === undefined || process.send === undefined) {
    console.error(
      `${values.root === undefined || values.entry === undefined ? '--root and --entry are required' : 'no IPC channel: `npm run dev` starts this process'}\n\n${USAGE}`,
    );
    process.exit(2);
  }
  const root = path.resolve(values.root);
  const entry = path.resolve(values.entry);
  const loaded = preload(root);
  let started = false;
  process.on('message', (command: ServerEntryCommand) => {
    if (command.type !== 'start' || started) return;
    started = true;
    process.env['PUBLIC_URL'] = command.publicUrl;
    void loaded.then(() => import(pathToFileURL(entry).href));
  });
  process.on('disconnect', () => {
    // Started: main.ts's graceful shutdown (it releases the database's lock); standing by: nothing to close.
    if (started) process.kill(process.pid, 'SIGTERM');
    else process.exit(0);
  });
}

main(process.argv.slice(2));
