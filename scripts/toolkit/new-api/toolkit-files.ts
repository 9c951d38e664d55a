/**
 * The toolkit's own files: what `npm run new-api` copies into a new project, and what
 * `npm run new-api -- --update DIR` brings up to date there. They live at the same paths in every
 * project (this one included), so a project uses the toolkit exactly as the others do:
 *
 *   server/toolkit/   the runtime a generated server.ts imports: handler types, route mounting,
 *                     validation, the answer sender, the contract server
 *   scripts/toolkit/  the commands: generate, lint rules, serve, dev, diff:api, release:api,
 *                     docs, docs:check, new-api
 *   patches/          the fixes to express-openapi-validator and to fast-deep-equal (which its
 *                     Ajv compares values with) the runtime relies on, applied by patch-package
 *                     when `npm ci` installs them
 *
 * The toolkit's own tests stay here. A project records the toolkit's files as it received them
 * (scripts/toolkit/installed.json: each file's SHA-256), so that an update can tell a file the
 * project changed from one it did not.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Folders copied whole, relative to a project root. */
const FOLDERS = ['server/toolkit', 'scripts/toolkit'] as const;
/** Patches the runtime needs: those of the libraries it uses. */
const PATCHED = /^(?:express-openapi-validator|fast-deep-equal)\+/;
/** Files of the toolkit's folders that stay in the toolkit's own repository. */
const NOT_COPIED = /\.test(?:-d)?\.ts$/;
/** The record of a project's copy: written by new-api, not copied. */
export const INSTALLED_FILE = 'scripts/toolkit/installed.json';

export interface ToolkitFile {
  /** Relative to the project root, with forward slashes. */
  readonly path: string;
  readonly content: Buffer;
}

export interface InstalledRecord {
  /** Where the files came from: the toolkit's commit, when known. */
  readonly source: string;
  /** Each file's SHA-256 (hex) as it was written. */
  readonly files: Readonly<Record<string, string>>;
}

const slashed = (file: string): string => file.split(path.sep).join('/');

export const sha256 = (content: Buffer | string): string => createHash('sha256').update(content).digest('hex');

function filesUnder(root: string, folder: string): string[] {
  const absolute = path.join(root, folder);
  if (!existsSync(absolute)) return [];
  return readdirSync(absolute, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => slashed(path.relative(root, path.join(entry.parentPath, entry.name))));
}

/** The toolkit's files in the project at `root`, sorted by path. */
export function toolkitFiles(root: string): ToolkitFile[] {
  const paths = [
    ...FOLDERS.flatMap((folder) => filesUnder(root, folder)).filter((file) => !NOT_COPIED.test(file) && file !== INSTALLED_FILE),
    ...filesUnder(root, 'patches').filter((file) => PATCHED.test(path.basename(file))),
  ].sort();
  return paths.map((file) => ({ path: file, content: readFileSync(path.join(root, file)) }));
}

/** The record new-api writes beside the files it copied. */
export function installedRecord(files: readonly ToolkitFile[], source: string): InstalledRecord {
  return { source, files: Object.fromEntries(files.map((file) => [file.path, sha256(file.content)])) };
}

export function readInstalledRecord(root: string): InstalledRecord | undefined {
  const file = path.join(root, INSTALLED_FILE);
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8')) as InstalledRecord;
}
