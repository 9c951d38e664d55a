/**
 * `npm run docs:check`: proves that the reference page of each API of the project (`apis:` in
 * redocly.yaml; each page at its `x-docs` path, as `npm run docs` builds it) is a working,
 * self-contained reference. It (re)builds a page when it is missing or older than a file of its
 * document, opens it in a real headless Chromium with every request but the file itself blocked,
 * and fails unless
 * - every operation of the bundled document renders its section, visible once scrolled to,
 *   with its summary as heading and its method and path (or webhook name),
 * - the page logs no console error and throws no page error,
 * - no request had to be blocked (anything fetched from outside the file is a failure).
 * It saves a screenshot beside each page for a human look (screenshot.png for index.html,
 * <name>-screenshot.png for <name>.html).
 *
 * What it relies on in Redoc 3 (@redocly/cli 2.x), checked against the real DOM:
 * - the Redoc 2 deep link `#operation/<operationId>` still works: Redoc 3 redirects it to the
 *   operation's route `#/<tag-slug>/<operation-slug>` (the slug is the operationId lower-cased)
 *   and renders that tag's operations;
 * - each operation is then a `[data-section-id="/<tag-slug>/<operation-slug>"]` element: an
 *   empty placeholder until scrolled into view, after which it has `data-item-kind="httpItem"`,
 *   an `h2` with the summary and a right panel that shows the method and the path;
 * - content is rendered on the client after the load event (the file holds none).
 * If a Redoc upgrade changes these, the failures say which operation and which selector.
 *
 * Options as for `npm run docs`, to check one page: --api <file or name> --config <redocly.yaml>
 * --out <file.html> --changelog <file.md>
 */
import { access, stat } from 'node:fs/promises';
import { constants } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bundle, createConfig } from '@redocly/openapi-core';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import {
  DOCS_FLAGS,
  DocsError,
  PROJECT_ROOT,
  buildDocs,
  displayPath,
  docsOptionsUsage,
  docsTargets,
  formatBytes,
} from './docs.js';
import { meaningfulLines, runRedocly, RedoclyError } from './redocly.js';
import type { DocsPaths } from './docs.js';
import { resolveLocal } from './runtime/openapi-refs.js';
import { parseFlags, runAsMain, type Command } from './cli.js';
import { ConfigError } from './config.js';

const CHROMIUM = '/usr/bin/chromium';

export const USAGE = `Usage: contract-first docs --check [--api FILE|NAME] [--out FILE] [--config FILE] [--changelog FILE]

Checks each API's HTML reference in a headless Chromium (${CHROMIUM}): every operation
renders, no console or page error, no request leaves the file. Builds a page first when it is
missing or older than its document.

${docsOptionsUsage('docs:check')}`;

/** The machine and CI have no network: keep Chromium from trying (and logging) any of its own. */
const CHROMIUM_ARGS = [
  '--no-sandbox', // runs as root in CI containers; the page is our own file
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
/** Wide enough for Redoc's three panels (menu, content, examples). */
const VIEWPORT = { width: 1440, height: 900 };
/** Per browser action: the page is local, anything slower than this is broken. */
const ACTION_TIMEOUT_MS = 5_000;
/** Redoc opens a tag in ~0.3 s here; an operation not there after this is missing. */
const LOCATE_TIMEOUT_MS = 3_000;
/**
 * All operations together (each takes ~0.3 s): when the page is broken as a whole (a Redoc
 * upgrade, the wrong file) the run stops here instead of timing out once per operation.
 */
const OPERATIONS_BUDGET_MS = 20_000;
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** One operation of the document, as the reader should find it on the page. */
export interface DocumentedOperation {
  readonly method: string;
  /** The path, or the webhook's name. */
  readonly target: string;
  readonly kind: 'path' | 'webhook';
  readonly operationId: string | undefined;
  readonly summary: string | undefined;
  readonly tags: readonly string[];
}

interface BundledDocument {
  readonly info: { readonly title: string };
  readonly tags: readonly string[];
  readonly operations: readonly DocumentedOperation[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Follows a local `#/...` reference (path items may point into components/pathItems); undefined when it cannot. */
function resolveOrUndefined(root: Record<string, unknown>, value: unknown): unknown {
  try {
    return resolveLocal(root, value);
  } catch {
    return undefined;
  }
}

/** Lists the operations of a bundled OpenAPI 3.x document, paths first, then webhooks. */
export function listOperations(document: Record<string, unknown>): DocumentedOperation[] {
  const operations: DocumentedOperation[] = [];
  for (const kind of ['path', 'webhook'] as const) {
    const items = document[kind === 'path' ? 'paths' : 'webhooks'];
    if (!isRecord(items)) continue;
    for (const [target, rawItem] of Object.entries(items)) {
      const item = resolveOrUndefined(document, rawItem);
      if (!isRecord(item)) continue;
      for (const method of HTTP_METHODS) {
        const operation = item[method];
        if (!isRecord(operation)) continue;
        const { operationId, summary, tags } = operation;
        operations.push({
          method,
          target,
          kind,
          operationId: typeof operationId === 'string' ? operationId : undefined,
          summary: typeof summary === 'string' && summary.trim() !== '' ? summary : undefined,
          tags: Array.isArray(tags) ? tags.filter((tag): tag is string => typeof tag === 'string') : [],
        });
      }
    }
  }
  return operations;
}

/**
 * Bundles the document with the same CLI and configuration as `npm run docs`, so decorators
 * (e.g. removing x-internal operations) apply to both and the lists agree.
 */
async function bundleDocument(paths: DocsPaths): Promise<BundledDocument> {
  const result = await runRedocly(['bundle', paths.api, '--config', paths.config, '--ext', 'json'], {
    cwd: path.dirname(paths.config),
  });
  if (result.code !== 0) {
    const log = meaningfulLines(result.stderr).join('\n  ');
    throw new DocsError(`redocly bundle failed (exit ${result.code}) for ${displayPath(paths.api)}:\n  ${log}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(result.stdout);
  } catch {
    const start = meaningfulLines(result.stdout).slice(0, 5).join('\n  ');
    throw new DocsError(`redocly bundle printed no JSON document:\n  ${start}`);
  }
  if (!isRecord(parsed) || !isRecord(parsed['info']) || typeof parsed['info']['title'] !== 'string') {
    throw new DocsError(`${displayPath(paths.api)} has no info.title: is it an OpenAPI document?`);
  }
  const tags = Array.isArray(parsed['tags'])
    ? parsed['tags'].flatMap((tag: unknown) => (isRecord(tag) && typeof tag['name'] === 'string' ? [tag['name']] : []))
    : [];
  return { info: { title: parsed['info']['title'] }, tags, operations: listOperations(parsed) };
}

/**
 * The newest modification time of what the page is made of: every file of the document (as the
 * bundler reads them, wherever they are), the configuration, the changelog and the build script.
 * Undefined when the document cannot be bundled: then the page is rebuilt, and the build says why.
 */
async function newestSourceTime(paths: DocsPaths): Promise<number | undefined> {
  let files: string[];
  try {
    const result = await bundle({ ref: paths.api, config: await createConfig({}, {}), dereference: false });
    files = [...result.fileDependencies];
  } catch {
    return undefined;
  }
  // The build script counts too: a change in how the page is made makes it stale.
  files.push(
    paths.api,
    paths.config,
    paths.changelog ?? path.join(path.dirname(paths.api), 'CHANGELOG.md'),
    fileURLToPath(new URL(`./docs${path.extname(fileURLToPath(import.meta.url))}`, import.meta.url)),
  );
  const times = await Promise.all(
    files.map((file) =>
      stat(file).then(
        (s) => s.mtimeMs,
        () => 0,
      ),
    ),
  );
  return Math.max(0, ...times);
}

/** Builds the page unless it exists and is newer than every file of the document. */
async function ensureDocs(paths: DocsPaths): Promise<string> {
  const built = await stat(paths.output).then(
    (s) => s.mtimeMs,
    () => undefined,
  );
  const sources = built === undefined ? undefined : await newestSourceTime(paths);
  if (built !== undefined && sources !== undefined && built >= sources) {
    return `${displayPath(paths.output)} is up to date`;
  }
  const build = await buildDocs(paths);
  return `built ${displayPath(build.output)} (${formatBytes(build.bytes)}) in ${Math.round(build.milliseconds)} ms`;
}

/** A CSS string literal (attribute selector values may hold any character of an operationId). */
function cssString(value: string): string {
  return `"${value.replace(/["\\]/g, '\\$&').replace(/\n/g, '\\a ')}"`;
}

/** Redoc 3's slug for an operation with an operationId: the id lower-cased, `\` escaped. */
export function operationSlug(operationId: string): string {
  return operationId.replaceAll('\\', '%5C').toLowerCase();
}

function describe(operation: DocumentedOperation): string {
  const where = operation.kind === 'webhook' ? `webhook ${operation.target}` : operation.target;
  return `${operation.method.toUpperCase()} ${where} (${operation.operationId ?? 'no operationId'})`;
}

function normalise(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * Opens an operation the way a Redoc 2 deep link (and the document's own descriptions) do:
 * Redoc 3 redirects `#operation/<operationId>` to the operation's route and renders its tag.
 */
async function openOperation(page: Page, fileUrl: string, operationId: string): Promise<void> {
  await page.goto(`${fileUrl}#operation/${operationId}`);
}

/** Runs a locator action again when the element it found was replaced by a re-render. */
async function retryDetached(action: () => Promise<void>, attempts = 3): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await action();
    } catch (error: unknown) {
      const detached = error instanceof Error && /not attached/i.test(error.message);
      if (!detached || attempt >= attempts) throw error;
    }
  }
}

/** Returns undefined when the operation's section renders as it should, else why not. */
async function checkOperation(
  page: Page,
  fileUrl: string,
  operation: DocumentedOperation,
): Promise<string | undefined> {
  if (operation.operationId === undefined) {
    return 'has no operationId, so its section cannot be found (Redoc names sections after operationIds)';
  }
  const suffix = `/${operationSlug(operation.operationId)}`;
  await openOperation(page, fileUrl, operation.operationId);
  const placeholder = page.locator(`[data-section-id$=${cssString(suffix)}]`).first();
  try {
    await placeholder.waitFor({ state: 'attached', timeout: LOCATE_TIMEOUT_MS });
  } catch {
    const hash = new URL(page.url()).hash;
    const where = hash || 'the top';
    return `#operation/${operation.operationId} led to ${where}, where no [data-section-id$="${suffix}"] appeared`;
  }
  const sectionId = await placeholder.getAttribute('data-section-id');
  if (sectionId === null) return `its section lost its data-section-id`;
  const anySection = page.locator(`[data-section-id=${cssString(sectionId)}]`).first();
  // React swaps the placeholder for the rendered section while we scroll to it.
  await retryDetached(() => anySection.scrollIntoViewIfNeeded());

  const section = page.locator(`[data-section-id=${cssString(sectionId)}][data-item-kind="httpItem"]`);
  const heading = section.locator('h2').first();
  try {
    await heading.waitFor({ state: 'visible' });
  } catch {
    return `section ${sectionId} did not render an operation (no visible h2 after scrolling to it)`;
  }
  await retryDetached(() => heading.scrollIntoViewIfNeeded());
  const box = await heading.boundingBox();
  if (box === null || box.y + box.height <= 0 || box.y >= VIEWPORT.height || box.width === 0) {
    return `section ${sectionId}: its heading is not in the viewport after scrolling to it`;
  }

  const problems: string[] = [];
  // Redoc's label: the summary, else the operationId.
  const expectedHeading = normalise(operation.summary ?? operation.operationId);
  const shownHeading = normalise((await heading.textContent()) ?? '');
  if (!shownHeading.includes(expectedHeading)) {
    problems.push(`heading is "${shownHeading}", expected "${expectedHeading}"`);
  }
  // The right panel shows the method badge followed by the path (or webhook name).
  const text = normalise((await section.textContent()) ?? '').toLowerCase();
  const expectedRequest = `${operation.method}${operation.target}`.toLowerCase();
  if (!text.replaceAll(' ', '').includes(expectedRequest.replaceAll(' ', ''))) {
    problems.push(`does not show "${operation.method.toUpperCase()} ${operation.target}"`);
  }
  return problems.length === 0 ? undefined : `section ${sectionId}: ${problems.join('; ')}`;
}

/**
 * Loads the page and waits for Redoc: the file holds no prerendered content, Redoc renders it
 * on the client just after the load event.
 */
async function openPage(page: Page, fileUrl: string): Promise<string | undefined> {
  try {
    await page.goto(fileUrl, { waitUntil: 'load' });
    await page.locator('[data-section-id]').first().waitFor({ state: 'attached' });
    return undefined;
  } catch (error: unknown) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return `Redoc did not render the page (${reason}); the console and page errors below may say why`;
  }
}

/** Orders operations as the page groups them (by tag in the document's tag order). */
function byTag(operations: readonly DocumentedOperation[], tagOrder: readonly string[]): DocumentedOperation[] {
  const rank = (operation: DocumentedOperation): number => {
    const first = operation.tags[0];
    if (first === undefined) return Number.MAX_SAFE_INTEGER;
    const index = tagOrder.indexOf(first);
    return index === -1 ? tagOrder.length : index;
  };
  return operations
    .map((operation, index) => ({ operation, index }))
    .sort((a, b) => rank(a.operation) - rank(b.operation) || a.index - b.index)
    .map(({ operation }) => operation);
}

/** Distinct entries in first-seen order, each with " (×n)" when it occurred n > 1 times. */
function tally(entries: readonly string[]): Array<[entry: string, times: string]> {
  const counts = new Map<string, number>();
  for (const entry of entries) counts.set(entry, (counts.get(entry) ?? 0) + 1);
  return [...counts].map(([entry, count]) => [entry, count > 1 ? ` (×${count})` : '']);
}

interface CheckReport {
  /** Each operation's line (ok or FAIL), printed once every page is checked. */
  readonly lines: string[];
  readonly failures: string[];
  readonly blocked: string[];
  readonly checked: number;
  readonly screenshot: string;
}

async function checkPage(browser: Browser, paths: DocsPaths, document: BundledDocument): Promise<CheckReport> {
  const fileUrl = pathToFileURL(paths.output).href;
  const lines: string[] = [];
  const failures: string[] = [];
  const blocked: string[] = [];
  const consoleErrors: string[] = [];
  const pageErrors: string[] = [];

  const context = await browser.newContext({ viewport: VIEWPORT, serviceWorkers: 'block' });
  const page = await context.newPage();
  page.setDefaultTimeout(ACTION_TIMEOUT_MS);
  page.setDefaultNavigationTimeout(15_000);
  page.on('console', (message) => {
    if (message.type() === 'error') {
      const { url, lineNumber } = message.location();
      consoleErrors.push(`${message.text()}${url ? ` (${url}:${lineNumber})` : ''}`);
    }
  });
  page.on('pageerror', (error) => {
    // The stack starts with "Name: message"; keep its first frames, they point into the page.
    const stack = error.stack?.split('\n').slice(0, 4).join('\n    ');
    pageErrors.push(stack !== undefined && stack.trim() !== '' ? stack : `${error.name}: ${error.message}`);
  });
  // The page must be self-contained: only the file itself may load (requests carry no #hash).
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url === fileUrl) return route.continue();
    blocked.push(`${route.request().method()} ${url} (${route.request().resourceType()})`);
    return route.abort('blockedbyclient');
  });

  const ordered = byTag(document.operations, document.tags);
  const notOpened = await openPage(page, fileUrl);
  if (notOpened !== undefined) failures.push(notOpened);
  const title = await page.title();
  if (title !== document.info.title) {
    failures.push(`page title is "${title}", expected info.title "${document.info.title}"`);
  }

  let checked = 0;
  const deadline = performance.now() + OPERATIONS_BUDGET_MS;
  for (const operation of notOpened === undefined ? ordered : []) {
    const operationStarted = performance.now();
    if (operationStarted > deadline) {
      failures.push(`${describe(operation)}: not checked, the ${OPERATIONS_BUDGET_MS / 1000} s budget ran out`);
      continue;
    }
    const problem = await checkOperation(page, fileUrl, operation).catch((error: unknown) =>
      error instanceof Error ? error.message.split('\n')[0] : String(error),
    );
    if (problem === undefined) {
      checked += 1;
      lines.push(`  ok  ${describe(operation)} ${Math.round(performance.now() - operationStarted)} ms`);
    } else {
      failures.push(`${describe(operation)}: ${problem}`);
      lines.push(`  FAIL ${describe(operation)}`);
    }
  }

  // A fresh page opened at the first operation: the menu shows the title, the tags, and the
  // first tag unfolded with its operations.
  const pageName = path.basename(paths.output, '.html');
  const screenshot = path.join(
    path.dirname(paths.output),
    pageName === 'index' ? 'screenshot.png' : `${pageName}-screenshot.png`,
  );
  // When the page did not render, the screenshot shows it as it is.
  const first = notOpened === undefined ? ordered.find((operation) => operation.operationId !== undefined) : undefined;
  if (first?.operationId !== undefined && (await openPage(page, fileUrl)) === undefined) {
    await openOperation(page, fileUrl, first.operationId);
    await page
      .locator('[data-testid="menu-item-label"]', { hasText: first.summary ?? first.operationId })
      .first()
      .waitFor({ state: 'visible', timeout: 1_000 })
      .catch(() => undefined); // only cosmetic: the checks above already ran
    await page.waitForTimeout(300); // let the menu's unfold transition finish
  }
  await page.screenshot({ path: screenshot });

  // Late errors (lazy chunks, images) count too. The page is opened twice: count repeats.
  for (const [error, times] of tally(consoleErrors)) failures.push(`console error${times}: ${error}`);
  for (const [error, times] of tally(pageErrors)) failures.push(`page error${times}: ${error}`);
  if (blocked.length > 0) {
    failures.push(`${blocked.length} request(s) left the file and were blocked: the page is not self-contained`);
  }
  await context.close();
  return { lines, failures, blocked, checked, screenshot };
}

async function launchChromium(): Promise<Browser> {
  try {
    return await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 15_000 });
  } catch (error: unknown) {
    const reason = error instanceof Error ? error.message.split('\n').slice(0, 6).join('\n  ') : String(error);
    throw new DocsError(
      `${CHROMIUM} did not start:\n  ${reason}\n` +
        'Reinstall it (`apt-get update && apt-get install -y chromium`), then try ' +
        '`chromium --headless --no-sandbox --dump-dom about:blank`.',
    );
  }
}

export async function main(argv: readonly string[]): Promise<number> {
  const started = performance.now();
  const values = parseFlags(argv, DOCS_FLAGS, USAGE);
  if (typeof values === 'number') return values;
  const targets = docsTargets(values);
  const executable = await access(CHROMIUM, constants.X_OK).then(
    () => true,
    () => false,
  );
  if (!executable) {
    throw new DocsError(
      `${CHROMIUM} not found: the check needs Debian's Chromium. ` +
        'Install it with `apt-get update && apt-get install -y chromium`.',
    );
  }

  for (const paths of targets) console.log(`docs:check: ${await ensureDocs(paths)}`);
  const checkStarted = performance.now();
  // Bundling and starting the browser are independent: overlap them, and close the browser
  // whichever of the two fails.
  const [bundled, launched] = await Promise.allSettled([
    Promise.all(targets.map((paths) => bundleDocument(paths))),
    launchChromium(),
  ]);
  if (launched.status === 'rejected' || bundled.status === 'rejected') {
    if (launched.status === 'fulfilled') await launched.value.close();
    throw bundled.status === 'rejected' ? bundled.reason : launched.status === 'rejected' ? launched.reason : undefined;
  }
  const pages = targets.map((paths, index) => ({ paths, document: bundled.value[index] }));
  const browser = launched.value;
  let reports: Array<{ paths: DocsPaths; document: BundledDocument; report: CheckReport }> = [];
  try {
    console.log(`docs:check: Chromium up in ${Math.round(performance.now() - checkStarted)} ms`);
    // The pages in parallel, each in a context of its own: a page's reload after each operation
    // keeps one of Chromium's processes busy, and there is one per page.
    reports = await Promise.all(
      pages.flatMap(({ paths, document }) =>
        document === undefined
          ? []
          : [checkPage(browser, paths, document).then((report) => ({ paths, document, report }))],
      ),
    );
  } finally {
    await browser.close();
  }

  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  let failed = 0;
  for (const { paths, document, report } of reports) {
    const { bytes } = await stat(paths.output).then((s) => ({ bytes: s.size }));
    console.log(`docs:check: ${document.operations.length} operations in ${displayPath(paths.api)}`);
    for (const line of report.lines) console.log(line);
    console.log(`docs:check: ${displayPath(paths.output)}: blocked requests: ${report.blocked.length}`);
    for (const [request, times] of tally(report.blocked)) console.log(`  blocked${times} ${request}`);
    console.log(`docs:check: screenshot ${displayPath(report.screenshot)}`);
    if (report.failures.length > 0) {
      console.error(
        `docs:check FAILED for ${displayPath(paths.output)} (${report.failures.length} problem(s), ${seconds} s):`,
      );
      for (const failure of report.failures) console.error(`  - ${failure}`);
      failed += 1;
      continue;
    }
    console.log(
      `docs:check: ${report.checked}/${document.operations.length} operations render; no console or page errors; ` +
        `${displayPath(paths.output)} (${formatBytes(bytes)}) is self-contained (${seconds} s)`,
    );
  }
  return failed > 0 ? 1 : 0;
}

export const COMMAND: Command = {
  run: main,
  options: {
    describeError: (error) =>
      error instanceof DocsError || error instanceof ConfigError || error instanceof RedoclyError
        ? `docs --check: ${error.message}`
        : error,
  },
};
runAsMain(import.meta.url, COMMAND.run, COMMAND.options);
