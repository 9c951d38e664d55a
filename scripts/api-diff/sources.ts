/**
 * Where the documents to compare come from: a file (bundled by Redocly, as `npm run generate`
 * bundles), a released document, or the document as it is at a git commit.
 */
import { spawnSync } from 'node:child_process';
import { constants } from 'node:fs';
import { access, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bundleDocument } from '../codegen/bundle.js';
import { isObject, type Json } from './model.js';

export class SourceError extends Error {
  override readonly name = 'SourceError';
}

export interface LoadedDocument {
  readonly document: Json;
  /** How it is named to the reader: a path relative to the project, or `openapi/ at <ref>`. */
  readonly source: string;
  readonly version: string | undefined;
}

export function versionOf(document: Json): string | undefined {
  if (!isObject(document) || !isObject(document['info'])) return undefined;
  const version = document['info']['version'];
  return typeof version === 'string' ? version : undefined;
}

function loaded(document: Json, source: string): LoadedDocument {
  return { document, source, version: versionOf(document) };
}

/** A document in one file or several (YAML or JSON), bundled. */
export async function loadDocumentFile(file: string, source: string): Promise<LoadedDocument> {
  const readable = await access(file, constants.R_OK).then(
    () => true,
    () => false,
  );
  if (!readable) throw new SourceError(`${source} cannot be read`);
  return loaded((await bundleDocument(file)) as unknown as Json, source);
}

/** A released document: bundled JSON, read as it is. */
export async function loadReleasedDocument(file: string, source: string): Promise<LoadedDocument> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new SourceError(`${source} cannot be read`);
  }
  try {
    return loaded(JSON.parse(text) as Json, source);
  } catch (error) {
    throw new SourceError(`${source} is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function git(root: string, args: readonly string[], input?: Buffer): Buffer {
  const result = spawnSync('git', [...args], { cwd: root, maxBuffer: 256 * 1024 * 1024, ...(input === undefined ? {} : { input }) });
  if (result.error !== undefined) throw new SourceError(`git ${args[0] ?? ''} could not run: ${result.error.message}`);
  if (result.status !== 0) throw new SourceError(`git ${args.join(' ')} failed: ${result.stderr.toString('utf8').trim()}`);
  return result.stdout;
}

/**
 * The document `folder/root` (relative to the project root `root`, a git work tree) as it is at
 * commit `ref`: the folder is extracted from `git archive` into a temporary folder and bundled.
 */
export async function loadDocumentAtRef(root: string, ref: string, folder: string, rootFile: string): Promise<LoadedDocument> {
  if (ref.startsWith('-')) throw new SourceError(`${ref} is not a git revision`);
  let commit: string;
  try {
    commit = git(root, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]).toString('utf8').trim();
  } catch (error) {
    const why = error instanceof SourceError && error.message.endsWith(': ') ? '' : ` (${error instanceof Error ? error.message : String(error)})`;
    throw new SourceError(`${ref} is not a commit of the repository at ${root}${why}`);
  }
  const source = `${folder}/ at ${ref}`;
  const work = await mkdtemp(path.join(tmpdir(), 'diff-api-'));
  try {
    const archive = git(root, ['archive', '--format=tar', `${commit}:./${folder}`]);
    const untar = spawnSync('tar', ['-x', '-f', '-', '-C', work], { input: archive });
    if (untar.error !== undefined || untar.status !== 0) {
      throw new SourceError(`could not extract ${source}: ${untar.error?.message ?? untar.stderr.toString('utf8').trim()}`);
    }
    return await loadDocumentFile(path.join(work, rootFile), `${source} (${folder}/${rootFile})`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
