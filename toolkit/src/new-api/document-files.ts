/**
 * The files of a document: its root and every file it reaches through relative `$ref`s, which a
 * new project copies as they are, keeping where each lies relative to the others.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

/** A `$ref` to another file: neither within the document (`#/…`) nor on the network. */
const isFileReference = (ref: string): boolean => !ref.startsWith('#') && !/^[a-z][a-z0-9+.-]*:/i.test(ref);

function referencesIn(node: unknown, found: string[] = []): string[] {
  if (Array.isArray(node)) {
    for (const item of node) referencesIn(item, found);
  } else if (typeof node === 'object' && node !== null) {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') found.push(value);
      else referencesIn(value, found);
    }
  }
  return found;
}

/** The file a reference names, from the file that holds it (`%7Bid%7D` and `{id}` alike). */
function targetOf(ref: string, from: string): string {
  const file = ref.split('#')[0] ?? '';
  const plain = path.resolve(path.dirname(from), file);
  if (existsSync(plain)) return plain;
  try {
    return path.resolve(path.dirname(from), decodeURIComponent(file));
  } catch {
    return plain;
  }
}

/** A file's content as JSON when it is JSON (a subset of YAML, read far faster), else as YAML. */
function contentOf(text: string): unknown {
  if (/^\s*[{[]/.test(text)) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // YAML's flow style starts so too.
    }
  }
  return parse(text);
}

/**
 * The root file (absolute) and every file reached from it, the root first, then in the order
 * reached; and the root file's content (undefined when it is neither YAML nor JSON).
 */
export function documentFiles(rootFile: string): { readonly files: string[]; readonly root: unknown } {
  const root = path.resolve(rootFile);
  let rootContent: unknown;
  const seen = new Set<string>([root]);
  const queue = [root];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    let parsed: unknown;
    try {
      parsed = contentOf(readFileSync(next, 'utf8'));
      if (next === root) rootContent = parsed;
    } catch {
      // A file that is not YAML or JSON (a Markdown description, an example as text) has no references.
      continue;
    }
    for (const ref of referencesIn(parsed)) {
      if (!isFileReference(ref)) continue;
      const target = targetOf(ref, next);
      if (seen.has(target) || !existsSync(target)) continue;
      seen.add(target);
      queue.push(target);
    }
  }
  return { files: [...seen], root: rootContent };
}
