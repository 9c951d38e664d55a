/**
 * What a saved file asks of `npm run dev`. A change to a document (any file in the folder of one
 * of the project's documents: its paths, components, lint plugin) or to redocly.yaml is linted,
 * generated, type-checked and restarts the server; a change to the server's code is type-checked
 * and restarts it; a change a build of `x-dev` watches runs that build and restarts the server; a
 * change to the client or a test is type-checked only: the server does not run it.
 */
import path from 'node:path';
import { CONFIG_FILE, type DevBuild } from '../config.js';

/** `document`, `server`, `code`, or the index in `builds` of the build the change asks for. */
export type ChangeKind = 'document' | 'server' | 'code' | number;

/** What decides a change's kind: the folders of the project's documents, and its builds. */
export interface ChangeRules {
  /** Folders relative to the project root, with a trailing slash (`openapi/`). */
  readonly documentDirs: readonly string[];
  readonly builds: readonly DevBuild[];
}

/** The folders `npm run dev` watches besides the documents', relative to the project root. */
export const CODE_DIRS = ['server', 'client'] as const;

const TEST_FILE = /\.test(?:-d)?\.ts$/;

function slashed(relativePath: string): string {
  return relativePath.split(path.sep).join('/');
}

/** What a change to `relativePath` (relative to the project root) asks for; undefined: nothing. */
export function classifyChange(relativePath: string, rules: ChangeRules): ChangeKind | undefined {
  const file = slashed(relativePath);
  if (file === CONFIG_FILE) return 'document';
  // The document, and any lint plugin it keeps beside it.
  if (rules.documentDirs.some((dir) => file.startsWith(dir)))
    return /\.(?:ya?ml|json|[cm]?js)$/.test(file) ? 'document' : undefined;
  const build = rules.builds.findIndex(
    (candidate) =>
      file.startsWith(candidate.watch) &&
      !TEST_FILE.test(file) &&
      (candidate.extensions.length === 0 || candidate.extensions.some((end) => file.endsWith(end))),
  );
  if (build >= 0) return build;
  if (!file.endsWith('.ts')) return undefined;
  if (file.startsWith('server/')) return TEST_FILE.test(file) ? 'code' : 'server';
  if (file.startsWith('client/')) return 'code';
  return undefined;
}

/** A file the server runs: server/ without its tests, and generated/. Its type errors hold a restart back. */
export function isServerFile(relativePath: string): boolean {
  const file = slashed(relativePath);
  if (file.startsWith('generated/')) return true;
  return file.startsWith('server/') && !TEST_FILE.test(file);
}
