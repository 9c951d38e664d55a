/**
 * `npm run new-api -- --input FILE --out DIR`: a new project for an OpenAPI 3.1 document, standing
 * on its own: the document (with every file it references), the toolkit's files (toolkit-files.ts),
 * the files the project owns from the start (new-api/project-files.ts and template/), generated/,
 * a typed handler stub per operation, and a package.json and package-lock.json that pin the
 * versions this toolkit is tested with. In DIR, `npm ci && npm test` passes and `npm start` serves
 * the document.
 *
 * `npm run new-api -- --update DIR`: brings the toolkit's files of the project in DIR up to this
 * toolkit's, and the versions of the packages they use; a file the project changed since it was
 * given is left as it is unless --force. It prints what it changes; --dry-run only prints.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BundleError } from './codegen/bundle.js';
import { GeneratorError } from './codegen/operations.js';
import { scaffoldHandlers } from './codegen/scaffold.js';
import { parseFlags, refuseUsage, runAsMain } from './cli.js';
import { generate, PROJECT_ROOT } from './generate.js';
import { lintDocument, lintReport, type LintFinding } from './lint/lint-document.js';
import { pinned, RUNTIME_PACKAGES, TOOL_PACKAGES, type Manifest } from './new-api/dependencies.js';
import { documentFiles } from './new-api/document-files.js';
import { pruneLockfile, serializeLockfile, type LockfileV3, type PackageManifest } from './new-api/lockfile.js';
import { packageNameOf, projectFiles } from './new-api/project-files.js';
import { INSTALLED_FILE, installedRecord, readInstalledRecord, sha256, toolkitFiles, type InstalledRecord } from './new-api/toolkit-files.js';

export const USAGE = `Usage: npm run new-api -- --input FILE --out DIR [--name NAME]
       npm run new-api -- --update DIR [--dry-run] [--force]

  --input FILE   the OpenAPI 3.1 document, YAML or JSON, one file or several joined by $refs
  --out DIR      the new project's folder: it must not exist, or be empty
  --name NAME    the package's and the API's name (default: from the document's info.title)
  --update DIR   bring the toolkit's files of the project in DIR up to this toolkit's
  --dry-run      with --update: print what would change, change nothing
  --force        with --update: replace files of the toolkit the project has changed too
  --help         show this text`;

/** What the toolkit's files are copied from: this project. */
const TOOLKIT_ROOT = PROJECT_ROOT;

/** A refusal the user can act on: the message says what to do. */
export class NewApiError extends Error {
  override readonly name = 'NewApiError';
}

export interface Output {
  readonly say: (line: string) => void;
  readonly warn: (line: string) => void;
}

/** The toolkit's commit, when it is a git checkout; the record says where a project's files came from. */
function toolkitSource(): string {
  try {
    return `git ${execFileSync('git', ['rev-parse', 'HEAD'], { cwd: TOOLKIT_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()}`;
  } catch {
    return 'a copy of the toolkit outside git';
  }
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

async function writeAll(root: string, files: ReadonlyArray<{ readonly path: string; readonly content: string | Buffer; readonly executable?: boolean }>): Promise<void> {
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
}

export interface NewApiResult {
  readonly root: string;
  readonly name: string;
  readonly operations: number;
  readonly files: number;
  readonly milliseconds: number;
}

/** Writes the new project; throws NewApiError, GeneratorError or BundleError when it cannot. */
export async function newApi(options: NewApiOptions, output: Output): Promise<NewApiResult> {
  const started = performance.now();
  const input = path.resolve(options.input);
  const out = path.resolve(options.out);
  if (!existsSync(input)) throw new NewApiError(`${options.input} does not exist`);
  if (existsSync(out) && readdirSync(out).length > 0) throw new NewApiError(`${options.out} is not empty: name a new folder`);

  // The toolkit's rules, printed; the generator then says whether it can carry the document.
  const linting = lintDocument(input, process.cwd()).catch((error: unknown) => error);
  const probe = await generate(input, path.join(out, 'generated'), TOOLKIT_ROOT);
  const findings = await linting;
  for (const line of lintReport(options.input, findings)) output.warn(line);
  if (Array.isArray(findings) && findings.some((finding: LintFinding) => finding.severity === 'error')) {
    output.warn('lint: `npm test` in the new project fails until these errors are corrected (`npm run lint` there shows them)');
  }
  for (const warning of probe.warnings) output.warn(`warning: ${warning.pointer}: ${warning.message}`);

  const info = (probe.document['info'] ?? {}) as { title?: unknown };
  const title = typeof info.title === 'string' && info.title.trim() !== '' ? info.title.trim() : path.basename(input).replace(/\.[^.]+$/, '');
  const name = options.name ?? packageNameOf(title);
  if (!/^[a-z0-9][a-z0-9._-]*$/.test(name)) throw new NewApiError(`--name ${name} is not an npm package name: lower-case letters, digits, '.', '_' and '-'`);

  // The document's files, where they lie relative to each other, under openapi/.
  const sources = documentFiles(input);
  const base = commonFolder(sources);
  const single = sources.length === 1;
  const documentPath = single ? `openapi/openapi${path.extname(input) || '.yaml'}` : `openapi/${path.relative(base, input).split(path.sep).join('/')}`;
  const documentCopies = sources.map((source) => ({
    path: single ? documentPath : `openapi/${path.relative(base, source).split(path.sep).join('/')}`,
    content: readFileSync(source),
  }));

  // The toolkit's files, and the record of them.
  const toolkit = toolkitFiles(TOOLKIT_ROOT);
  const record = installedRecord(toolkit, toolkitSource());

  // package.json and a lock file that pins what this toolkit's project has installed.
  const host = readJson<Manifest & { engines?: Record<string, string> }>(path.join(TOOLKIT_ROOT, 'package.json'));
  const owned = projectFiles({
    name,
    title,
    document: documentPath,
    securitySchemes: probe.model.securitySchemes,
    operations: probe.model.operations.map((op) => ({ method: op.method, path: op.path, key: op.key })),
    serverBase: probe.model.serverBases[0] ?? '',
    dependencies: pinned(RUNTIME_PACKAGES, host),
    devDependencies: pinned(TOOL_PACKAGES, host),
    engines: host.engines ?? {},
  });
  const manifest = JSON.parse(owned.find((file) => file.path === 'package.json')?.content ?? '{}') as PackageManifest;
  const lock = pruneLockfile(readJson<LockfileV3>(path.join(TOOLKIT_ROOT, 'package-lock.json')), manifest);

  await mkdir(out, { recursive: true });
  try {
    await writeAll(out, documentCopies);
    await writeAll(out, toolkit);
    await writeAll(out, [{ path: INSTALLED_FILE, content: `${JSON.stringify(record, null, 2)}\n` }]);
    await writeAll(out, owned);
    await writeAll(out, [{ path: 'package-lock.json', content: serializeLockfile(lock) }]);
    // generated/, from the project's own copy of the document and against its own runtime.
    const generation = await generate(documentPath, 'generated', out);
    await writeAll(out, generation.files);
    await scaffoldHandlers(generation, path.join(out, 'server/handlers'), path.join(out, 'generated'), { contextType: { name: 'Context', from: '../context.js' } });
  } catch (error) {
    await rm(out, { recursive: true, force: true });
    throw error;
  }
  const files = readdirSync(out, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).length;
  return { root: out, name, operations: probe.model.operations.length, files, milliseconds: performance.now() - started };
}

/** What an update does to one file. */
export interface UpdateStep {
  readonly path: string;
  readonly action: 'add' | 'replace' | 'remove' | 'keep-edited' | 'replace-edited' | 'remove-edited' | 'keep-unrecorded';
}

export interface UpdatePlan {
  readonly steps: readonly UpdateStep[];
  /** Packages whose pinned version changes: `name: from → to`. */
  readonly packages: ReadonlyArray<{ readonly name: string; readonly from: string | undefined; readonly to: string }>;
}

/** What `--update` would do to the project at `root`. */
export function planUpdate(root: string, force: boolean): UpdatePlan {
  const record = readInstalledRecord(root);
  if (record === undefined) throw new NewApiError(`${root} has no ${INSTALLED_FILE}: it is not a project new-api made`);
  const next = toolkitFiles(TOOLKIT_ROOT);
  const current = new Map(toolkitFiles(root).map((file) => [file.path, file.content]));
  const steps: UpdateStep[] = [];
  const edited = (file: string, content: Buffer): boolean => record.files[file] !== sha256(content);
  for (const file of next) {
    const present = current.get(file.path);
    if (present === undefined) {
      steps.push({ path: file.path, action: 'add' });
    } else if (!present.equals(file.content)) {
      if (record.files[file.path] === undefined) steps.push({ path: file.path, action: force ? 'replace-edited' : 'keep-unrecorded' });
      else if (edited(file.path, present)) steps.push({ path: file.path, action: force ? 'replace-edited' : 'keep-edited' });
      else steps.push({ path: file.path, action: 'replace' });
    }
  }
  const kept = new Set(next.map((file) => file.path));
  for (const [file, content] of current) {
    if (kept.has(file) || record.files[file] === undefined) continue;
    steps.push({ path: file, action: edited(file, content) && !force ? 'keep-edited' : edited(file, content) ? 'remove-edited' : 'remove' });
  }
  const host = readJson<Manifest>(path.join(TOOLKIT_ROOT, 'package.json'));
  const project = readJson<Manifest>(path.join(root, 'package.json'));
  const wanted = { ...pinned(RUNTIME_PACKAGES, host), ...pinned(TOOL_PACKAGES, host) };
  const have = { ...project.devDependencies, ...project.dependencies };
  const packages = Object.entries(wanted)
    .filter(([name, version]) => have[name] !== version)
    .map(([name, to]) => ({ name, from: have[name], to }));
  return { steps: steps.sort((a, b) => a.path.localeCompare(b.path)), packages };
}

/** Carries out a plan: the files, the record, and the versions in package.json (then `npm install` is the user's). */
export async function applyUpdate(root: string, plan: UpdatePlan): Promise<void> {
  const next = new Map(toolkitFiles(TOOLKIT_ROOT).map((file) => [file.path, file.content]));
  const record = readInstalledRecord(root) as InstalledRecord;
  const files: Record<string, string> = { ...record.files };
  for (const step of plan.steps) {
    const content = next.get(step.path);
    if ((step.action === 'add' || step.action === 'replace' || step.action === 'replace-edited') && content !== undefined) {
      await writeAll(root, [{ path: step.path, content }]);
      files[step.path] = sha256(content);
    } else if (step.action === 'remove' || step.action === 'remove-edited') {
      await rm(path.join(root, step.path), { force: true });
      delete files[step.path];
    }
  }
  await writeAll(root, [{ path: INSTALLED_FILE, content: `${JSON.stringify({ source: toolkitSource(), files }, null, 2)}\n` }]);
  if (plan.packages.length > 0) {
    const manifestPath = path.join(root, 'package.json');
    const manifest = readJson<Record<string, Record<string, string> | unknown>>(manifestPath);
    for (const { name, to } of plan.packages) {
      const list = (RUNTIME_PACKAGES as readonly string[]).includes(name) ? 'dependencies' : 'devDependencies';
      const other = list === 'dependencies' ? 'devDependencies' : 'dependencies';
      const entries = { ...((manifest[list] ?? {}) as Record<string, string>), [name]: to };
      const rest = { ...((manifest[other] ?? {}) as Record<string, string>) };
      delete rest[name];
      manifest[list] = Object.fromEntries(Object.entries(entries).sort(([a], [b]) => a.localeCompare(b)));
      manifest[other] = rest;
    }
    await writeFile(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  }
}

const WORDS: Record<UpdateStep['action'], string> = {
  add: 'add',
  replace: 'update',
  remove: 'remove (no longer in the toolkit)',
  'keep-edited': 'keep: the project changed it (--force replaces it)',
  'replace-edited': 'update, replacing the project\'s changes (--force)',
  'remove-edited': 'remove, with the project\'s changes (--force)',
  'keep-unrecorded': 'keep: not the file the toolkit gave (--force replaces it)',
};

async function main(argv: readonly string[]): Promise<number> {
  const values = parseFlags(
    argv,
    { input: { type: 'string' }, out: { type: 'string' }, name: { type: 'string' }, update: { type: 'string' }, 'dry-run': { type: 'boolean' }, force: { type: 'boolean' }, help: { type: 'boolean' } },
    USAGE,
  );
  if (typeof values === 'number') return values;
  // Paths on the command line are read from where it was typed (npm runs scripts at the root).
  const here = process.env['INIT_CWD'] ?? process.cwd();
  const output: Output = { say: (line) => console.log(line), warn: (line) => console.error(line) };
  try {
    if (values.update !== undefined) {
      if (values.input !== undefined || values.out !== undefined) {
        return refuseUsage('--update takes neither --input nor --out', USAGE);
      }
      const root = path.resolve(here, values.update);
      const plan = planUpdate(root, values.force === true);
      for (const step of plan.steps) output.say(`${step.path}: ${WORDS[step.action]}`);
      for (const change of plan.packages) output.say(`package.json: ${change.name} ${change.from ?? '(none)'} → ${change.to}`);
      if (plan.steps.length === 0 && plan.packages.length === 0) {
        output.say(`${values.update} has this toolkit's files already`);
        return 0;
      }
      if (values['dry-run'] === true) return 0;
      await applyUpdate(root, plan);
      output.say(`updated ${values.update}${plan.packages.length > 0 ? ': run `npm install` there, then `npm test`' : ': run `npm test` there'}`);
      return 0;
    }
    if (values.input === undefined || values.out === undefined) {
      return refuseUsage('--input and --out are required', USAGE);
    }
    const result = await newApi({ input: path.resolve(here, values.input), out: path.resolve(here, values.out), ...(values.name === undefined ? {} : { name: values.name }) }, output);
    const relative = path.relative(here, result.root);
    const shown = relative === '' ? '.' : relative.startsWith('..') ? result.root : relative;
    output.say(`new-api: wrote ${shown}/ (${result.name}: ${result.operations} operations, ${result.files} files) in ${(result.milliseconds / 1000).toFixed(1)} s`);
    output.say(`next:\n  cd ${shown}\n  npm ci && npm test\n  npm start`);
    return 0;
  } catch (error) {
    if (error instanceof NewApiError || error instanceof GeneratorError || error instanceof BundleError) {
      console.error(`new-api: ${error.message}`);
      return 1;
    }
    throw error;
  }
}

runAsMain(import.meta.url, main);
