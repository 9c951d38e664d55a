/**
 * `contract-first new --input FILE --out DIR`: a new project for an OpenAPI 3.1 document: the
 * document (with every file it references), the files the project owns from the start
 * (new-api/project-files.ts and the package's template/), generated/, a typed handler stub per
 * operation, and a package.json and package-lock.json that depend on this package and pin the
 * versions it is tested with. Until the package is on a registry, the project depends on it packed
 * (`vendor/contract-first-<version>.tgz`, new-api/pack.ts). In DIR, `npm ci && npm test` passes and
 * `npm start` serves the document. The project holds no file of this package's own.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { BundleError } from './codegen/bundle.js';
import { GeneratorError, type Warning } from './codegen/operations.js';
import { scaffoldHandlers } from './codegen/scaffold.js';
import { parseFlags, reportUsageError, runAsMain, type Command } from './cli.js';
import { generate } from './generate.js';
import { lintDocument, lintReport, type LintFinding } from './lint/lint-document.js';
import { pinned, PROJECT_DEPENDENCIES, PROJECT_DEV_DEPENDENCIES, type Manifest } from './new-api/dependencies.js';
import { documentFiles } from './new-api/document-files.js';
import { npmCommand, PACKAGE_ROOT, stageToolkit, type StagedToolkit } from './new-api/pack.js';
import { packageNameOf, projectFiles, projectManifest } from './new-api/project-files.js';

export const USAGE = `Usage: contract-first new --input FILE --out DIR [--name NAME] [--toolkit SPEC]

  --input FILE     the OpenAPI 3.1 document, YAML or JSON, one file or several joined by $refs
  --out DIR        the new project's folder: it must not exist, or be empty
  --name NAME      the package's and the API's name (default: from the document's info.title)
  --toolkit SPEC   how the project depends on contract-first: a version on your registry
                   (0.1.0, ^0.1.0) or a packed file (contract-first-0.1.0.tgz, copied into the
                   project); default: this package, packed into the project's vendor/
  --help           show this text`;

/** An error the user can act on: the message says what to do. */
export class NewApiError extends Error {
  override readonly name = 'NewApiError';
}

export interface Output {
  readonly say: (line: string) => void;
  readonly warn: (line: string) => void;
}

function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}

/** The common folder of `files` (absolute). */
function commonFolder(files: readonly string[]): string {
  let folder = path.dirname(files[0] ?? '.');
  while (!files.every((file) => file.startsWith(`${folder}${path.sep}`))) folder = path.dirname(folder);
  return folder;
}

async function writeAll(
  root: string,
  files: ReadonlyArray<{ readonly path: string; readonly content: string | Buffer; readonly executable?: boolean }>,
): Promise<void> {
  for (const file of files) {
    const target = path.join(root, file.path);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, file.content);
    if (file.executable === true) await chmod(target, 0o755);
  }
}

export interface NewApiOptions {
  readonly input: string;
  readonly out: string;
  readonly name?: string;
  /**
   * How the project depends on this package: a packed file (absolute path of a .tgz, copied into
   * vendor/) or a registry version range. Default: this package, packed anew.
   */
  readonly toolkit?: string;
}

export interface NewApiResult {
  readonly root: string;
  readonly name: string;
  readonly operations: number;
  readonly files: number;
  readonly milliseconds: number;
  /** Set when the lock file could not be written: what npm said. */
  readonly lockfileError?: string;
}

/**
 * The rules whose errors the generator works around (it carried the document all the same): each
 * rule with its findings as the project's redocly.yaml lists them, the generator's notes included.
 */
function mistakesOf(
  findings: readonly LintFinding[],
  warnings: readonly Warning[],
  projectPathOf: (file: string) => string,
): Record<string, string[]> {
  const mistakes: Record<string, string[]> = {};
  for (const finding of findings.filter((found) => found.severity === 'error')) {
    (mistakes[finding.ruleId] ??= []).push(
      `${projectPathOf(finding.file)}:${finding.line} ${finding.pointer}: ${finding.message}`,
    );
  }
  const notes = warnings.map((warning) => `${warning.pointer}: ${warning.message}`);
  const first = Object.keys(mistakes)[0];
  if (first !== undefined && notes.length > 0)
    mistakes[first] = [...(mistakes[first] ?? []), "the generator's notes:", ...notes];
  return mistakes;
}

/** Runs npm in `cwd`; resolves to its error output when it fails. */
function npm(args: readonly string[], cwd: string): Promise<string | undefined> {
  const { command, args: all } = npmCommand(args);
  return new Promise((resolve) => {
    execFile(command, all, { cwd, maxBuffer: 64 * 1024 * 1024 }, (error, _stdout, stderr) =>
      resolve(error ? stderr.trim() || error.message : undefined),
    );
  });
}

/** Writes the new project; throws NewApiError, GeneratorError or BundleError when it cannot. */
export async function newApi(options: NewApiOptions, output: Output): Promise<NewApiResult> {
  const started = performance.now();
  const input = path.resolve(options.input);
  const out = path.resolve(options.out);
  if (!existsSync(input)) throw new NewApiError(`${options.input} does not exist`);
  if (existsSync(out) && readdirSync(out).length > 0)
    throw new NewApiError(`${options.out} is not empty: name a new folder`);
  const spec = options.toolkit ?? '';
  const isVersion = spec !== '' && !spec.endsWith('.tgz');
  if (!isVersion && spec !== '' && !existsSync(spec))
    throw new NewApiError(`--toolkit ${spec} does not exist: name a packed contract-first (.tgz) or a version`);

  // The document's files, where they lie relative to each other, under openapi/.
  const { files: sources, root } = documentFiles(input);
  const base = commonFolder(sources);
  const single = sources.length === 1;
  const documentPath = single
    ? `openapi/openapi${path.extname(input) || '.yaml'}`
    : `openapi/${path.relative(base, input).split(path.sep).join('/')}`;
  const documentCopies = sources.map((source) => ({
    path: single ? documentPath : `openapi/${path.relative(base, source).split(path.sep).join('/')}`,
    content: readFileSync(source),
  }));
  const info = (root as { info?: { title?: unknown } } | undefined)?.info;
  const title =
    typeof info?.title === 'string' && info.title.trim() !== ''
      ? info.title.trim()
      : path.basename(input).replace(/\.[^.]+$/, '');
  const name = options.name ?? packageNameOf(title);
  if (!/^[a-z0-9][a-z0-9._-]*$/.test(name))
    throw new NewApiError(`--name ${name} is not an npm package name: lower-case letters, digits, '.', '_' and '-'`);

  const manifest = readJson<Manifest>(path.join(PACKAGE_ROOT, 'package.json'));
  const devDependencies = pinned(PROJECT_DEV_DEPENDENCIES, manifest);
  const engines = manifest.engines ?? {};
  let packing: string | undefined;
  let lockfileError: string | undefined;
  let locking: Promise<string | undefined> | undefined;
  let staged: StagedToolkit | undefined;
  let operations: number;
  await mkdir(out, { recursive: true });
  try {
    await writeAll(out, documentCopies);
    // Together: the toolkit's rules and the generator on the project's copy of the document, and
    // this package packed for the project's vendor/ (unless it names a registry version or a file),
    // then the lock file, which needs only package.json and the package. The package's files are
    // staged first: the generator keeps this thread busy, npm packs and locks in processes of its own.
    packing = isVersion || spec !== '' ? undefined : await mkdtemp(path.join(os.tmpdir(), 'contract-first-new-'));
    staged = packing === undefined ? undefined : await stageToolkit();
    const packed =
      packing === undefined || staged === undefined
        ? Promise.resolve(isVersion ? undefined : spec)
        : staged.pack(packing);
    const dependencies = packed.then((file) => ({
      'contract-first': file === undefined ? spec : `file:vendor/${path.basename(file)}`,
      ...pinned(PROJECT_DEPENDENCIES, manifest),
    }));
    locking = Promise.all([packed, dependencies]).then(async ([file, declared]) => {
      await writeAll(out, [
        {
          path: 'package.json',
          content: projectManifest({
            name,
            title,
            document: documentPath,
            engines,
            dependencies: declared,
            devDependencies,
          }),
        },
      ]);
      if (file !== undefined) {
        await mkdir(path.join(out, 'vendor'), { recursive: true });
        await copyFile(file, path.join(out, 'vendor', path.basename(file)));
      }
      // The lock file, as npm writes it: from its cache where it can, else from the registry.
      return npm(
        ['install', '--package-lock-only', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'],
        out,
      );
    });
    const copy = path.join(out, documentPath);
    const linting = lintDocument(copy, process.cwd()).catch((error: unknown) => error);
    const generation = await generate(documentPath, 'generated', out);
    operations = generation.model.operations.length;

    const findings = await linting;
    for (const line of lintReport(path.relative(process.cwd(), copy), findings)) output.warn(line);
    for (const warning of generation.warnings) output.warn(`warning: ${warning.pointer}: ${warning.message}`);
    // Findings name the files as the project holds them.
    const mistakes = Array.isArray(findings)
      ? mistakesOf(findings as LintFinding[], generation.warnings, (file) =>
          path.relative(out, path.resolve(file)).split(path.sep).join('/'),
        )
      : {};
    if (Object.keys(mistakes).length > 0) {
      output.warn(
        `lint: the generator works around these errors; the new project's redocly.yaml makes ${Object.keys(mistakes).join(', ')} warnings until they are mended`,
      );
    }
    const facts = {
      name,
      title,
      document: documentPath,
      securitySchemes: generation.model.securitySchemes,
      operations: generation.model.operations.map((op) => ({ method: op.method, path: op.path, key: op.key })),
      serverBase: generation.model.serverBases[0] ?? '',
      dependencies: await dependencies,
      devDependencies,
      engines,
      mistakes,
    };
    await writeAll(
      out,
      projectFiles(facts).filter((file) => file.path !== 'package.json'),
    );
    await writeAll(out, generation.files);
    await scaffoldHandlers(generation, path.join(out, 'server/handlers'), path.join(out, 'generated'), {
      contextType: { name: 'Context', from: '../context.js' },
    });
    lockfileError = await locking;
    staged = undefined;
  } catch (error) {
    await locking?.catch(() => undefined);
    await staged?.discard();
    await rm(out, { recursive: true, force: true });
    throw error;
  } finally {
    if (packing !== undefined) await rm(packing, { recursive: true, force: true });
  }
  const files = readdirSync(out, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).length;
  return {
    root: out,
    name,
    operations,
    files,
    milliseconds: performance.now() - started,
    ...(lockfileError === undefined ? {} : { lockfileError }),
  };
}

export async function main(argv: readonly string[]): Promise<number> {
  const values = parseFlags(
    argv,
    {
      input: { type: 'string' },
      out: { type: 'string' },
      name: { type: 'string' },
      toolkit: { type: 'string' },
      help: { type: 'boolean' },
    },
    USAGE,
  );
  if (typeof values === 'number') return values;
  // Paths on the command line are read from where it was typed (npm runs scripts at the root).
  const here = process.env['INIT_CWD'] ?? process.cwd();
  const output: Output = { say: (line) => console.log(line), warn: (line) => console.error(line) };
  if (values.input === undefined || values.out === undefined)
    return reportUsageError('--input and --out are required', USAGE);
  const toolkit =
    values.toolkit === undefined
      ? undefined
      : values.toolkit.endsWith('.tgz')
        ? path.resolve(here, values.toolkit)
        : values.toolkit;
  try {
    const result = await newApi(
      {
        input: path.resolve(here, values.input),
        out: path.resolve(here, values.out),
        ...(values.name === undefined ? {} : { name: values.name }),
        ...(toolkit === undefined ? {} : { toolkit }),
      },
      output,
    );
    const relative = path.relative(here, result.root);
    const shown = relative === '' ? '.' : relative.startsWith('..') ? result.root : relative;
    output.say(
      `new: wrote ${shown}/ (${result.name}: ${result.operations} operations, ${result.files} files) in ${(result.milliseconds / 1000).toFixed(1)} s`,
    );
    if (result.lockfileError !== undefined) {
      output.warn(
        `new: package-lock.json could not be written (npm: ${result.lockfileError.split('\n').slice(-3).join(' ')}): run \`npm install\` there instead of \`npm ci\``,
      );
      output.say(`next:\n  cd ${shown}\n  npm install && npm test\n  npm start`);
    } else {
      output.say(`next:\n  cd ${shown}\n  npm ci && npm test\n  npm start`);
    }
    return 0;
  } catch (error) {
    if (error instanceof NewApiError || error instanceof GeneratorError || error instanceof BundleError) {
      console.error(`new: ${error.message}`);
      return 1;
    }
    throw error;
  }
}

export const COMMAND: Command = { run: main };
runAsMain(import.meta.url, COMMAND.run, COMMAND.options);
