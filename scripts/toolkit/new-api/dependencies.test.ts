import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RUNTIME_PACKAGES, TOOL_PACKAGES } from './dependencies.js';
import { toolkitFiles } from './toolkit-files.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const TEMPLATE = path.join(ROOT, 'scripts/toolkit/new-api/template');

/** The packages a source file imports: `express`, `@redocly/cli` (not Node's own modules, not relative paths). */
function packagesImported(source: string): string[] {
  const specifiers = [...source.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"]([^'"]+)['"]/g)].map((match) => match[1] ?? '');
  return specifiers
    .filter((specifier) => !specifier.startsWith('.') && !specifier.startsWith('node:') && !specifier.startsWith('/'))
    .map((specifier) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/'));
}

const sources = [
  ...toolkitFiles(ROOT).filter((file) => /\.(?:ts|js)$/.test(file.path)).map((file) => ({ path: file.path, text: file.content.toString('utf8') })),
  ...['server/main.ts', 'server/app.ts', 'server/context.ts', 'client/index.ts', 'test/contract.test.ts', 'vitest.config.ts'].map((file) => ({
    path: `template/${file}`,
    text: readFileSync(path.join(TEMPLATE, file), 'utf8'),
  })),
];

describe("the toolkit's packages", () => {
  it('are each declared where a project installs them: every package a toolkit file imports', () => {
    const declared = new Set<string>([...RUNTIME_PACKAGES, ...TOOL_PACKAGES]);
    const undeclared = sources.flatMap((file) => packagesImported(file.text).filter((name) => !declared.has(name)).map((name) => `${file.path}: ${name}`));
    expect(undeclared).toEqual([]);
  });

  it("are runtime packages where the server imports them: server/toolkit/ and the template's server and client", () => {
    const runtime = new Set<string>(RUNTIME_PACKAGES);
    const server = sources.filter((file) => /^(?:server\/toolkit|template\/server|template\/client)\//.test(file.path));
    expect(server.length).toBeGreaterThan(5);
    const devOnly = server.flatMap((file) => packagesImported(file.text).filter((name) => !runtime.has(name)).map((name) => `${file.path}: ${name}`));
    expect(devOnly).toEqual([]);
  });
});
