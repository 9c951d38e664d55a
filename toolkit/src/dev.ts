/**
 * `npm run dev`: one process that watches the project's documents, server/ and client/ and, on
 * each save, runs what the change needs, then restarts the server (x-dev's `server`, by default
 * server/main.ts), keeping its data (its working directory's ./.data/, where an embedded database
 * such as PGlite keeps its files):
 *
 *   a document           lint ‖ bundle → generate (in memory) → typecheck; the output folders are
 *                        written once lint passes, the references rebuilt, and the server
 *                        restarted once the server's code type-checks
 *   server/ code         typecheck → restart
 *   a build's files      the build (x-dev's `builds`) → typecheck → restart
 *   client/, tests       typecheck
 *
 * Saves within DEBOUNCE_MS of each other are one change. A failing step prints its findings
 * (Redocly's and tsc's own, with file and line) and the last good server keeps responding.
 *
 * Every document of redocly.yaml's `apis:` goes through it. It listens at one port
 * (dev/front.ts): each reference at /docs (the page written to index.html) or /docs/<page>,
 * reloading in the browser when it is rebuilt, and every other request forwarded to the server of
 * the moment, a child process on a port of its own (dev/server-process.ts).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { watch } from 'chokidar';
import { pathToFileURL } from 'node:url';
import { classifyChange, CODE_DIRS, type ChangeKind, type ChangeRules } from './dev/changes.js';
import { startFront, DOCS_PATH, type Front } from './dev/front.js';
import { createServerSupervisor, serverWorkingDir } from './dev/server-process.js';
import { createDocsBuilder, generateInMemory, lint, writeGenerated } from './dev/steps.js';
import {
  ConfigError,
  CONFIG_FILE,
  projectPath,
  readProjectConfig,
  type DevBuild,
  type ProjectConfig,
} from './config.js';
import { startTypechecker, type TypecheckRun } from './dev/typecheck.js';
import { parseFlags, reportUsageError, runAsMain, type Command } from './cli.js';

const REPOSITORY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Editors and `git checkout` write several files in a burst: one build for all of them. */
export const DEBOUNCE_MS = 100;

export const USAGE = `Usage: contract-first dev [--port N] [--root DIR] [--data-dir DIR]

  Watches the documents of redocly.yaml, server/ and client/; on each save lints, bundles and
  generates (a document change), type-checks, and restarts the server, keeping its data
  (./.data/). Serves the API at http://localhost:PORT and each document's reference at
  ${DOCS_PATH} or ${DOCS_PATH}/<page>, which reload themselves.

  --port N         where it listens (default $PORT, else 3000; 0 picks a free one)
  --root DIR       the project to watch and build (default this repository)
  --data-dir DIR   the server's data folder, what ./.data/ is to npm start (default ROOT/.data)
  --help           show this text`;

/** What a build leaves for after its restart, which it would slow down. */
interface Outcome {
  documentPassed: boolean;
  run: TypecheckRun | undefined;
}

export interface DevOptions {
  readonly root: string;
  readonly config: ProjectConfig;
  readonly port: number;
  readonly dataDir: string;
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const say = (line: string): void => console.log(`dev: ${line}`);
const print = (text: string): void => {
  if (text !== '') console.log(text.trimEnd());
};

export async function runDev(options: DevOptions): Promise<{ front: Front; stop(): Promise<void> }> {
  const { root, config } = options;
  let port = options.port;
  const servers = createServerSupervisor({
    root,
    entry: config.dev.server,
    dataDir: options.dataDir,
    publicPort: () => port,
    print: (line) => console.log(line),
    say,
  });
  const docs = createDocsBuilder(
    root,
    (ms) => {
      say(`reference rebuilt in ${seconds(ms)}: ${DOCS_PATH} reloads`);
      front.reload();
    },
    (message) => say(`reference not rebuilt: ${message}`),
  );
  let front: Front;
  try {
    front = await startFront({ port, target: () => servers.target(), docs: (name) => docs.current(name) });
  } catch (error) {
    await servers.stop();
    throw error;
  }
  port = front.port;
  const typechecker = startTypechecker({ root, color: process.stdout.isTTY === true });

  const pending = new Set<ChangeKind>();
  let firstSave: number | undefined;
  let since = 'start';
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let stopping = false;
  /** A restart is owed: the server runs older code than what last passed, or none runs. */
  let serverStale = true;

  const respondingNow = (): string =>
    servers.responding() ? 'the last good server responds as before' : 'no server responds yet';
  const printRest = (run: TypecheckRun): void => {
    void run.rest().then((rest) => {
      print(rest.report);
      if (rest.errors > 0)
        say(`typecheck: ${rest.errors} error(s) in client/ or the tests (above); the server does not run them`);
    });
  };

  async function cycle(kinds: ReadonlySet<ChangeKind>, savedAt: number, since: string): Promise<void> {
    const outcome: Outcome = { documentPassed: false, run: undefined };
    try {
      await build(kinds, savedAt, since, outcome);
    } finally {
      if (outcome.run !== undefined) printRest(outcome.run);
      if (outcome.documentPassed) docs.request();
    }
  }

  async function build(
    kinds: ReadonlySet<ChangeKind>,
    savedAt: number,
    since: string,
    outcome: Outcome,
  ): Promise<void> {
    const times: string[] = [];
    let restartWanted = serverStale || kinds.has('server') || !servers.responding();
    for (const [index, build] of config.dev.builds.entries()) {
      if (!kinds.has(index)) continue;
      // Run with the server's working directory, where it reads what the build writes.
      const started = performance.now();
      const name = projectPath(config, build.module);
      try {
        await runBuild(build, root, serverWorkingDir(options.dataDir));
        times.push(`${name} ${seconds(performance.now() - started)}`);
        restartWanted = true;
      } catch (error) {
        print(error instanceof Error ? error.message : String(error));
        say(`${name} failed (above); ${respondingNow()}`);
      }
    }
    let run: TypecheckRun;
    if (kinds.has('document')) {
      const generation = generateInMemory(root);
      // Type-checked while Redocly lints: the new generated files are checked from memory.
      const ahead = generation.then(
        (g) =>
          g.ok
            ? typechecker.check(g.files.map((file) => [path.join(root, file.path), file.content] as const))
            : undefined,
        () => undefined,
      );
      const [linted, generated] = await Promise.all([lint(root), generation]);
      times.push(`lint ${seconds(linted.milliseconds)}`, `generate ${seconds(generated.milliseconds)}`);
      print(linted.report);
      if (!generated.ok) print(`cannot generate: ${generated.message}`);
      if (!linted.ok || !generated.ok) {
        say(`${linted.ok ? 'generation' : 'lint'} failed (above): nothing generated; ${respondingNow()}`);
        if (!kinds.has('server') && !kinds.has('code')) return;
        run = typechecker.check();
      } else {
        for (const warning of generated.warnings) say(`generate: warning: ${warning}`);
        const written = await writeGenerated(root, generated.files);
        if (written.length > 0) restartWanted = true;
        outcome.documentPassed = true;
        run = (await ahead) ?? typechecker.check();
      }
    } else {
      run = typechecker.check();
    }
    outcome.run = run;
    const server = await run.server;
    times.push(`typecheck ${seconds(server.milliseconds)}`);
    print(server.report);
    if (server.errors > 0) {
      if (restartWanted) serverStale = true;
      say(
        `typecheck failed: ${server.errors} error(s) in the server's code (above); not restarted, ${respondingNow()}`,
      );
      return;
    }
    if (!restartWanted) {
      say(`checked in ${seconds(performance.now() - savedAt)} (${times.join(', ')}); nothing the server runs changed`);
      return;
    }
    if (pending.size > 0 || stopping) {
      serverStale = true;
      say('newer saves came in: the restart waits for them');
      return;
    }
    const restarted = await servers.restart();
    times.push(`restart ${seconds(restarted.milliseconds)}`);
    if (!restarted.ok) {
      serverStale = true;
      say(`the server did not start: ${restarted.message}`);
      return;
    }
    serverStale = false;
    say(`server ready ${seconds(performance.now() - savedAt)} after ${since} (${times.join(', ')})`);
  }

  async function next(): Promise<void> {
    if (running || stopping || pending.size === 0) return;
    running = true;
    const kinds = new Set(pending);
    const savedAt = firstSave ?? performance.now();
    pending.clear();
    firstSave = undefined;
    try {
      await cycle(kinds, savedAt, since);
      since = 'the save';
    } catch (error) {
      say(`the build failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    } finally {
      running = false;
      if (pending.size > 0) schedule();
    }
  }
  function schedule(): void {
    clearTimeout(timer);
    timer = setTimeout(() => void next(), DEBOUNCE_MS);
  }

  const rules: ChangeRules = {
    documentDirs: [...new Set(config.apis.map((api) => `${projectPath(config, path.dirname(api.root))}/`))],
    builds: config.dev.builds,
  };
  const watched = [CONFIG_FILE, ...rules.documentDirs, ...CODE_DIRS, ...rules.builds.map((build) => build.watch)];
  const watcher = watch(
    [...new Set(watched)].map((entry) => path.join(root, entry)),
    {
      ignoreInitial: true,
      // Directories are walked; of the files, only those a change rule names count.
      ignored: (file, stats) =>
        stats?.isFile() === true && classifyChange(path.relative(root, file), rules) === undefined,
    },
  );
  watcher.on('all', (event, file) => {
    if (event === 'addDir' || event === 'unlinkDir') return;
    const kind = classifyChange(path.relative(root, file), rules);
    if (kind === undefined) return;
    pending.add(kind);
    firstSave ??= performance.now();
    schedule();
  });
  watcher.on('error', (error) => say(`watching failed: ${error instanceof Error ? error.message : String(error)}`));
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));

  const relative = path.relative(process.cwd(), root);
  const shown = relative === '' ? '.' : relative.startsWith('..') ? root : relative;
  const pages = config.apis.map((api) =>
    path.basename(api.docs, '.html') === 'index' ? DOCS_PATH : `${DOCS_PATH}/${path.basename(api.docs, '.html')}`,
  );
  say(
    `http://localhost:${front.port} (the API); references at ${pages.map((page) => `http://localhost:${front.port}${page}`).join(', ')}`,
  );
  say(
    `watching ${[...new Set(watched)].map((entry) => (entry.includes('.') || entry.endsWith('/') ? entry : `${entry}/`)).join(', ')} of ${shown}; the server's ./.data/ is ${options.dataDir}`,
  );
  if (process.env['DATABASE_URL'] !== undefined && process.env['DATABASE_URL'] !== '')
    say('DATABASE_URL is not passed on: the dev server keeps its data in its ./.data/');
  // The first build: everything, as if all had just been saved.
  pending.add('document').add('server');
  for (const index of config.dev.builds.keys()) pending.add(index);
  firstSave = performance.now();
  void next();

  return {
    front,
    async stop() {
      stopping = true;
      clearTimeout(timer);
      await watcher.close();
      await Promise.all([servers.stop(), front.close(), typechecker.close()]);
    },
  };
}

/**
 * Runs one build of x-dev: its module's `buildForDev({ root, serverDir })`, in this process (a
 * build such as esbuild's takes milliseconds; a process of its own would take a second).
 */
async function runBuild(build: DevBuild, root: string, serverDir: string): Promise<void> {
  const module = (await import(pathToFileURL(build.module).href)) as { buildForDev?: unknown };
  if (typeof module.buildForDev !== 'function')
    throw new Error(`${build.module} exports no buildForDev function, which x-dev's builds call`);
  await (module.buildForDev as (context: { root: string; serverDir: string }) => Promise<unknown>)({ root, serverDir });
}

function parsePort(raw: string | undefined): number | undefined {
  const port = Number(raw ?? process.env['PORT'] ?? 3000);
  return Number.isInteger(port) && port >= 0 && port <= 65535 ? port : undefined;
}

export async function main(argv: readonly string[]): Promise<number> {
  const values = parseFlags(
    argv,
    { port: { type: 'string' }, root: { type: 'string' }, 'data-dir': { type: 'string' }, help: { type: 'boolean' } },
    USAGE,
  );
  if (typeof values === 'number') return values;
  const port = parsePort(values.port);
  if (port === undefined) {
    return reportUsageError('--port (or PORT) must be a whole number from 0 to 65535', USAGE);
  }
  // Paths on the command line are read from where it was typed (npm runs scripts at the root).
  const here = process.env['INIT_CWD'] ?? process.cwd();
  const root = values.root === undefined ? REPOSITORY : path.resolve(here, values.root);
  let config: ProjectConfig;
  try {
    config = readProjectConfig(root);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return reportUsageError(error.message, USAGE);
  }
  const missing = [
    config.dev.server,
    ...config.apis.map((api) => api.root),
    path.join(root, 'tsconfig.json'),
    path.join(root, 'package.json'),
  ].filter((file) => !existsSync(file));
  if (missing.length > 0) {
    return reportUsageError(
      `${root} is not a project the dev loop can run: it lacks ${missing.map((file) => projectPath(config, file)).join(', ')}`,
      USAGE,
    );
  }
  const dataDir = values['data-dir'] === undefined ? path.join(root, '.data') : path.resolve(here, values['data-dir']);
  const dev = await runDev({ root, config, port, dataDir });
  let stops = 0;
  const stop = (): void => {
    stops += 1;
    if (stops > 1) process.exit(1);
    say('stopping');
    void dev.stop().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return -1;
}

export const COMMAND: Command = { run: main };
runAsMain(import.meta.url, COMMAND.run, COMMAND.options);
