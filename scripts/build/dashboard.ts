/**
 * `npm run build:dashboard` (and the last step of `npm run build`): bundles the dashboard's pages
 * (client/dashboard/, TypeScript and CSS) with esbuild into `.build/dashboard/`, which the service
 * serves at /dashboard (README, "The dashboard's pages"):
 *
 *   index.html                  the one page; its script and style by their hashed names
 *   assets/app-<hash>.js        the bundle (ES2022, minified), openapi-fetch included
 *   assets/app-<hash>.css       the styles
 *
 * The names carry a hash of the content, so the service can let browsers keep the assets for a
 * year while index.html is asked for every time. `--out DIR` writes elsewhere (the browser test
 * builds into a temporary folder).
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { parseFlags, runAsMain } from 'contract-first/cli';

const USAGE = `Usage: npm run build:dashboard [-- --out DIR]

Bundles the dashboard's pages (client/dashboard/) into .build/dashboard/, or into DIR.`;

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The pages' sources, under a project root. */
const SOURCE = 'client/dashboard';
/** Where `npm start` (server/main.ts) looks for the pages: relative to the project root. */
export const DEFAULT_PAGES_DIR = path.join(ROOT, '.build/dashboard');
/** The first view's script budget (README, "The dashboard's pages"): the test asserts it. */
export const SCRIPT_BUDGET_BYTES = 100 * 1024;

export interface BuiltPages {
  readonly outDir: string;
  /** Paths under /dashboard/, each with its size in bytes (not compressed). */
  readonly files: ReadonlyArray<{ readonly path: string; readonly bytes: number }>;
  /** The script the first view loads: the whole bundle, as there is no code splitting. */
  readonly scriptBytes: number;
  readonly milliseconds: number;
}

const hashOf = (content: Uint8Array | string): string =>
  createHash('sha256').update(content).digest('base64url').slice(0, 12);

/** Bundles `<root>/client/dashboard/` (this repository's by default) into `outDir` (emptied first). */
export async function buildDashboardPages(
  outDir: string = DEFAULT_PAGES_DIR,
  root: string = ROOT,
): Promise<BuiltPages> {
  const started = performance.now();
  const sources = path.join(root, SOURCE);
  const result = await build({
    entryPoints: { app: path.join(sources, 'main.ts'), style: path.join(sources, 'styles.css') },
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2022',
    platform: 'browser',
    write: false,
    outdir: 'out',
    legalComments: 'none',
    logLevel: 'silent',
    // The pages' own tsconfig (DOM types); esbuild reads only what affects emitting.
    tsconfig: path.join(sources, 'tsconfig.json'),
  });
  const script = result.outputFiles.find((file) => file.path.endsWith('.js'));
  const style = result.outputFiles.find((file) => file.path.endsWith('.css'));
  if (script === undefined || style === undefined) throw new Error('esbuild wrote no script or no style');
  const scriptName = `assets/app-${hashOf(script.contents)}.js`;
  const styleName = `assets/app-${hashOf(style.contents)}.css`;
  const template = await readFile(path.join(sources, 'index.html'), 'utf8');
  const html = template
    .replace('{{script}}', `/dashboard/${scriptName}`)
    .replace('{{style}}', `/dashboard/${styleName}`);
  if (html.includes('{{')) throw new Error('client/dashboard/index.html has a placeholder the build does not fill');

  await rm(outDir, { recursive: true, force: true });
  await mkdir(path.join(outDir, 'assets'), { recursive: true });
  await Promise.all([
    writeFile(path.join(outDir, scriptName), script.contents),
    writeFile(path.join(outDir, styleName), style.contents),
    writeFile(path.join(outDir, 'index.html'), html),
  ]);
  return {
    outDir,
    files: [
      { path: 'index.html', bytes: Buffer.byteLength(html) },
      { path: scriptName, bytes: script.contents.byteLength },
      { path: styleName, bytes: style.contents.byteLength },
    ],
    scriptBytes: script.contents.byteLength,
    milliseconds: performance.now() - started,
  };
}

/** The build `npm run dev` runs when the pages change (x-dev in redocly.yaml): into the server's working directory. */
export async function buildForDev(context: { readonly root: string; readonly serverDir: string }): Promise<void> {
  await buildDashboardPages(path.join(context.serverDir, '.build/dashboard'), context.root);
}

async function main(argv: readonly string[]): Promise<number> {
  const values = parseFlags(argv, { out: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, USAGE);
  if (typeof values === 'number') return values;
  const built = await buildDashboardPages(values.out === undefined ? DEFAULT_PAGES_DIR : path.resolve(values.out));
  const sizes = built.files.map((file) => `${file.path} ${(file.bytes / 1024).toFixed(1)} KB`).join(', ');
  console.log(
    `build:dashboard: ${path.relative(process.cwd(), built.outDir) || '.'}/: ${sizes} in ${Math.round(built.milliseconds)} ms`,
  );
  if (built.scriptBytes > SCRIPT_BUDGET_BYTES) {
    console.error(
      `build:dashboard: the script is ${built.scriptBytes} bytes, over the ${SCRIPT_BUDGET_BYTES}-byte budget of a first view`,
    );
    return 1;
  }
  return 0;
}

runAsMain(import.meta.url, main);
