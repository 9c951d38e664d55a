import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type Deps, type LockEntry, type LockfileV3, type PackageManifest, pruneLockfile, satisfies, serializeLockfile } from './lockfile.js';

/** A source lock whose root is irrelevant (pruning rebuilds it) and whose entries are given. */
function lock(packages: Record<string, LockEntry>): LockfileV3 {
  return { name: 'source', version: '1.0.0', lockfileVersion: 3, requires: true, packages: { '': { name: 'source' }, ...packages } };
}
const pkg = (version: string, more: LockEntry = {}): LockEntry => ({ version, integrity: `sha512-${version}`, ...more });
const manifest = (deps: Pick<PackageManifest, 'dependencies' | 'devDependencies' | 'optionalDependencies'>): PackageManifest => ({
  name: 'new-api',
  version: '0.1.0',
  ...deps,
});

/** Each kept location with its flags, as a short string: `dev`, `optional dev`, '' for prod. */
function flagsOf(result: LockfileV3): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [location, entry] of Object.entries(result.packages)) {
    if (location === '') continue;
    out[location] = ['peer', 'dev', 'optional', 'devOptional'].filter((flag) => entry[flag] === true).join(' ');
  }
  return out;
}

const SOURCE = lock({
  'node_modules/a': pkg('1.0.0', { dependencies: { b: '^2.0.0', shared: '1.0.0' }, dev: true }),
  'node_modules/a/node_modules/b': pkg('2.1.0', { dev: true }),
  'node_modules/b': pkg('1.0.0', { dependencies: { leaf: '1.0.0' } }),
  'node_modules/leaf': pkg('1.0.0'),
  'node_modules/shared': pkg('1.0.0'),
  'node_modules/tool': pkg('3.0.0', { dependencies: { shared: '1.0.0', helper: '1.0.0' } }),
  'node_modules/helper': pkg('1.0.0', { optional: true }),
  'node_modules/native': pkg('1.0.0', { optionalDependencies: { 'native-linux': '1.0.0', 'native-win': '1.0.0' }, dependencies: { helper: '1.0.0' } }),
  'node_modules/native-linux': pkg('1.0.0', { os: ['linux'] }),
  'node_modules/plugin': pkg('1.0.0', { peerDependencies: { host: '1.x', extra: '1.x' }, peerDependenciesMeta: { extra: { optional: true } } }),
  'node_modules/host': pkg('1.2.0'),
  'node_modules/extra': pkg('1.0.0'),
  'node_modules/unused': pkg('9.9.9'),
});

describe('pruneLockfile', () => {
  it.each<[string, { given: Parameters<typeof manifest>[0]; want: Record<string, string> }]>([
    [
      'resolves nested node_modules first, then the root: a keeps its own b, the root b is a separate package',
      { given: { dependencies: { a: '1.0.0' } }, want: { 'node_modules/a': '', 'node_modules/a/node_modules/b': '', 'node_modules/shared': '' } },
    ],
    [
      'flags what only dev dependencies reach as dev',
      { given: { devDependencies: { b: '1.0.0' } }, want: { 'node_modules/b': 'dev', 'node_modules/leaf': 'dev' } },
    ],
    [
      'a package reached from both prod and dev is prod',
      {
        given: { dependencies: { a: '1.0.0' }, devDependencies: { tool: '3.0.0' } },
        want: { 'node_modules/a': '', 'node_modules/a/node_modules/b': '', 'node_modules/helper': 'dev', 'node_modules/shared': '', 'node_modules/tool': 'dev' },
      },
    ],
    [
      'an optional dependency and all it alone reaches are optional; a missing optional one is skipped',
      {
        given: { optionalDependencies: { native: '1.0.0' } },
        want: { 'node_modules/helper': 'optional', 'node_modules/native': 'optional', 'node_modules/native-linux': 'optional' },
      },
    ],
    [
      'a package reached by an optional and by a dev package is devOptional',
      {
        given: { optionalDependencies: { native: '1.0.0' }, devDependencies: { tool: '3.0.0' } },
        want: {
          'node_modules/helper': 'devOptional',
          'node_modules/native': 'optional',
          'node_modules/native-linux': 'optional',
          'node_modules/shared': 'dev',
          'node_modules/tool': 'dev',
        },
      },
    ],
    [
      'a peer dependency is kept and flagged peer; an optional peer reached no other way is left out',
      { given: { dependencies: { plugin: '1.0.0' } }, want: { 'node_modules/host': 'peer', 'node_modules/plugin': '' } },
    ],
    [
      'an optional peer that the root installs as a dev dependency is devOptional: kept unless dev and optional are both omitted',
      {
        given: { dependencies: { plugin: '1.0.0' }, devDependencies: { extra: '1.0.0' } },
        want: { 'node_modules/extra': 'devOptional', 'node_modules/host': 'peer', 'node_modules/plugin': '' },
      },
    ],
  ])('%s', (_name, { given, want }) => {
    expect(flagsOf(pruneLockfile(SOURCE, manifest(given)))).toEqual(want);
  });

  it('writes the root entry from the manifest, as npm does', () => {
    const result = pruneLockfile(SOURCE, {
      ...manifest({ dependencies: { b: '^1.0.0', native: '1.0.0' }, optionalDependencies: { native: '1.0.0' }, devDependencies: {} }),
      private: true,
      engines: { node: '>=20.19.0' },
      scripts: { postinstall: 'patch-package' },
      license: { type: 'MIT' },
    });
    expect(result).toMatchObject({ name: 'new-api', version: '0.1.0', lockfileVersion: 3, requires: true });
    expect(result.packages['']).toEqual({
      name: 'new-api',
      version: '0.1.0',
      dependencies: { b: '^1.0.0' },
      optionalDependencies: { native: '1.0.0' },
      engines: { node: '>=20.19.0' },
      license: 'MIT',
      hasInstallScript: true,
    });
  });

  it.each<[string, { given: PackageManifest; want: RegExp }]>([
    ['a dependency missing from the lock', { given: manifest({ dependencies: { express: '5.3.0' } }), want: /express@5\.3\.0: not in the source lock file/ }],
    ['a locked version outside the range', { given: manifest({ devDependencies: { host: '1.3.0' } }), want: /host@1\.3\.0: the lock file has 1\.2\.0/ }],
    ['a range we do not check', { given: manifest({ dependencies: { host: '>=1 <2' } }), want: /unsupported version range ">=1 <2"/ }],
    ['a name in both dependency lists', { given: manifest({ dependencies: { b: '1.0.0' }, devDependencies: { b: '1.0.0' } }), want: /b: listed in both/ }],
    ['workspaces', { given: { ...manifest({}), workspaces: ['packages/*'] }, want: /workspaces are not supported/ }],
  ])('refuses %s', (_name, { given, want }) => {
    expect(() => pruneLockfile(SOURCE, given)).toThrow(want);
  });

  it('refuses a linked package and a transitive dependency the lock lacks', () => {
    const linked = lock({ 'node_modules/a': { resolved: '../a', link: true }, 'node_modules/b': pkg('1.0.0', { dependencies: { gone: '1.0.0' } }) });
    expect(() => pruneLockfile(linked, manifest({ dependencies: { a: '1.0.0' } }))).toThrow(/node_modules\/a: linked packages are not supported/);
    expect(() => pruneLockfile(linked, manifest({ dependencies: { b: '1.0.0' } }))).toThrow(/gone: needed by node_modules\/b/);
  });

  it('gives back this repository’s own lock file, byte for byte, for its own package.json', () => {
    const text = readFileSync(new URL('../../../package-lock.json', import.meta.url), 'utf8');
    const own = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as PackageManifest;
    expect(serializeLockfile(pruneLockfile(JSON.parse(text) as LockfileV3, own))).toBe(text);
  });
});

describe('satisfies', () => {
  it.each<[string, string, boolean]>([
    ['5.3.0', '5.3.0', true],
    ['5.3.1', '5.3.0', false],
    ['5.3.0', '=5.3.0', true],
    ['5.9.1', '^5.3.0', true],
    ['6.0.0', '^5.3.0', false],
    ['5.2.9', '^5.3.0', false],
    ['0.17.4', '^0.17.0', true],
    ['0.18.0', '^0.17.0', false],
    ['0.0.3', '^0.0.3', true],
    ['0.0.4', '^0.0.3', false],
    ['4.23.20', '~4.23.15', true],
    ['4.24.0', '~4.23.15', false],
    ['1.0.0', '*', true],
    ['1.0.0-rc.1', '*', false],
    ['1.0.0-rc.1', '1.0.0-rc.1', true],
    ['1.0.0-rc.2', '^1.0.0-rc.1', false],
  ])('%s in %s: %s', (version, range, want) => {
    expect(satisfies(version, range)).toBe(want);
  });
});

describe('serializeLockfile', () => {
  it('orders keys as npm does: scalars first, then name, version, …, then the rest by English collation', () => {
    const deps: Deps = { zod: '1.0.0', '@scope/b': '1.0.0', Abc: '1.0.0' };
    const text = serializeLockfile({ packages: { '': { dependencies: deps, version: '1' } }, requires: true, lockfileVersion: 3, name: 'x' });
    expect(text).toBe(
      '{\n  "name": "x",\n  "lockfileVersion": 3,\n  "requires": true,\n  "packages": {\n    "": {\n      "version": "1",\n' +
        '      "dependencies": {\n        "@scope/b": "1.0.0",\n        "Abc": "1.0.0",\n        "zod": "1.0.0"\n      }\n    }\n  }\n}\n',
    );
  });
});
