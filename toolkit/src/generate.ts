/**
 * `npm run generate`: turns each document of the project (`apis:` in redocly.yaml, read by
 * config.ts) into the folder of its `output`.
 * `npm run generate -- --input FILE --out DIR`: the same for any OpenAPI 3.1 document, YAML or
 * JSON, one file or several joined by relative `$ref`s.
 * `--check`: regenerates in memory and fails, naming the files, when an output folder differs.
 * `--scaffold DIR`: also writes a typed handler stub for each operation that has none in DIR.
 *
 * <out>/openapi.json  the bundled document, its schemas as JSON Schema 2020-12 in the forms the
 *   validator compiles (what the server validates against)
 * <out>/openapi-types.ts  openapi-typescript's types (`paths`, `components`, `operations`, `webhooks`)
 * <out>/server.ts  the typed server skeleton: handler types, route table, mountOperations
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OpenAPI3 } from 'openapi-typescript';
import { BundleError, bundleAndReadDocument, type OpenApiDocument } from './codegen/bundle.js';
import type { RejectedExamples } from './codegen/examples.js';
import { GeneratorError, readDocument, type DocumentModel, type Warning } from './codegen/operations.js';
import { scaffoldHandlers } from './codegen/scaffold.js';
import { workAroundMistakes } from './codegen/mistakes.js';
import { renderServerSkeleton } from './codegen/server-skeleton.js';
import { rejectUncompilableSchemas } from './codegen/validator-schemas.js';
import { parseFlags, reportUsageError, runAsMain, type Command } from './cli.js';
import { lintDocument, lintReport } from './lint/lint-document.js';
import { ConfigError, findProjectRoot, projectPath, readProjectConfig, type ProjectConfig } from './config.js';

/** The project the commands work on (config.ts, findProjectRoot). */
export const PROJECT_ROOT = findProjectRoot();
/** What a generated server.ts imports the runtime from: the package's export. */
export const RUNTIME_EXPORT = 'contract-first/runtime';

/** A document of the project and the folder its files go to, relative to the project root. */
export interface ProjectDocument {
  readonly input: string;
  readonly out: string;
  /** Where stubs of new operations go (x-handlers), when the project asks for them. */
  readonly handlers?: string;
}

/** The project's documents (`apis:` of redocly.yaml): what `npm run generate` does with no --input. */
export function projectDocuments(root: string = PROJECT_ROOT): ProjectDocument[] {
  const config = readProjectConfig(root);
  return config.apis.map((api) => ({
    input: projectPath(config, api.root),
    out: projectPath(config, api.out),
    ...(api.handlers === undefined ? {} : { handlers: projectPath(config, api.handlers) }),
  }));
}

export const USAGE = `Usage: contract-first generate [--input FILE --out DIR] [--check] [--scaffold DIR]

  (no --input)     every document of the project (apis: in redocly.yaml), each into the folder
                   of its output
  --input FILE     any OpenAPI 3.1 document, YAML or JSON, one file or several joined by $refs
  --out DIR        where its openapi.json, openapi-types.ts and server.ts go
  --check          write nothing; fail, naming each file, when a folder differs from what its
                   document gives
  --scaffold DIR   also write a typed handler stub for each operation without one in DIR
                   (existing files are never changed); with no --input, for the first document
  --help           show this text`;

export interface GeneratedFile {
  /** Relative to the output folder's parent (the project root for generated/), with forward slashes. */
  readonly path: string;
  readonly content: string;
}

export interface Generation {
  readonly files: readonly GeneratedFile[];
  readonly document: OpenApiDocument;
  readonly model: DocumentModel;
  readonly warnings: readonly Warning[];
  /** The document's examples that do not match their schema, which stubs do not respond with. */
  readonly rejectedExamples: RejectedExamples;
}

const slashed = (p: string): string => p.split(path.sep).join('/');

export interface GenerateOptions {
  /**
   * The runtime's entry module the server.ts imports, as an absolute file (a server generated
   * outside any project, as `serve` does); by default the package's export, `contract-first/runtime`.
   */
  readonly runtime?: string;
  /**
   * Mount each operation at its path as the document writes it, not under the path of each of its
   * servers (`npm run serve` does, unless --under-servers); openapi.json then says so too.
   */
  readonly pathsAsWritten?: boolean;
}

/** The runtime's module as the server.ts in `outDir` imports it. */
function runtimeModule(outDir: string, options: GenerateOptions): string {
  if (options.runtime === undefined) return RUNTIME_EXPORT;
  const relative = slashed(path.relative(outDir, options.runtime));
  return relative.startsWith('.') ? relative : `./${relative}`;
}

/**
 * Generates the three files for `input` (a path relative to `root`, or absolute), into `out`
 * (relative to `root`). Deterministic: the same document gives the same bytes.
 */
export async function generate(
  input: string,
  out: string,
  root: string = PROJECT_ROOT,
  options: GenerateOptions = {},
): Promise<Generation> {
  const source = path.resolve(root, input);
  const shownSource =
    path.isAbsolute(input) && !source.startsWith(`${root}${path.sep}`)
      ? path.basename(source)
      : slashed(path.relative(root, source));
  const notice = `GENERATED by contract-first generate from ${shownSource}. Do not edit: change the document, then run \`npm run generate\`.`;
  const read = await bundleAndReadDocument(source);
  const workedAround = workAroundMistakes(read.document);
  const pathsAsWritten = options.pathsAsWritten === true;
  const model = readDocument(workedAround.document, { pathsAsWritten });
  // A schema the validator cannot compile would fail every request it checks: rejected here instead.
  rejectUncompilableSchemas(workedAround.document);
  // The validator looks for each path under the path of every server: one server without a path.
  const document = pathsAsWritten ? { ...workedAround.document, servers: [{ url: '/' }] } : workedAround.document;

  // JSON has no comments: the notice is the first member, on the first line.
  const json = JSON.stringify(document, null, 2);
  const bundled =
    json === '{}'
      ? `{ "x-generated": ${JSON.stringify(notice)} }\n`
      : `{ "x-generated": ${JSON.stringify(notice)},\n${json.slice(2)}\n`;

  let types: string;
  // Loaded here, not with this module: they load TypeScript, a second or more, which a command
  // that stops at a rejected flag or its usage does not need.
  const { default: openapiTS, astToString } = await import('openapi-typescript');
  const { optionalDefs } = await import('./codegen/defs-types.js');
  try {
    const typed = structuredClone(document);
    const ast = await openapiTS(typed as unknown as OpenAPI3, { silent: true, postTransform: optionalDefs(typed) });
    types = `// ${notice}\n${astToString(ast)}`;
  } catch (error) {
    throw new GeneratorError(
      '#',
      `openapi-typescript cannot read the document: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const server = renderServerSkeleton(model, `// ${notice}`, runtimeModule(path.resolve(root, out), options));
  const dir = slashed(path.normalize(out));
  return {
    files: [
      { path: `${dir}/openapi.json`, content: bundled },
      { path: `${dir}/openapi-types.ts`, content: types },
      { path: `${dir}/server.ts`, content: server },
    ],
    document,
    model,
    warnings: [...read.warnings, ...workedAround.warnings, ...model.warnings],
    rejectedExamples: workedAround.rejectedExamples,
  };
}

/** The files of the project's own documents, each into its output folder. */
export async function generateFiles(root: string = PROJECT_ROOT): Promise<GeneratedFile[]> {
  const files: GeneratedFile[] = [];
  for (const { input, out } of projectDocuments(root)) files.push(...(await generate(input, out, root)).files);
  return files;
}

/**
 * The folders only generate writes (the project's output folders), and the entries inside them
 * that belong to something else: another document's output folder (generated/admin/ inside
 * generated/) and the folder of a reference page that `npm run docs` writes (generated/docs/).
 */
function projectOutputs(root: string): { readonly outputs: ReadonlySet<string>; readonly others: ReadonlySet<string> } {
  let config: ProjectConfig;
  try {
    config = readProjectConfig(root);
  } catch {
    return { outputs: new Set(), others: new Set() };
  }
  const outputs = new Set(config.apis.map((api) => projectPath(config, api.out)));
  const others = new Set([...outputs, ...config.apis.map((api) => projectPath(config, path.dirname(api.docs)))]);
  return { outputs, others };
}

/**
 * Names every file that differs from `files`, is missing, or (in the project's output folders,
 * which only this command writes) should not be there.
 */
export async function findStaleFiles(root: string, files: readonly GeneratedFile[]): Promise<string[]> {
  const stale: string[] = [];
  for (const file of files) {
    const current = await readFile(path.join(root, file.path), 'utf8').catch(() => undefined);
    if (current === undefined) stale.push(`${file.path} (missing)`);
    else if (current !== file.content) stale.push(`${file.path} (differs)`);
  }
  const { outputs, others } = projectOutputs(root);
  const dirs = new Set(files.map((file) => path.posix.dirname(file.path)));
  for (const dir of dirs) {
    if (!outputs.has(dir)) continue;
    const expected = new Set(files.map((file) => file.path));
    const present = await readdir(path.join(root, dir)).catch(() => [] as string[]);
    for (const name of present.sort()) {
      const relative = `${dir}/${name}`;
      if (!expected.has(relative) && !others.has(relative)) stale.push(`${relative} (not generated by the document)`);
    }
  }
  return stale;
}

function printWarnings(warnings: readonly Warning[]): void {
  for (const warning of warnings) console.error(`warning: ${warning.pointer}: ${warning.message}`);
}

export async function main(argv: readonly string[]): Promise<number> {
  const values = parseFlags(
    argv,
    {
      input: { type: 'string' },
      out: { type: 'string' },
      check: { type: 'boolean' },
      scaffold: { type: 'string' },
      help: { type: 'boolean' },
    },
    USAGE,
  );
  if (typeof values === 'number') return values;
  if ((values.input === undefined) !== (values.out === undefined)) {
    return reportUsageError(
      `${values.input === undefined ? '--out needs --input' : '--input needs --out'}: with neither, the project's documents are generated.`,
      USAGE,
    );
  }
  // No --input: every document of the project, each into its own folder.
  let documents: readonly ProjectDocument[];
  try {
    documents =
      values.input === undefined || values.out === undefined
        ? projectDocuments()
        : [{ input: values.input, out: values.out }];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`cannot generate: ${error.message}`);
    return 1;
  }
  // Paths given on the command line are read from where it was typed (npm runs scripts at the root).
  const root = values.out === undefined ? PROJECT_ROOT : (process.env['INIT_CWD'] ?? process.cwd());
  let failed = false;
  for (const [index, { input, out, handlers }] of documents.entries()) {
    const started = performance.now();
    // The toolkit's lint rules, beside the generation (a check of staleness leaves them to `npm run lint`).
    const linting = values.check === true ? undefined : lintDocument(input, root);
    let generation: Generation;
    try {
      generation = await generate(input, out, root);
    } catch (error) {
      if (error instanceof GeneratorError || error instanceof BundleError) {
        console.error(`cannot generate: ${error.message}`);
        return 1;
      }
      throw error;
    } finally {
      if (linting !== undefined)
        for (const line of lintReport(input, await linting.catch((error: unknown) => error))) console.error(line);
    }
    printWarnings(generation.warnings);
    const { files } = generation;
    if (values.check === true) {
      const stale = await findStaleFiles(root, files);
      if (stale.length > 0) {
        console.error(`${out}/ is stale; run \`npm run generate\` and commit the result:\n  ${stale.join('\n  ')}`);
        failed = true;
      } else {
        console.log(`${out}/ is up to date (${files.length} files, ${Math.round(performance.now() - started)} ms)`);
      }
      continue;
    }
    await mkdir(path.resolve(root, out), { recursive: true });
    for (const file of files) await writeFile(path.resolve(root, file.path), file.content);
    console.log(`generated ${files.map((f) => f.path).join(', ')} in ${Math.round(performance.now() - started)} ms`);
    // Stubs: where --scaffold says, for one document (--input's, or with none the first of the
    // project's); else where the project's x-handlers says, for each document that has one.
    const stubs = values.scaffold !== undefined ? (index === 0 ? values.scaffold : undefined) : handlers;
    if (stubs !== undefined) {
      const written = await scaffoldHandlers(generation, path.resolve(root, stubs), path.resolve(root, out));
      if (written.length > 0) console.log(`scaffolded ${written.map((file) => `${stubs}/${file}`).join(', ')}`);
      else if (values.scaffold !== undefined) console.log(`${stubs}/ has a handler for every operation`);
    }
  }
  return failed ? 1 : 0;
}

export const COMMAND: Command = { run: main };
runAsMain(import.meta.url, COMMAND.run, COMMAND.options);
