/**
 * The service's speed mechanisms, and how `npm run bench -- --without NAME` turns each one off to
 * measure what it earns: the chosen runs again, in the same invocation, against a service started
 * without it on the same database.
 *
 * Most are turned off by a variable the service reads at start. Patch 003 of
 * express-openapi-validator is turned off by running the service from a copy of the project whose
 * node_modules has that one patch reversed.
 */
import { spawnSync } from 'node:child_process';
import { cp, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DatabaseKind } from './database.js';

export const MECHANISM_NAMES = ['none', 'kept-reads', 'pipelining', 'pglite-prepared', 'eov-003', 'database-thread'] as const;
export type MechanismName = (typeof MECHANISM_NAMES)[number];

export interface Mechanism {
  readonly name: MechanismName;
  /** What it is, in a few words. */
  readonly what: string;
  /** The databases it works on; on the others there is nothing to turn off. */
  readonly databases: readonly DatabaseKind[];
  /** How the benchmark starts the service without it. */
  readonly off: { readonly env: Readonly<Record<string, string>> } | { readonly reversePatch: string };
}

export const MECHANISMS: Readonly<Record<MechanismName, Mechanism>> = {
  none: {
    name: 'none',
    what: 'nothing: the same service started again, to show how far two runs of one configuration differ',
    databases: ['postgres', 'pglite'],
    off: { env: {} },
  },
  'kept-reads': {
    name: 'kept-reads',
    what: 'answers of reads kept between requests (server/http/kept-reads.ts)',
    databases: ['postgres', 'pglite'],
    off: { env: { KEPT_READS_MB: '0' } },
  },
  pipelining: {
    name: 'pipelining',
    what: "a transaction's begin, first statement, and last statement with commit each sent in one round trip (server/store/connection.ts)",
    databases: ['postgres'],
    off: { env: { DATABASE_PIPELINE: 'off' } },
  },
  'pglite-prepared': {
    name: 'pglite-prepared',
    what: "statement texts kept prepared in the embedded database (patches/@electric-sql+pglite+0.5.16+001+prepared-statements.patch)",
    databases: ['pglite'],
    off: { env: { PGLITE_PREPARED_STATEMENTS: 'off' } },
  },
  'eov-003': {
    name: 'eov-003',
    what: "per-request work of express-openapi-validator done once (patch 003)",
    databases: ['postgres', 'pglite'],
    off: { reversePatch: 'patches/express-openapi-validator+5.6.2+003+per-request-work-once.patch' },
  },
  'database-thread': {
    name: 'database-thread',
    what: 'the embedded database in a thread of its own (server/store/pglite-thread.ts)',
    databases: ['pglite'],
    off: { env: { PGLITE_THREAD: 'off' } },
  },
};

/** How the benchmark turns the mechanism off, in words for the report. */
export function describeOff(mechanism: Mechanism): string {
  if ('reversePatch' in mechanism.off) return `service run from a copy of the project with ${path.basename(mechanism.off.reversePatch)} reversed`;
  const entries = Object.entries(mechanism.off.env);
  return entries.length === 0 ? 'the same settings' : entries.map(([name, value]) => `${name}=${value}`).join(' ');
}

/**
 * The variables among `names` that no file of the compiled server mentions: a service that never
 * reads a variable runs the same with or without it, and the comparison would measure nothing.
 */
export async function variablesNotRead(buildDir: string, names: readonly string[]): Promise<string[]> {
  const files = (await readdir(buildDir, { recursive: true })).filter((file) => file.endsWith('.js'));
  const missing = new Set(names);
  for (const file of files) {
    if (missing.size === 0) break;
    const text = await readFile(path.join(buildDir, file), 'utf8');
    for (const name of [...missing]) if (text.includes(name)) missing.delete(name);
  }
  return [...missing];
}

/** The package a patch-package patch changes: from its first `a/node_modules/<package>/` path. */
export function packageOfPatch(patchText: string): string {
  const match = /^--- a\/node_modules\/((?:@[^/\s]+\/)?[^/\s]+)\//m.exec(patchText);
  if (match?.[1] === undefined) throw new Error('the patch changes no file under node_modules/');
  return match[1];
}

/**
 * A copy of the project the service runs from (.build, node_modules, package.json) with one patch
 * reversed. node_modules is hard-linked (a second or two, no space), except the patched package,
 * which is copied so that reversing the patch leaves the project's own files alone; .build is
 * copied, so that a build of the project meanwhile does not change the copy.
 */
export async function projectWithPatchReversed(root: string, patchFile: string): Promise<{ readonly root: string; dispose(): Promise<void> }> {
  const patchPath = path.resolve(root, patchFile);
  const packageName = packageOfPatch(await readFile(patchPath, 'utf8'));
  const dir = await mkdtemp(path.join(tmpdir(), 'pps-bench-without-'));
  const dispose = (): Promise<void> => rm(dir, { recursive: true, force: true });
  try {
    const linked = spawnSync('cp', ['-al', 'node_modules', 'package.json', dir], { cwd: root, encoding: 'utf8' });
    if (linked.status !== 0) throw new Error(`cp -al node_modules failed (the temporary directory must be on the project's file system): ${linked.stderr}`);
    await cp(path.join(root, '.build'), path.join(dir, '.build'), { recursive: true });
    const packageDir = path.join(dir, 'node_modules', packageName);
    await rm(packageDir, { recursive: true, force: true });
    await cp(path.join(root, 'node_modules', packageName), packageDir, { recursive: true });
    const reversed = spawnSync('patch', ['-R', '-p1', '--batch', '--no-backup-if-mismatch', '-i', patchPath], { cwd: dir, encoding: 'utf8' });
    if (reversed.status !== 0) throw new Error(`patch -R ${path.basename(patchPath)} failed:\n${reversed.stdout}${reversed.stderr}`);
  } catch (error) {
    await dispose();
    throw error;
  }
  return { root: `${dir}${path.sep}`, dispose };
}
