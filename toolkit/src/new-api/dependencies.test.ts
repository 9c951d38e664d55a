import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PROJECT_DEPENDENCIES, PROJECT_DEV_DEPENDENCIES, type Manifest } from './dependencies.js';

const PACKAGE = fileURLToPath(new URL('../../', import.meta.url));
const manifest = JSON.parse(readFileSync(path.join(PACKAGE, 'package.json'), 'utf8')) as Manifest & {
  bundleDependencies?: string[];
};

/** The packages a source file imports: `express`, `@redocly/cli` (not Node's own modules, not relative paths). */
function packagesImported(source: string): string[] {
  const specifiers = [...source.matchAll(/(?:from\s+|import\s*\(\s*|import\s+|resolve\(\s*)['"]([^'"]+)['"]/g)].map(
    (match) => match[1] ?? '',
  );
  return specifiers
    .filter(
      (specifier) =>
        !specifier.startsWith('.') &&
        !specifier.startsWith('node:') &&
        !specifier.startsWith('/') &&
        /^[@a-z]/.test(specifier),
    )
    .map((specifier) =>
      specifier
        .split('/')
        .slice(0, specifier.startsWith('@') ? 2 : 1)
        .join('/'),
    );
}

/** The .ts and .js files under `folder` of this package, tests left out. */
function sources(folder: string): Array<{ path: string; text: string }> {
  return readdirSync(path.join(PACKAGE, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(?:ts|js)$/.test(entry.name) && !/\.test(?:-d)?\.ts$/.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .map((file) => ({ path: path.relative(PACKAGE, file), text: readFileSync(file, 'utf8') }));
}

describe("the package's dependencies", () => {
  it('declare every package its own files import', () => {
    const declared = new Set([
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.peerDependencies ?? {}),
      'contract-first',
    ]);
    const files = [...sources('src'), ...sources('bin'), ...sources('lint')];
    expect(files.length).toBeGreaterThan(50);
    const undeclared = files.flatMap((file) =>
      packagesImported(file.text)
        .filter((name) => !declared.has(name))
        .map((name) => `${file.path}: ${name}`),
    );
    expect(undeclared).toEqual([]);
  });

  it('bundle the libraries it fixes (patches/), and declare them', () => {
    const patched = readdirSync(path.join(PACKAGE, 'patches')).map((file) =>
      file.replace(/\+\d.*$/, '').replace('+', '/'),
    );
    expect(new Set(patched)).toEqual(new Set(['ajv', 'express-openapi-validator', 'fast-deep-equal']));
    for (const name of patched) {
      expect(manifest.bundleDependencies).toContain(name);
      expect(manifest.dependencies?.[name]).toBeDefined();
    }
  });
});

describe("a new project's packages", () => {
  it('are pinned by this package, and declared for every package a template file imports', () => {
    const declared = new Set<string>([...PROJECT_DEPENDENCIES, ...PROJECT_DEV_DEPENDENCIES, 'contract-first']);
    const undeclared = sources('template').flatMap((file) =>
      packagesImported(file.text)
        .filter((name) => !declared.has(name))
        .map((name) => `${file.path}: ${name}`),
    );
    expect(undeclared).toEqual([]);
    const pins = { ...manifest.peerDependencies, ...manifest.devDependencies, ...manifest.dependencies };
    expect([...PROJECT_DEPENDENCIES, ...PROJECT_DEV_DEPENDENCIES].filter((name) => pins[name] === undefined)).toEqual(
      [],
    );
  });

  it("import the runtime from the server's files only, never a command", () => {
    const server = sources('template').filter((file) => /^template\/(?:server|client)\//.test(file.path));
    expect(server.length).toBeGreaterThan(3);
    const commands = server.flatMap((file) =>
      [...file.text.matchAll(/from '(contract-first[^']*)'/g)]
        .map((match) => match[1])
        .filter((module) => module !== 'contract-first/runtime')
        .map((module) => `${file.path}: ${module}`),
    );
    expect(commands).toEqual([]);
  });
});
