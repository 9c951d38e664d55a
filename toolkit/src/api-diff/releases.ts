/**
 * Releases of an API: `<version>.json` in its released folder (`x-released` in redocly.yaml, by
 * default released/ beside the document), the bundled document as its users were given it, one
 * file per `info.version`, never rewritten; and the changelog entry written for each.
 */
import { readdir } from 'node:fs/promises';
import type { GateResult, GatedChange } from './gate.js';
import { CHANGE_TYPES, type ChangeType } from './model.js';

/** `1.2.3` or `1.2.3-rc.1`: what a release file may be named after. */
const VERSION = /^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?$/;

export interface Version {
  readonly text: string;
  readonly numbers: readonly [number, number, number];
  readonly prerelease: string | undefined;
}

export function parseVersion(text: string): Version | undefined {
  const match = VERSION.exec(text);
  if (match === null) return undefined;
  const [, major, minor, patch, prerelease] = match;
  return { text, numbers: [Number(major), Number(minor), Number(patch)], prerelease };
}

/** Semantic-version order: numbers first; a prerelease before its release. */
export function compareVersions(a: Version, b: Version): number {
  for (let index = 0; index < 3; index += 1) {
    const difference = (a.numbers[index] ?? 0) - (b.numbers[index] ?? 0);
    if (difference !== 0) return difference;
  }
  if (a.prerelease === b.prerelease) return 0;
  if (a.prerelease === undefined) return 1;
  if (b.prerelease === undefined) return -1;
  return a.prerelease.localeCompare(b.prerelease, 'en', { numeric: true });
}

export interface Release {
  readonly version: Version;
  /** The file's name in the releases folder. */
  readonly file: string;
}

/** The releases in `folder`, oldest first; none when the folder does not exist. */
export async function listReleases(folder: string): Promise<Release[]> {
  const names = await readdir(folder).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [] as string[];
    throw error;
  });
  const releases: Release[] = [];
  for (const name of names) {
    if (!name.endsWith('.json')) continue;
    const version = parseVersion(name.slice(0, -'.json'.length));
    if (version !== undefined) releases.push({ version, file: name });
  }
  return releases.sort((a, b) => compareVersions(a.version, b.version));
}

export const CHANGELOG_TITLE = '# Changelog';
export const CHANGELOG_INTRODUCTION = `${CHANGELOG_TITLE}

Every release of this interface, newest first, with what changed since the release before it:
**breaking** changes, which need a change on your side; **deprecated** parts, which still work
but will go; **non-breaking** changes, which need none; and **annotations**, changes of the
documentation alone. The document of every release is kept, so any two can be compared.
`;

const HEADINGS: Readonly<Record<ChangeType, string>> = {
  breaking: 'Breaking',
  unclassified: 'Not classified',
  deprecated: 'Deprecated',
  'non-breaking': 'Non-breaking',
  annotation: 'Annotations',
};

function line(change: GatedChange): string {
  const allowed = change.allowed === undefined ? '' : ` Accepted: ${change.allowed}`;
  return `- ${change.description} (\`${change.pointer}\`).${allowed}`;
}

/** The changes a changelog entry lists: all but the new version itself, which is the entry's heading. */
export function changesToList(gate: GateResult): GatedChange[] {
  return gate.changes.filter((change) => change.pointer !== '#/info/version');
}

export interface ChangelogEntry {
  readonly version: string;
  readonly date: string;
  /** The release compared with, if there is one. */
  readonly previous?: string;
  readonly gate?: GateResult;
}

/** The entry of one release: its version and date, then its changes by class. */
export function renderEntry(entry: ChangelogEntry): string {
  const lines = [`## ${entry.version} (${entry.date})`, ''];
  const { gate, previous } = entry;
  if (gate === undefined || previous === undefined) {
    lines.push('The first release.', '');
    return lines.join('\n');
  }
  const listed = changesToList(gate);
  if (listed.length === 0) {
    lines.push(`No change to the interface since ${previous}.`, '');
    return lines.join('\n');
  }
  const counts = CHANGE_TYPES.map((type) => [type, listed.filter((change) => change.type === type)] as const).filter(
    ([, changes]) => changes.length > 0,
  );
  const summary = counts.map(([type, changes]) => `${changes.length} ${type}`).join(', ');
  lines.push(
    `Since ${previous}: ${summary}.${gate.majorChanged ? ' A new major version: its breaking changes are expected.' : ''}`,
    '',
  );
  for (const [type, changes] of counts) {
    lines.push(`### ${HEADINGS[type]}`, '', ...changes.map(line), '');
  }
  return lines.join('\n');
}

/** The changelog with `entry` first, under the title and introduction (written when missing). */
export function addEntry(changelog: string | undefined, entry: string): string {
  const current = changelog === undefined || changelog.trim() === '' ? CHANGELOG_INTRODUCTION : changelog;
  const firstEntry = current.search(/^## /m);
  const head = firstEntry < 0 ? current.trimEnd() : current.slice(0, firstEntry).trimEnd();
  const rest = firstEntry < 0 ? '' : current.slice(firstEntry).trimEnd();
  return `${head}\n\n${entry.trimEnd()}\n${rest === '' ? '' : `\n${rest}\n`}`;
}
