/**
 * `npm run diff:api`: compares each API of the project (`apis:` in redocly.yaml, read by
 * config.ts) with its latest release, the highest `<version>.json` in its released folder; prints
 * every change classified (api-diff/), and fails when a breaking change is
 * neither covered by a new major version nor allowed, with its reason, in the API's allow-list.
 * An API with nothing released yet has nothing to compare with: one line says so, and it passes.
 * `--api NAME` checks one API; `--base FILE` or `--base-ref REF` compare with another document;
 * `--json` prints the report as JSON.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BundleError } from './codegen/bundle.js';
import { AllowListError, readAllowList } from './api-diff/gate.js';
import { listReleases } from './api-diff/releases.js';
import { buildReport, formatReport, linePrefix, reportJson, type Report } from './api-diff/report.js';
import {
  SourceError,
  loadDocumentFile,
  loadReleasedDocument,
  openProjectAtRef,
  type LoadedDocument,
  type ProjectAtRef,
} from './api-diff/sources.js';
import { parseFlags, reportUsageError, runAsMain, type Command } from './cli.js';
import {
  CONFIG_FILE,
  ConfigError,
  findProjectRoot,
  projectPath,
  readProjectConfig,
  type ApiConfig,
  type ProjectConfig,
} from './config.js';

/** The project the commands work on (config.ts, findProjectRoot). */
export const PROJECT_ROOT = findProjectRoot();

export const USAGE = `Usage: contract-first diff [--api NAME] [--base FILE | --base-ref REF] [--input FILE] [--allow FILE] [--json]

Compares each API of the project (apis: in ${CONFIG_FILE}) with its latest release, the highest
<version>.json in its released folder, prints every change classified as breaking,
non-breaking, deprecated, annotation or unclassified, and fails when a breaking change is
neither in a new major version (info.version's first number raised) nor listed, with its
reason, in the API's allow-list. An API with nothing released yet has nothing to compare with:
it passes, and a line says how to release it.

  --api NAME       check this API only (its key under apis:)
  --base-ref REF   compare each API's document with itself as it is at git commit, branch or
                   tag REF, instead of with its latest release (an API whose document is not
                   there yet passes)
  --base FILE      compare with this document instead (YAML or JSON, one file or several)
  --input FILE     the document to check, instead of the API's own
  --allow FILE     the allow-list, instead of the API's own
  --json           print the report as JSON: one comparison's report, or, when several APIs
                   are checked, { "passed", "apis": [one report per API] }
  --help           show this text

--base, --input and --allow each name a file of one API: when the project has several APIs,
say which with --api. With --base, --input and --allow all given, the two files are compared
and no API is needed.

Each API's files come from ${CONFIG_FILE} (apis.<name>): root, the document; x-released, its
releases (default released/ beside the document); x-breaking-changes-allowed, its allow-list
(default breaking-changes-allowed.yaml beside the document).

Exit status: 0 when no breaking change blocks, 1 when one does or a document cannot be read,
2 on a wrong argument.`;

export interface Io {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Where paths given on the command line are read from. */
  readonly cwd: string;
  /** The project: its redocly.yaml and git repository. */
  readonly root: string;
}

export const PROCESS_IO: Io = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  // npm runs scripts at the root; INIT_CWD is where the command was typed.
  cwd: process.env['INIT_CWD'] ?? process.cwd(),
  root: PROJECT_ROOT,
};

/** The API of the configuration named `name`, or a message naming the ones there are. */
export function apiNamed(config: ProjectConfig, name: string): ApiConfig | string {
  const api = config.apis.find((candidate) => candidate.name === name);
  return (
    api ??
    `--api ${name}: ${CONFIG_FILE} names no such API; its apis: are ${config.apis.map((candidate) => candidate.name).join(', ')}`
  );
}

/** The latest release of an API, as the base of a comparison; undefined when it has none. */
export async function loadLatestRelease(
  api: Pick<ApiConfig, 'released'>,
  root: string,
): Promise<LoadedDocument | undefined> {
  const latest = (await listReleases(api.released)).at(-1);
  if (latest === undefined) return undefined;
  const file = path.join(api.released, latest.file);
  return loadReleasedDocument(file, projectPath({ root }, file));
}

/** What checking one API (or two files) came to. */
type Outcome =
  | { readonly kind: 'report'; readonly report: Report; readonly milliseconds: number }
  | { readonly kind: 'skipped'; readonly api: string | undefined; readonly reason: string }
  | { readonly kind: 'failed'; readonly api: string | undefined; readonly message: string };

interface Sources {
  /** The document to check. */
  readonly input: () => Promise<LoadedDocument>;
  /** The base, or why there is none (then there is nothing to compare). */
  readonly base: () => Promise<LoadedDocument | string>;
  readonly allowFile: string;
}

async function compare(api: string | undefined, sources: Sources, root: string): Promise<Outcome> {
  const started = performance.now();
  try {
    const base = await sources.base();
    if (typeof base === 'string') return { kind: 'skipped', api, reason: base };
    const allowShown = projectPath({ root }, sources.allowFile);
    const [current, allowances] = await Promise.all([sources.input(), readAllowList(sources.allowFile, allowShown)]);
    const report = buildReport(base, current, allowances, allowShown, api);
    return { kind: 'report', report, milliseconds: performance.now() - started };
  } catch (error) {
    if (error instanceof SourceError || error instanceof BundleError || error instanceof AllowListError)
      return { kind: 'failed', api, message: error.message };
    throw error;
  }
}

function passed(outcome: Outcome): boolean {
  return outcome.kind === 'skipped' || (outcome.kind === 'report' && outcome.report.gate.passed);
}

function outcomeJson(outcome: Outcome): unknown {
  if (outcome.kind === 'report') return reportJson(outcome.report, outcome.milliseconds);
  const api = outcome.api === undefined ? {} : { api: outcome.api };
  if (outcome.kind === 'skipped') return { ...api, passed: true, skipped: outcome.reason };
  return { ...api, passed: false, error: outcome.message };
}

/**
 * The APIs to check: the one --api names; else every API, unless a flag names a file of one API
 * (--base, --input, --allow) and there are several to choose from. An exit status on a wrong argument.
 */
function selectApis(
  config: ProjectConfig,
  flags: {
    readonly api?: string | undefined;
    readonly base?: string | undefined;
    readonly input?: string | undefined;
    readonly allow?: string | undefined;
  },
  io: Io,
): readonly ApiConfig[] | number {
  if (flags.api !== undefined) {
    const api = apiNamed(config, flags.api);
    if (typeof api !== 'string') return [api];
    return reportUsageError(`${api}.`, USAGE, io);
  }
  const oneApiFlag = (['base', 'input', 'allow'] as const).find((flag) => flags[flag] !== undefined);
  if (oneApiFlag === undefined || config.apis.length === 1) return config.apis;
  const names = config.apis.map((api) => api.name).join(', ');
  return reportUsageError(
    `--${oneApiFlag} names a file of one API, and ${CONFIG_FILE} names ${config.apis.length}: say which with --api NAME (${names}).`,
    USAGE,
    io,
  );
}

export async function runDiffApi(argv: readonly string[], io: Io): Promise<number> {
  const values = parseFlags(
    argv,
    {
      api: { type: 'string' },
      base: { type: 'string' },
      'base-ref': { type: 'string' },
      input: { type: 'string' },
      allow: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean' },
    },
    USAGE,
    io,
  );
  if (typeof values === 'number') return values;
  if (values.base !== undefined && values['base-ref'] !== undefined) {
    return reportUsageError('--base and --base-ref name two bases: give one.', USAGE, io);
  }
  const fromCommandLine = (file: string): string => path.resolve(io.cwd, file);
  const fileOf =
    (file: string): (() => Promise<LoadedDocument>) =>
    () =>
      loadDocumentFile(fromCommandLine(file), projectPath({ root: io.root }, fromCommandLine(file)));

  // Two files and an allow-list: nothing to take from the configuration.
  if (
    values.api === undefined &&
    values.base !== undefined &&
    values.input !== undefined &&
    values.allow !== undefined
  ) {
    const outcome = await compare(
      undefined,
      { input: fileOf(values.input), base: fileOf(values.base), allowFile: fromCommandLine(values.allow) },
      io.root,
    );
    if (values.json === true) printJson([outcome], false, io);
    else printText(outcome, io);
    return passed(outcome) ? 0 : 1;
  }

  let config: ProjectConfig;
  try {
    config = readProjectConfig(io.root);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.stderr(`diff:api: ${error.message}\n`);
    return 1;
  }
  const apis = selectApis(config, values, io);
  if (typeof apis === 'number') return apis;

  const baseRef = values['base-ref'];
  let atRef: ProjectAtRef | undefined;
  try {
    if (baseRef !== undefined) atRef = await openProjectAtRef(config.root, baseRef);
  } catch (error) {
    if (!(error instanceof SourceError)) throw error;
    io.stderr(`diff:api: ${error.message}\n`);
    return 1;
  }
  try {
    const outcomes: Outcome[] = [];
    for (const api of apis) {
      const document = projectPath(config, api.root);
      const base = async (): Promise<LoadedDocument | string> => {
        if (values.base !== undefined) return fileOf(values.base)();
        if (atRef !== undefined) {
          if (path.isAbsolute(document))
            throw new SourceError(
              `${document} lies outside the project at ${config.root}: --base-ref cannot read it from git; give --base FILE`,
            );
          return (await atRef.load(document)) ?? `${document} is not in ${atRef.ref}: nothing to compare`;
        }
        const latest = await loadLatestRelease(api, config.root);
        return (
          latest ??
          `nothing released yet (no <version>.json in ${projectPath(config, api.released)}/): nothing to compare; \`npm run release:api -- --api ${api.name}\` releases it`
        );
      };
      const input = values.input === undefined ? () => loadDocumentFile(api.root, document) : fileOf(values.input);
      const allowFile = values.allow === undefined ? api.allowList : fromCommandLine(values.allow);
      const outcome = await compare(api.name, { input, base, allowFile }, config.root);
      outcomes.push(outcome);
      // Printed as each API is done: a long run shows its progress.
      if (values.json !== true) printText(outcome, io);
    }
    if (values.json === true) printJson(outcomes, apis.length > 1, io);
    return outcomes.every(passed) ? 0 : 1;
  } finally {
    await atRef?.close();
  }
}

/** Prints an outcome as text: the report, or the one line that says why there is none. */
function printText(outcome: Outcome, io: Io): void {
  if (outcome.kind === 'report') {
    const { stdout, stderr } = formatReport(outcome.report, outcome.milliseconds);
    io.stdout(stdout);
    if (stderr !== '') io.stderr(stderr);
  } else if (outcome.kind === 'skipped') {
    io.stdout(`${linePrefix(outcome.api)} ${outcome.reason}\n`);
  } else {
    io.stderr(`${linePrefix(outcome.api)} ${outcome.message}\n`);
  }
}

/**
 * Prints the outcomes as JSON: one comparison's report, or `{ passed, apis }` when several APIs
 * were checked. A document that cannot be read is said on stderr, as without --json.
 */
function printJson(outcomes: readonly Outcome[], several: boolean, io: Io): void {
  for (const outcome of outcomes)
    if (outcome.kind === 'failed') io.stderr(`${linePrefix(outcome.api)} ${outcome.message}\n`);
  const only = outcomes[0];
  if (several)
    io.stdout(`${JSON.stringify({ passed: outcomes.every(passed), apis: outcomes.map(outcomeJson) }, null, 2)}\n`);
  else if (only !== undefined && only.kind !== 'failed') io.stdout(`${JSON.stringify(outcomeJson(only), null, 2)}\n`);
}

// 'drain': a long report piped to another program is written in full first.
export const COMMAND: Command = { run: (argv) => runDiffApi(argv, PROCESS_IO), options: { end: 'drain' } };
runAsMain(import.meta.url, COMMAND.run, COMMAND.options);
