/**
 * The packages a new project declares itself, beside this package: what its own files import (the
 * template's server, client and tests) and what runs them. Each is pinned at the version this
 * package's package.json pins (its dependencies, devDependencies and peerDependencies: the
 * versions its tests ran with). dependencies.test.ts checks that every package a template file or
 * a file of this package imports is declared.
 */

/** What the server runs with (`npm ci --omit=dev` installs them too). */
export const PROJECT_DEPENDENCIES = [
  'express',
  // client/index.ts
  'openapi-fetch',
  // `npm start` runs the server's TypeScript with it.
  'tsx',
] as const;

/** What the project's type check and tests need. */
export const PROJECT_DEV_DEPENDENCIES = ['@types/express', '@types/node', 'typescript', 'vitest'] as const;

export interface Manifest {
  readonly version?: string;
  readonly engines?: Readonly<Record<string, string>>;
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly devDependencies?: Readonly<Record<string, string>>;
  readonly peerDependencies?: Readonly<Record<string, string>>;
}

/** Each package of `names` at the version `from` pins; throws naming any it lacks. */
export function pinned(names: readonly string[], from: Manifest): Record<string, string> {
  const versions = { ...from.peerDependencies, ...from.devDependencies, ...from.dependencies };
  const missing = names.filter((name) => versions[name] === undefined);
  if (missing.length > 0)
    throw new Error(`contract-first's package.json does not pin ${missing.join(', ')}: add them to it`);
  return Object.fromEntries([...names].sort().map((name) => [name, versions[name] as string]));
}
