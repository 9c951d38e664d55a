/**
 * `npm run docs`: builds the reference page of each API of the project (`apis:` in redocly.yaml,
 * read by config.ts) at its `x-docs` path (default generated/docs/<name>.html): a standalone
 * HTML reference (Redoc through `redocly build-docs`, configured by the project's redocly.yaml)
 * that opens from disk with no network: Redoc's scripts are inlined (`--inlineBundle`; without it
 * the page loads Redoc from a CDN) and the one asset Redoc still fetches from its CDN is inlined
 * here. `npm run docs:check` (docs-check.ts) proves it in a headless Chromium.
 *
 * The changelog that `npm run release:api` keeps for an API (`x-changelog`, default CHANGELOG.md
 * beside the document; Markdown) is the reference's last section when the file exists: the page
 * is built from the bundled document with the changelog appended to `info.description`, whose
 * top-level headings Redoc lists as sections.
 *
 * Options build one page, of an API of the project or of another document (DOCS_USAGE says how):
 * --api <file or name> --config <redocly.yaml> --out <file.html> --changelog <file.md>
 */
import { access, readFile, rename, rm, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BundleError, bundleDocument } from './codegen/bundle.js';
import { parseFlags, runAsMain, type Command } from './cli.js';
import { meaningfulLines, RedoclyError, runRedocly } from './redocly.js';
import {
  CONFIG_FILE,
  ConfigError,
  findProjectRoot,
  readProjectConfig,
  type ApiConfig,
  type ProjectConfig,
} from './config.js';

/** The project the commands work on (config.ts, findProjectRoot). */
export const PROJECT_ROOT = findProjectRoot();

export interface DocsPaths {
  /** Root file of the OpenAPI document. */
  readonly api: string;
  /** Redocly configuration (its `openapi:` section configures Redoc). */
  readonly config: string;
  /** The HTML file to write. */
  readonly output: string;
  /** The changelog (Markdown) shown as the last section, when the file exists (default: CHANGELOG.md beside `api`). */
  readonly changelog?: string;
}

function pageOf(config: ProjectConfig, api: ApiConfig): DocsPaths {
  return { api: api.root, config: config.file, output: api.docs, changelog: api.changelog };
}

/**
 * The pages `npm run docs` builds, and `npm run docs:check` checks, when given no option: one
 * per API of the project at `root`, in the order of its `apis:`.
 */
export function projectDocsPaths(root: string = PROJECT_ROOT): DocsPaths[] {
  const config = readProjectConfig(root);
  return config.apis.map((api) => pageOf(config, api));
}

/** The flags of `npm run docs` and `npm run docs:check`. */
export const DOCS_FLAGS = {
  api: { type: 'string' },
  config: { type: 'string' },
  out: { type: 'string' },
  changelog: { type: 'string' },
  help: { type: 'boolean' },
} as const;

export interface DocsOptions {
  readonly api?: string | undefined;
  readonly config?: string | undefined;
  readonly out?: string | undefined;
  readonly changelog?: string | undefined;
}

/** What the options of `npm run docs` and `npm run docs:check` mean (`command` names the script). */
export function docsOptionsUsage(command: string): string {
  return `With no option, every API of the project (apis: in ${CONFIG_FILE}), each at its x-docs path
(default generated/docs/<name>.html), configured by ${CONFIG_FILE}, with the API's changelog
(x-changelog, default CHANGELOG.md beside the document) as its last section when it exists.

  --api FILE|NAME   one page: of this document, or of the API of this name in apis:
  --out FILE        the page to write (default: the API's x-docs); a document that is not in
                    apis: needs it
  --config FILE     the Redocly configuration (default ${CONFIG_FILE} of the project); alone,
                    it configures every API's page
  --changelog FILE  the changelog to show (default: the API's, or CHANGELOG.md beside FILE)

When apis: names several APIs, --out and --changelog need --api to say which page they are for.
  --help            show this text

Paths are read from where the command is typed: \`npm run ${command} -- --api FILE --out FILE\`.`;
}

export const DOCS_USAGE = `Usage: contract-first docs [--api FILE|NAME] [--out FILE] [--config FILE] [--changelog FILE]

Builds each API's HTML reference: one self-contained file, which opens from disk with no network.

${docsOptionsUsage('docs')}`;

/** A failure the user can act on: its message says what went wrong and what to do. */
export class DocsError extends Error {
  override readonly name = 'DocsError';
}

/**
 * The pages the options describe: with none, every API's page (`projectDocsPaths`); with
 * `--api`, one page; `--config` alone applies to every page. Paths on the command line are read
 * from `cwd` (npm runs scripts at the root; INIT_CWD is where the command was typed).
 */
export function docsTargets(
  options: DocsOptions,
  root: string = PROJECT_ROOT,
  cwd: string = process.env['INIT_CWD'] ?? process.cwd(),
): DocsPaths[] {
  const given = (file: string | undefined): string | undefined =>
    file === undefined ? undefined : path.resolve(cwd, file);
  const configFile = given(options.config);
  const outFile = given(options.out);
  const changelogFile = given(options.changelog);
  const override = (page: DocsPaths): DocsPaths => ({
    ...page,
    ...(configFile === undefined ? {} : { config: configFile }),
    ...(outFile === undefined ? {} : { output: outFile }),
    ...(changelogFile === undefined ? {} : { changelog: changelogFile }),
  });
  // A page of another document, every path given, needs no redocly.yaml: read it only if it is there.
  let project: ProjectConfig | undefined;
  try {
    project = readProjectConfig(root);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
  }

  if (options.api !== undefined) {
    const apiFile = path.resolve(cwd, options.api);
    const api =
      project?.apis.find((candidate) => candidate.name === options.api) ??
      project?.apis.find((candidate) => candidate.root === apiFile);
    if (project !== undefined && api !== undefined) return [override(pageOf(project, api))];
    if (outFile === undefined) {
      const names = project === undefined ? '' : ` (${project.apis.map((candidate) => candidate.name).join(', ')})`;
      throw new DocsError(
        `--api ${options.api} is neither an API of ${CONFIG_FILE}${names} nor its document, so it has no page of its own: say where its page goes with --out FILE.`,
      );
    }
    const config = configFile ?? project?.file;
    if (config === undefined)
      throw new DocsError(
        `${path.join(root, CONFIG_FILE)} is missing: give the Redocly configuration with --config FILE.`,
      );
    return [
      {
        api: apiFile,
        config,
        output: outFile,
        changelog: changelogFile ?? path.join(path.dirname(apiFile), 'CHANGELOG.md'),
      },
    ];
  }

  // Throws the ConfigError, which says what to write, when there is no usable redocly.yaml.
  const config = project ?? readProjectConfig(root);
  const pages = config.apis.map((api) => override(pageOf(config, api)));
  if ((outFile !== undefined || changelogFile !== undefined) && pages.length > 1) {
    throw new DocsError(
      `--${outFile === undefined ? 'changelog' : 'out'} names a file of one page, and ${CONFIG_FILE} names ${pages.length} APIs: say which with --api (${config.apis.map((api) => api.name).join(', ')}).`,
    );
  }
  return pages;
}

/** Shows a path relative to the project root when it lies inside it. */
export function displayPath(file: string): string {
  const relative = path.relative(PROJECT_ROOT, file);
  return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(2)} MiB`;
}

/**
 * Redoc 3 (inside @redocly/cli 2.x) shows "API docs by <Redocly logo>" in the sidebar and loads
 * that logo from cdn.redoc.ly even with `--inlineBundle`. Offline the request fails (Chromium
 * logs a console error; Redoc then hides the image). A tiny inline SVG keeps the page
 * self-contained. The URLs live in a JS template literal, so the replacement must not contain
 * a backtick or `${`: encodeURIComponent guarantees that. If a Redoc upgrade renames or adds a
 * CDN asset, `npm run docs:check` names the request it had to block.
 */
const CDN_LOGOS: ReadonlyArray<readonly [url: string, text: string, width: number]> = [
  ['https://cdn.redoc.ly/redoc/logo-mini-full.svg', 'Redocly', 52],
  ['https://cdn.redoc.ly/redoc/logo-mini.svg', 'R', 12],
];

function inlineSvg(text: string, width: number): string {
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="16" viewBox="0 0 ${width} 16">` +
    `<text x="0" y="12.5" font-family="sans-serif" font-size="12" font-weight="600" fill="#555761">` +
    `${text}</text></svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

/** Replaces the CDN assets Redoc would fetch with inline ones. */
export function makeSelfContained(html: string): string {
  let result = html;
  for (const [url, text, width] of CDN_LOGOS) result = result.replaceAll(url, inlineSvg(text, width));
  return result;
}

export interface DocsBuild {
  readonly output: string;
  readonly bytes: number;
  readonly milliseconds: number;
  /** Lines Redocly printed, banner removed. */
  readonly log: readonly string[];
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}

/**
 * The bundled document with `changelog` appended to `info.description`: Redoc shows its
 * `# Changelog` heading as a section of the reference, each release under it.
 */
export async function documentWithChangelog(api: string, changelog: string): Promise<Record<string, unknown>> {
  let bundled: Record<string, unknown>;
  try {
    bundled = { ...(await bundleDocument(api)) };
  } catch (error) {
    if (error instanceof BundleError) {
      throw new DocsError(`${error.message}\nRun \`npm run lint:api\` for the full list of problems.`);
    }
    throw error;
  }
  const info =
    typeof bundled['info'] === 'object' && bundled['info'] !== null ? (bundled['info'] as Record<string, unknown>) : {};
  const description = typeof info['description'] === 'string' ? `${info['description'].trimEnd()}\n\n` : '';
  return { ...bundled, info: { ...info, description: `${description}${changelog.trim()}\n` } };
}

/** The first API's page: what buildDocs builds when given no paths. */
function firstProjectPage(): DocsPaths {
  const [first] = projectDocsPaths();
  if (first === undefined) throw new DocsError(`${CONFIG_FILE} names no API`);
  return first;
}

/** Builds the HTML reference; throws DocsError with Redocly's own words when it cannot. */
export async function buildDocs(paths: DocsPaths = firstProjectPage()): Promise<DocsBuild> {
  const started = performance.now();
  if (!(await exists(paths.api))) {
    throw new DocsError(`${displayPath(paths.api)} does not exist: there is no document to build docs from.`);
  }
  if (!(await exists(paths.config))) {
    throw new DocsError(`${displayPath(paths.config)} does not exist: the Redocly configuration is required.`);
  }
  await mkdir(path.dirname(paths.output), { recursive: true });

  // Build beside the target and rename at the end: a failed build never leaves a half-written
  // or stale-but-newer page that docs:check would take for fresh.
  const temporary = `${paths.output}.${process.pid}.tmp.html`;
  const changelog = await readFile(paths.changelog ?? path.join(path.dirname(paths.api), 'CHANGELOG.md'), 'utf8').catch(
    () => undefined,
  );
  const withChangelog = `${paths.output}.${process.pid}.tmp.json`;
  try {
    if (changelog !== undefined) {
      await writeFile(withChangelog, JSON.stringify(await documentWithChangelog(paths.api, changelog)));
    }
    const result = await runRedocly(
      [
        'build-docs',
        changelog === undefined ? paths.api : withChangelog,
        '--config',
        paths.config,
        '--inlineBundle',
        '--output',
        temporary,
      ],
      { cwd: PROJECT_ROOT },
    );
    const log = meaningfulLines(`${result.stdout}\n${result.stderr}`);
    if (result.code !== 0) {
      throw new DocsError(
        `redocly build-docs failed (exit ${result.code}) for ${displayPath(paths.api)}:\n  ${log.join('\n  ')}\n` +
          'Run `npm run lint:api` for the full list of problems.',
      );
    }
    // build-docs exits 0 when it skips a path item whose $ref does not resolve: the page would
    // silently lack those operations.
    const skipped = log.filter((line) => /\bskipping\b|failed to resolve/i.test(line));
    if (skipped.length > 0) {
      throw new DocsError(
        `redocly build-docs left parts of ${displayPath(paths.api)} out:\n  ${skipped.join('\n  ')}\n` +
          'Run `npm run lint:api` to find the broken references.',
      );
    }
    const built = await readFile(temporary, 'utf8').catch(() => undefined);
    if (built === undefined || !built.includes('</html>')) {
      throw new DocsError(`redocly build-docs exited 0 but wrote no complete HTML file:\n  ${log.join('\n  ')}`);
    }
    const html = makeSelfContained(built);
    await writeFile(temporary, html);
    await rename(temporary, paths.output);
    return {
      output: paths.output,
      bytes: Buffer.byteLength(html),
      milliseconds: performance.now() - started,
      log,
    };
  } finally {
    await rm(temporary, { force: true });
    await rm(withChangelog, { force: true });
  }
}

export async function main(argv: readonly string[]): Promise<number> {
  const values = parseFlags(argv, DOCS_FLAGS, DOCS_USAGE);
  if (typeof values === 'number') return values;
  for (const paths of docsTargets(values)) {
    const build = await buildDocs(paths);
    // Its success line names the temporary file; the summary below names the real one.
    for (const line of build.log) if (!/bundled successfully/.test(line)) console.log(`  redocly: ${line.trim()}`);
    console.log(
      `docs: ${displayPath(build.output)} (${formatBytes(build.bytes)}) in ${Math.round(build.milliseconds)} ms`,
    );
  }
  return 0;
}

export const COMMAND: Command = {
  run: main,
  options: {
    describeError: (error) =>
      error instanceof DocsError || error instanceof ConfigError || error instanceof RedoclyError
        ? `docs: ${error.message}`
        : error,
  },
};
runAsMain(import.meta.url, COMMAND.run, COMMAND.options);
