/**
 * A copy of this project in a temporary folder, for `npm run dev -- --root DIR` to work on
 * without touching the repository: the documents, the server, the SDK, generated/, the scripts,
 * the toolkit's configuration, the compiler and package settings, and a link to the repository's node_modules (so the copy's server and
 * type checker load the very packages, patches included, of the repository).
 */
import { cp, mkdtemp, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPOSITORY = fileURLToPath(new URL('../', import.meta.url));
const COPIED = [
  'openapi',
  'server',
  'client',
  'generated',
  'scripts',
  'redocly.yaml',
  'tsconfig.json',
  'package.json',
] as const;

export interface ProjectCopy {
  readonly root: string;
  remove(): Promise<void>;
}

export async function copyProject(prefix = 'dev-loop-'): Promise<ProjectCopy> {
  const root = await mkdtemp(path.join(os.tmpdir(), prefix));
  for (const entry of COPIED) {
    await cp(path.join(REPOSITORY, entry), path.join(root, entry), {
      recursive: true,
      // generated/docs/ is the output of npm run docs: rebuilt in the copy.
      filter: (source) => path.relative(path.join(REPOSITORY, 'generated'), source) !== 'docs',
    });
  }
  await symlink(path.join(REPOSITORY, 'node_modules'), path.join(root, 'node_modules'), 'dir');
  return { root, remove: () => rm(root, { recursive: true, force: true }) };
}
