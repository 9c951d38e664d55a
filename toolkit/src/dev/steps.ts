/**
 * The steps of `npm run dev` on the project's documents (`apis:` of redocly.yaml): lint (Redocly,
 * with the project's redocly.yaml, as `npm run lint`), generation (bundle and generate, as
 * `npm run generate`, first in memory) and the reference pages (`npm run docs`).
 */
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { BundleError } from '../codegen/bundle.js';
import { GeneratorError } from '../codegen/operations.js';
import { ConfigError } from '../config.js';
import { buildDocs, DocsError, projectDocsPaths } from '../docs.js';
import { meaningfulLines, runRedocly, type CommandResult } from '../redocly.js';
import { generate, projectDocuments, type GeneratedFile } from '../generate.js';

export interface StepResult {
  readonly ok: boolean;
  /** What the tool printed that is worth reading (its findings, with file and line). */
  readonly report: string;
  readonly milliseconds: number;
}

/**
 * `redocly lint` of the root's documents (its redocly.yaml's `apis:`), run in the root so that
 * each finding names its file as `openapi/…:line:column`, with the lines around it.
 */
export async function lint(root: string): Promise<StepResult> {
  const started = performance.now();
  const args = ['lint', '--max-problems', '1000', '--format', 'codeframe'];
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
  | {
      readonly ok: true;
      readonly files: readonly GeneratedFile[];
      readonly warnings: readonly string[];
      readonly milliseconds: number;
    }
  | { readonly ok: false; readonly message: string; readonly milliseconds: number };

/** `npm run generate` of the root's documents, in memory: nothing is written. */
export async function generateInMemory(root: string): Promise<Generation> {
  const started = performance.now();
  try {
    const files: GeneratedFile[] = [];
    const warnings: string[] = [];
    for (const { input, out } of projectDocuments(root)) {
      const generation = await generate(input, out, root);
      files.push(...generation.files);
      warnings.push(...generation.warnings.map((warning) => `${input} ${warning.pointer}: ${warning.message}`));
    }
    return { ok: true, files, warnings, milliseconds: performance.now() - started };
  } catch (error) {
    if (!(error instanceof GeneratorError || error instanceof BundleError || error instanceof ConfigError)) throw error;
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
  /** Builds the reference pages again (after the build under way, if one is). */
  request(): void;
  /** A page as last built, or why there is none; `name` is its file's name without `.html` (`index`, `orders`). */
  current(name: string): { readonly html: string } | { readonly missing: string } | undefined;
}

/**
 * `npm run docs` of the root's documents, each into its page (x-docs), one build at a time;
 * a request during a build runs one more build after it, however many came.
 */
export function createDocsBuilder(
  root: string,
  onBuilt: (milliseconds: number) => void,
  onFailed: (message: string) => void,
): DocsBuilder {
  const pages = projectDocsPaths(root);
  const built = new Map<string, { html: string }>();
  const missing = {
    missing: 'The reference is built once the document passes lint; this page reloads when it is ready.',
  };
  let building = false;
  let again = false;
  const run = async (): Promise<void> => {
    building = true;
    do {
      again = false;
      const started = performance.now();
      try {
        for (const paths of pages) {
          const page = await buildDocs(paths);
          built.set(path.basename(page.output, '.html'), { html: await readFile(page.output, 'utf8') });
        }
        onBuilt(performance.now() - started);
      } catch (error) {
        onFailed(
          error instanceof DocsError
            ? error.message
            : error instanceof Error
              ? (error.stack ?? error.message)
              : String(error),
        );
      }
    } while (again);
    building = false;
  };
  return {
    request() {
      if (building) again = true;
      else void run();
    },
    current(name) {
      if (!pages.some((paths) => path.basename(paths.output, '.html') === name)) return undefined;
      return built.get(name) ?? missing;
    },
  };
}
