/**
 * The steps of `npm run dev` on the document: lint (Redocly, with the rules of
 * openapi/redocly.yaml, as `npm run lint:api`), generation (bundle and generate, as `npm run
 * generate`, first in memory) and the reference (`npm run docs`).
 */
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { BundleError } from '../codegen/bundle.js';
import { GeneratorError } from '../codegen/operations.js';
import { buildDocs, DocsError, meaningfulLines, runRedocly, type CommandResult } from '../docs.js';
import { generate, type GeneratedFile } from '../generate.js';

export interface StepResult {
  readonly ok: boolean;
  /** What the tool printed that is worth reading (its findings, with file and line). */
  readonly report: string;
  readonly milliseconds: number;
}

/**
 * `redocly lint` of `<root>/openapi/openapi.yaml` with `<root>/openapi/redocly.yaml`, run in the
 * root so that each finding names its file as `openapi/…:line:column`, with the lines around it.
 */
export async function lint(root: string): Promise<StepResult> {
  const started = performance.now();
  const args = ['lint', '--config', 'openapi/redocly.yaml', '--max-problems', '1000', '--format', 'codeframe', 'openapi/openapi.yaml'];
  let result: CommandResult;
  try {
    result = await runRedocly(args, { cwd: root, env: process.stdout.isTTY ? { FORCE_COLOR: '1' } : {} });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, report: `cannot run redocly: ${message}`, milliseconds: performance.now() - started };
  }
  const findings = result.stdout.trimEnd();
  // stderr holds the summary, between a deprecation banner and blank lines.
  const summary = meaningfulLines(result.stderr)
    .filter((line) => !/^validating |: validated in \d|generate-ignore-file|Your API description is valid/.test(line))
    .join('\n');
  const report = [findings, summary].filter((part) => part !== '').join('\n');
  return { ok: result.code === 0, report, milliseconds: performance.now() - started };
}

export type Generation =
  | { readonly ok: true; readonly files: readonly GeneratedFile[]; readonly warnings: readonly string[]; readonly milliseconds: number }
  | { readonly ok: false; readonly message: string; readonly milliseconds: number };

/** `npm run generate` of the root's document, in memory: nothing is written. */
export async function generateInMemory(root: string): Promise<Generation> {
  const started = performance.now();
  try {
    const generation = await generate(undefined, undefined, root);
    const warnings = generation.warnings.map((warning) => `${warning.pointer}: ${warning.message}`);
    return { ok: true, files: generation.files, warnings, milliseconds: performance.now() - started };
  } catch (error) {
    if (!(error instanceof GeneratorError || error instanceof BundleError)) throw error;
    return { ok: false, message: error.message, milliseconds: performance.now() - started };
  }
}

/** Writes the files that differ from what is on disk; returns their paths. */
export async function writeGenerated(root: string, files: readonly GeneratedFile[]): Promise<string[]> {
  const written: string[] = [];
  for (const file of files) {
    const target = path.join(root, file.path);
    const current = await readFile(target, 'utf8').catch(() => undefined);
    if (current === file.content) continue;
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, file.content);
    written.push(file.path);
  }
  return written;
}

export interface DocsBuilder {
  /** Builds the reference again (after the build under way, if one is). */
  request(): void;
  /** The page as last built, or why there is none. */
  current(): { readonly html: string } | { readonly missing: string };
}

/**
 * `npm run docs` into `<root>/generated/docs/index.html`, one build at a time; a request during a
 * build runs one more build after it, however many came.
 */
export function createDocsBuilder(root: string, onBuilt: (milliseconds: number) => void, onFailed: (message: string) => void): DocsBuilder {
  const paths = {
    api: path.join(root, 'openapi/openapi.yaml'),
    config: path.join(root, 'openapi/redocly.yaml'),
    output: path.join(root, 'generated/docs/index.html'),
  };
  let page: { html: string } | { missing: string } = { missing: 'The reference is built once the document passes lint; this page reloads when it is ready.' };
  let building = false;
  let again = false;
  const run = async (): Promise<void> => {
    building = true;
    do {
      again = false;
      try {
        const built = await buildDocs(paths);
        page = { html: await readFile(built.output, 'utf8') };
        onBuilt(built.milliseconds);
      } catch (error) {
        onFailed(error instanceof DocsError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error));
      }
    } while (again);
    building = false;
  };
  return {
    request() {
      if (building) again = true;
      else void run();
    },
    current: () => page,
  };
}
