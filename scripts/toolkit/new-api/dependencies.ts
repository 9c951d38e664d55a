/**
 * The packages the toolkit's files import, and where a project declares them: what the server runs
 * with (`dependencies`, installed by `npm ci --omit=dev` too) and what the commands and tests need
 * (`devDependencies`). A project takes each at the version the toolkit's own project pins, the
 * versions its tests ran with. test/contract/new-api.test.ts checks that every package a toolkit
 * file imports is in one of these lists.
 */

/** The server's packages: the runtime (server/toolkit/), the client, and what installs and runs them. */
export const RUNTIME_PACKAGES = [
  // The validator's own formats are ajv-formats'; server/toolkit/openapi-validation.ts asks it which it checks.
  'ajv-formats',
  'express',
  'express-openapi-validator',
  'cookie-parser',
  'openapi-fetch',
  // `npm ci` applies patches/ to express-openapi-validator and fast-deep-equal with it (postinstall), production installs included.
  'patch-package',
  // `npm start` runs the server's TypeScript with it.
  'tsx',
] as const;

/** The commands' and tests' packages. */
export const TOOL_PACKAGES = [
  '@redocly/cli',
  '@redocly/openapi-core',
  '@types/cookie-parser',
  '@types/express',
  '@types/node',
  'ajv',
  'api-smart-diff',
  'chokidar',
  // `npm run check` draws requests with it, and shrinks what fails.
  'fast-check',
  'openapi-typescript',
  'playwright-core',
  'typescript',
  'vitest',
  'yaml',
] as const;

export interface Manifest {
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly devDependencies?: Readonly<Record<string, string>>;
}

/** Each package of `names` at the version `from` pins; throws naming any it lacks. */
export function pinned(names: readonly string[], from: Manifest): Record<string, string> {
  const versions = { ...from.devDependencies, ...from.dependencies };
  const missing = names.filter((name) => versions[name] === undefined);
  if (missing.length > 0) throw new Error(`the toolkit's project does not pin ${missing.join(', ')}: add them to its package.json`);
  return Object.fromEntries([...names].sort().map((name) => [name, versions[name] as string]));
}
