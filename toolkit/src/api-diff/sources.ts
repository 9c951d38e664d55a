/**
 * Where the documents to compare come from: a file (bundled by Redocly, as `npm run generate`
 * bundles), a released document, or the document as it is at a git commit.
 */
import { spawnSync } from 'node:child_process';
import { constants } from 'node:fs';
import { access, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BundleError, bundleDocument } from '../codegen/bundle.js';
import { isObject, type Json } from './model.js';

export class SourceError extends Error {
  override readonly name = 'SourceError';
}

export interface LoadedDocument {
  readonly document: Json;
  /** How it is named to the reader: a path relative to the project, or `<document> at <ref>` for one read from git. */
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
  const result = spawnSync('git', [...args], {
    cwd: root,
    maxBuffer: 256 * 1024 * 1024,
    ...(input === undefined ? {} : { input }),
  });
  if (result.error !== undefined) throw new SourceError(`git ${args[0] ?? ''} could not run: ${result.error.message}`);
  if (result.status !== 0)
    throw new SourceError(`git ${args.join(' ')} failed: ${result.stderr.toString('utf8').trim()}`);
  return result.stdout;
}

/** The project as it is at a git commit, extracted once to read any of its documents from. */
export interface ProjectAtRef {
  /** The revision as the user named it. */
  readonly ref: string;
  /**
   * The document whose root file is `file` (relative to the project root, forward slashes) as it
   * is at the commit, bundled; undefined when the commit has no such file (an API added since).
   */
  load(file: string): Promise<LoadedDocument | undefined>;
  /** Removes the extracted copy. */
  close(): Promise<void>;
}

/**
 * The project `root` (inside a git work tree) as it is at commit `ref`. The project's whole tree
 * is extracted from `git archive`, not only a document's folder: a document may reference files
 * anywhere in the project (one API's document sharing another's components, in a sibling folder).
 */
export async function openProjectAtRef(root: string, ref: string): Promise<ProjectAtRef> {
  if (ref.startsWith('-')) throw new SourceError(`${ref} is not a git revision`);
  let commit: string;
  try {
    commit = git(root, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`])
      .toString('utf8')
      .trim();
  } catch (error) {
    const why =
      error instanceof SourceError && error.message.endsWith(': ')
        ? ''
        : ` (${error instanceof Error ? error.message : String(error)})`;
    throw new SourceError(`${ref} is not a commit of the repository at ${root}${why}`);
  }
  const work = await mkdtemp(path.join(tmpdir(), 'diff-api-'));
  try {
    // The project's folder need not be the repository's top. `git archive` run inside a subfolder
    // rejects a tree of the commit, so it runs at the top, on the tree of the project's folder.
    const top = git(root, ['rev-parse', '--show-toplevel']).toString('utf8').trim();
    const prefix = git(root, ['rev-parse', '--show-prefix']).toString('utf8').trim();
    const archive = git(top, ['archive', '--format=tar', `${commit}:${prefix}`]);
    const untar = spawnSync('tar', ['-x', '-f', '-', '-C', work], { input: archive });
    if (untar.error !== undefined || untar.status !== 0) {
      throw new SourceError(
        `could not extract the project at ${ref}: ${untar.error?.message ?? untar.stderr.toString('utf8').trim()}`,
      );
    }
  } catch (error) {
    await rm(work, { recursive: true, force: true });
    throw error;
  }
  return {
    ref,
    async load(file) {
      const extracted = path.join(work, ...file.split('/'));
      const present = await access(extracted, constants.R_OK).then(
        () => true,
        () => false,
      );
      if (!present) return undefined;
      try {
        return await loadDocumentFile(extracted, `${file} at ${ref}`);
      } catch (error) {
        // Name the files as git does (`<ref>:./<path>`, from the project root), not by the temporary folder.
        if (error instanceof BundleError)
          throw new SourceError(error.message.replaceAll(`${work}${path.sep}`, `${ref}:./`));
        throw error;
      }
    },
    close: () => rm(work, { recursive: true, force: true }),
  };
}
