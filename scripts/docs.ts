/**
 * `npm run docs`: builds generated/docs/index.html, a standalone HTML reference of
 * openapi/openapi.yaml (Redoc through `redocly build-docs`, with openapi/redocly.yaml), and
 * generated/docs/dashboard.html, the same of openapi/dashboard/dashboard.yaml; each opens from
 * disk with no network: Redoc's scripts are inlined (`--inlineBundle`; without it the
 * page loads Redoc from a CDN) and the one asset Redoc still fetches from its CDN is inlined here.
 * `npm run docs:check` (scripts/docs-check.ts) proves it in a headless Chromium.
 *
 * The changelog that `npm run release:api` keeps (openapi/CHANGELOG.md, Markdown) is the
 * reference's last section: the page is built from the bundled document with the changelog
 * appended to `info.description`, whose top-level headings Redoc lists as sections.
 *
 * Options, to build one page of another document: --api <file> --config <redocly.yaml>
 * --out <file.html> --changelog <file.md> (default: CHANGELOG.md beside the document, when there is one)
 */
import { spawn } from 'node:child_process';
import { access, readFile, rename, rm, mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { BundleError, bundleDocument } from './codegen/bundle.js';
import { runAsMain } from './cli.js';

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

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

export const DEFAULT_DOCS_PATHS: DocsPaths = {
  api: path.join(PROJECT_ROOT, 'openapi/openapi.yaml'),
  config: path.join(PROJECT_ROOT, 'openapi/redocly.yaml'),
  output: path.join(PROJECT_ROOT, 'generated/docs/index.html'),
  changelog: path.join(PROJECT_ROOT, 'openapi/CHANGELOG.md'),
};

/** The dashboard's API: its own page (its changelog would be a CHANGELOG.md beside it; it has none yet). */
export const DASHBOARD_DOCS_PATHS: DocsPaths = {
  api: path.join(PROJECT_ROOT, 'openapi/dashboard/dashboard.yaml'),
  config: path.join(PROJECT_ROOT, 'openapi/redocly.yaml'),
  output: path.join(PROJECT_ROOT, 'generated/docs/dashboard.html'),
};

/** The pages `npm run docs` builds, and `npm run docs:check` checks, when given no option. */
export const PROJECT_DOCS_PATHS: readonly DocsPaths[] = [DEFAULT_DOCS_PATHS, DASHBOARD_DOCS_PATHS];

/** A failure the user can act on: its message says what went wrong and what to do. */
export class DocsError extends Error {
  override readonly name = 'DocsError';
}

/** Reads `--api`, `--config`, `--out` and `--changelog` (relative to the working directory); the rest default. */
export function parseDocsPaths(argv: readonly string[]): DocsPaths {
  const { values } = parseArgs({
    args: [...argv],
    options: { api: { type: 'string' }, config: { type: 'string' }, out: { type: 'string' }, changelog: { type: 'string' } },
    strict: true,
  });
  const api = values.api === undefined ? DEFAULT_DOCS_PATHS.api : path.resolve(values.api);
  return {
    api,
    config: values.config === undefined ? DEFAULT_DOCS_PATHS.config : path.resolve(values.config),
    output: values.out === undefined ? DEFAULT_DOCS_PATHS.output : path.resolve(values.out),
    changelog: values.changelog === undefined ? path.join(path.dirname(api), 'CHANGELOG.md') : path.resolve(values.changelog),
  };
}

/** The project's pages without options; with any, the one page they describe. */
export function parseDocsTargets(argv: readonly string[]): readonly DocsPaths[] {
  return argv.length === 0 ? PROJECT_DOCS_PATHS : [parseDocsPaths(argv)];
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

export interface CommandResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the project's own Redocly CLI (node_modules, the pinned version: never a global one or
 * an npx download) with the current Node binary, so it also works where `.bin` shims do not.
 */
export async function runRedocly(
  args: readonly string[],
  options: { readonly cwd?: string; readonly env?: Readonly<Record<string, string>> } = {},
): Promise<CommandResult> {
  const require = createRequire(import.meta.url);
  let manifestPath: string;
  try {
    manifestPath = require.resolve('@redocly/cli/package.json');
  } catch {
    throw new DocsError('@redocly/cli is not installed: run `npm ci` first.');
  }
  const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as { bin?: Record<string, string> | string };
  const bin = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin?.['redocly'];
  if (bin === undefined) throw new DocsError(`${manifestPath} declares no \`redocly\` bin.`);
  const cli = path.join(path.dirname(manifestPath), bin);

  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      cwd: options.cwd ?? PROJECT_ROOT,
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
  return output
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '' && !/[║╔╚]/.test(line));
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
  const info = typeof bundled['info'] === 'object' && bundled['info'] !== null ? (bundled['info'] as Record<string, unknown>) : {};
  const description = typeof info['description'] === 'string' ? `${info['description'].trimEnd()}\n\n` : '';
  return { ...bundled, info: { ...info, description: `${description}${changelog.trim()}\n` } };
}

/** Builds the HTML reference; throws DocsError with Redocly's own words when it cannot. */
export async function buildDocs(paths: DocsPaths = DEFAULT_DOCS_PATHS): Promise<DocsBuild> {
  const started = performance.now();
  if (!(await exists(paths.api))) {
    throw new DocsError(`${displayPath(paths.api)} does not exist: there is no document to build docs from.`);
  }
  if (!(await exists(paths.config))) {
    throw new DocsError(`${displayPath(paths.config)} does not exist: the Redocly configuration is required.`);
  }
  await mkdir(path.dirname(paths.output), { recursive: true });

  // Build beside the target and rename at the end: a failed build never leaves a half-written
  // or stale-but-newer index.html that docs:check would take for fresh.
  const temporary = `${paths.output}.${process.pid}.tmp.html`;
  const changelog = await readFile(paths.changelog ?? path.join(path.dirname(paths.api), 'CHANGELOG.md'), 'utf8').catch(() => undefined);
  const withChangelog = `${paths.output}.${process.pid}.tmp.json`;
  try {
    if (changelog !== undefined) {
      await writeFile(withChangelog, JSON.stringify(await documentWithChangelog(paths.api, changelog)));
    }
    const result = await runRedocly([
      'build-docs',
      changelog === undefined ? paths.api : withChangelog,
      '--config',
      paths.config,
      '--inlineBundle',
      '--output',
      temporary,
    ]);
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

async function main(argv: readonly string[]): Promise<number> {
  for (const paths of parseDocsTargets(argv)) {
    const build = await buildDocs(paths);
    // Its success line names the temporary file; the summary below names the real one.
    for (const line of build.log) if (!/bundled successfully/.test(line)) console.log(`  redocly: ${line.trim()}`);
    console.log(
      `docs: ${displayPath(build.output)} (${formatBytes(build.bytes)}) in ${Math.round(build.milliseconds)} ms`,
    );
  }
  return 0;
}

runAsMain(import.meta.url, main, { describeError: (error) => (error instanceof DocsError ? `docs: ${error.message}` : error) });
