/**
 * A lock file for a new project whose dependencies are a subset of this repository's: keep the
 * entries of our own package-lock.json that the new root can reach, so that the project installs
 * with `npm ci` the very versions we test here, offline from the cache our own install filled.
 *
 * Why pruning is enough: every remaining package resolves its dependencies (Node's walk up the
 * `node_modules` folders) to entries that are themselves reachable, hence kept. Only the flags
 * (dev, optional, devOptional, peer) depend on the root, so they are computed again the way npm
 * computes them; `serializeLockfile` writes keys in npm's order so that npm rewrites nothing.
 */

export type Deps = Record<string, string>;

export interface LockEntry {
  name?: string;
  version?: string;
  link?: boolean;
  dependencies?: Deps;
  devDependencies?: Deps;
  optionalDependencies?: Deps;
  peerDependencies?: Deps;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  workspaces?: unknown;
  [key: string]: unknown;
}

export interface LockfileV3 {
  name: string;
  version?: string;
  lockfileVersion: 3;
  requires?: boolean;
  packages: Record<string, LockEntry>;
}

export interface PackageManifest extends LockEntry {
  name: string;
  version: string;
  engines?: Record<string, string>;
  scripts?: Record<string, string>;
}

type EdgeType = 'prod' | 'dev' | 'optional' | 'peer' | 'peerOptional';
type Flag = 'dev' | 'optional' | 'devOptional' | 'peer';
const FLAGS: readonly Flag[] = ['dev', 'optional', 'devOptional', 'peer'];

/** Root fields npm copies from package.json into `packages[""]` (name, version and devDependencies apart). */
const ROOT_KEYS = ['dependencies', 'optionalDependencies', 'peerDependencies', 'peerDependenciesMeta', 'bundleDependencies',
  'acceptDependencies', 'funding', 'engines', 'os', 'cpu', 'libc', 'license', 'bin', 'deprecated'];

/**
 * A package's edges, by name. npm reads them in this order and a later kind replaces an earlier one
 * (a name in both dependencies and optionalDependencies is optional); devDependencies count only
 * for the root, since npm never installs a dependency's own dev dependencies.
 */
function edgesOf(entry: LockEntry, isRoot: boolean): Map<string, EdgeType> {
  const edges = new Map<string, EdgeType>();
  for (const name of Object.keys(entry.peerDependencies ?? {})) {
    edges.set(name, entry.peerDependenciesMeta?.[name]?.optional ? 'peerOptional' : 'peer');
  }
  for (const name of Object.keys(entry.dependencies ?? {})) edges.set(name, 'prod');
  for (const name of Object.keys(entry.optionalDependencies ?? {})) edges.set(name, 'optional');
  if (isRoot) for (const name of Object.keys(entry.devDependencies ?? {})) edges.set(name, 'dev');
  return edges;
}

/** Node's resolution: `<from>/node_modules/<name>`, then each ancestor's, up to the root's. */
function resolve(from: string, name: string, has: (location: string) => boolean): string | undefined {
  for (let at = from; ; at = at.slice(0, Math.max(0, at.lastIndexOf('/node_modules/')))) {
    const candidate = at === '' ? `node_modules/${name}` : `${at}/node_modules/${name}`;
    if (has(candidate)) return candidate;
    if (at === '') return undefined;
  }
}

/** `version` satisfies `range`, for the ranges we write: exact, `^`, `~` and `*`. Prereleases only match exactly. */
export function satisfies(version: string, range: string): boolean {
  const spec = range.trim();
  if (spec === '*' || spec === '') return !version.includes('-');
  const match = /^([\^~]|=|v)?(\d+)\.(\d+)\.(\d+)(-[0-9A-Za-z.-]+)?$/.exec(spec);
  if (!match) throw new Error(`unsupported version range "${range}": use an exact version, ^x.y.z, ~x.y.z or *`);
  const [, op = '', major = '', minor = '', patch = '', pre = ''] = match;
  const have = version.replace(/^v/, '');
  if (op !== '^' && op !== '~') return have === `${major}.${minor}.${patch}${pre}`;
  if (have.includes('-') || pre !== '') return false;
  const [a, b, c] = [major, minor, patch].map(Number) as [number, number, number];
  const [x = 0, y = 0, z = 0] = have.split('.').map(Number);
  const atLeast = x > a || (x === a && (y > b || (y === b && z >= c)));
  if (op === '~' || (a === 0 && b > 0)) return atLeast && x === a && y === b;
  return a === 0 ? x === 0 && y === 0 && z === c : atLeast && x === a;
}

/** `packages[""]` as npm writes it from a package.json (npm drops empty objects and keeps a license's type). */
function rootEntry(manifest: PackageManifest): LockEntry {
  const root: LockEntry = { name: manifest.name, version: manifest.version };
  for (const key of ROOT_KEYS) {
    const value = key === 'license' && typeof manifest.license === 'object' ? (manifest.license as { type?: string }).type : manifest[key];
    if (value && (typeof value !== 'object' || Object.keys(value).length > 0)) root[key] = value;
  }
  // npm turns a string bin into { name: path }, and keeps a name listed in both dependencies and
  // optionalDependencies only in the latter.
  if (typeof root['bin'] === 'string') root['bin'] = { [manifest.name]: root['bin'] };
  if (root.dependencies && root.optionalDependencies) {
    const prod = Object.entries(root.dependencies).filter(([name]) => !(name in (root.optionalDependencies ?? {})));
    if (prod.length > 0) root.dependencies = Object.fromEntries(prod);
    else delete root.dependencies;
  }
  if (manifest.devDependencies && Object.keys(manifest.devDependencies).length > 0) root.devDependencies = manifest.devDependencies;
  const { preinstall, install, postinstall } = manifest.scripts ?? {};
  if (preinstall || install || postinstall) root['hasInstallScript'] = true;
  return root;
}

export function pruneLockfile(lock: LockfileV3, manifest: PackageManifest): LockfileV3 {
  if (lock.lockfileVersion !== 3) throw new Error(`expected a lockfileVersion 3 lock file, got ${String(lock.lockfileVersion)}`);
  if (manifest.workspaces || lock.packages['']?.workspaces) throw new Error('workspaces are not supported: the new project must be a single package');
  const dual = Object.keys(manifest.dependencies ?? {}).filter((name) => name in (manifest.devDependencies ?? {}));
  if (dual.length > 0) throw new Error(`${dual.join(', ')}: listed in both dependencies and devDependencies; keep one`);

  // A link points outside the lock (a folder on this machine): the new project could not install it.
  const locked = (location: string): LockEntry | undefined => {
    if (lock.packages[location]?.link) throw new Error(`${location}: linked packages are not supported`);
    return lock.packages[location];
  };
  const root = rootEntry(manifest);
  for (const [name, type] of edgesOf(root, true)) {
    if (type === 'peerOptional') continue;
    const entry = locked(`node_modules/${name}`);
    const range = { ...root.peerDependencies, ...root.dependencies, ...root.optionalDependencies, ...root.devDependencies }[name] ?? '';
    if (!entry) throw new Error(`${name}@${range}: not in the source lock file; add it to this repository first`);
    if (entry.version === undefined || !satisfies(entry.version, range)) {
      throw new Error(`${name}@${range}: the lock file has ${entry.version ?? 'no version'}; use the locked version`);
    }
  }

  // Keep what the root reaches by its edges. A package reached only through optional peer edges
  // is left out: npm leaves it extraneous and drops it.
  const entryAt = (location: string): LockEntry | undefined => (location === '' ? root : locked(location));
  const kept = new Set<string>(['']);
  const queue = [''];
  for (let from = queue.pop(); from !== undefined; from = queue.pop()) {
    for (const [name, type] of edgesOf(entryAt(from) ?? {}, from === '')) {
      if (type === 'peerOptional') continue;
      const to = resolve(from, name, (location) => location in lock.packages);
      if (to === undefined) {
        // A missing optional dependency is allowed (npm records none for a failed optional install).
        if (type === 'optional') continue;
        throw new Error(`${name}: needed by ${from || 'the root'} but not in the source lock file`);
      }
      if (!kept.has(to)) {
        kept.add(to);
        queue.push(to);
      }
    }
  }

  // Flags: each starts set on every package and is cleared along edges from a package that lacks
  // it, by an edge that does not carry it (a prod edge from a prod package makes its target prod),
  // until nothing changes. devOptional is the overlap of the dev and optional trees: a package
  // needed by dev packages and by optional ones, installed unless both are omitted.
  const flags = new Map([...kept].map((location) => [location, new Set<Flag>(location === '' ? [] : FLAGS)]));
  const pending = [...kept];
  for (let from = pending.pop(); from !== undefined; from = pending.pop()) {
    const own = flags.get(from) ?? new Set<Flag>();
    for (const [name, type] of edgesOf(entryAt(from) ?? {}, from === '')) {
      const to = resolve(from, name, (location) => kept.has(location));
      const theirs = to === undefined ? undefined : flags.get(to);
      if (to === undefined || theirs === undefined) continue;
      const dev = type === 'dev';
      const optional = type === 'optional' || type === 'peerOptional';
      const peer = type === 'peer' || type === 'peerOptional';
      const before = theirs.size;
      if (!own.has('dev') && !dev) theirs.delete('dev');
      if (!own.has('optional') && !optional) theirs.delete('optional');
      if (!own.has('devOptional') && !own.has('dev') && !own.has('optional') && !dev && !optional) theirs.delete('devOptional');
      if (!own.has('peer') && !peer) theirs.delete('peer');
      if (theirs.size !== before) pending.push(to);
    }
  }

  const packages: Record<string, LockEntry> = { '': root };
  for (const [location, entry] of Object.entries(lock.packages)) {
    if (location === '' || !kept.has(location)) continue;
    const own = flags.get(location) ?? new Set<Flag>();
    const { dev: _dev, optional: _optional, devOptional: _devOptional, peer: _peer, extraneous: _extraneous, ...rest } = entry;
    const out: LockEntry = { ...rest };
    if (own.has('peer')) out['peer'] = true;
    if (own.has('dev')) out['dev'] = true;
    if (own.has('optional')) out['optional'] = true;
    if (own.has('devOptional') && !own.has('dev') && !own.has('optional')) out['devOptional'] = true;
    packages[location] = out;
  }
  return { name: manifest.name, version: manifest.version, lockfileVersion: 3, requires: true, packages };
}

/**
 * JSON as npm writes a lock file: at every level scalar values before objects, then `name`,
 * `version`, `lockfileVersion`, `resolved`, `integrity`, `requires`, `packages`, `dependencies`,
 * then the other keys in English collation; two spaces and a final newline.
 */
const FIRST_KEYS = ['name', 'version', 'lockfileVersion', 'resolved', 'integrity', 'requires', 'packages', 'dependencies'];
const collator = new Intl.Collator('en');
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const rank = (key: string): number => (FIRST_KEYS.includes(key) ? FIRST_KEYS.indexOf(key) : FIRST_KEYS.length);

export function serializeLockfile(lock: LockfileV3): string {
  const sorted = (_key: string, value: unknown): unknown =>
    !isObject(value)
      ? value
      : Object.fromEntries(
          Object.entries(value).sort(([a, av], [b, bv]) =>
            Number(isObject(av)) - Number(isObject(bv)) || rank(a) - rank(b) || (rank(a) === FIRST_KEYS.length ? collator.compare(a, b) : 0),
          ),
        );
  return `${JSON.stringify(lock, sorted, 2)}\n`;
}
