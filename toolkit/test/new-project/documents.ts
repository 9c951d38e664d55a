/**
 * What the tests of `contract-first new` do with each document: make a project of it, install it,
 * run its tests as made (verifiers not written: secured operations rejected), then, if it has
 * security schemes, write verifiers that accept the tests' credentials only, give them to its tests, and
 * run them again, then start it and send each operation with a documented example a request made
 * of the document's examples: it responds with the example, and the same request with a parameter the
 * operation does not declare gets 400 before its handler runs. A document's own checks run on its
 * project as made and once its server has stopped (ProjectChecks).
 */
import { expect } from 'vitest';
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OpenApiDocument } from '../../src/codegen/bundle.js';
import { successExample } from '../../src/codegen/examples.js';
import { generate } from '../../src/generate.js';
import { presentCredentials, sampleRequest } from '../../src/testing/index.js';
import { createProject, startProject, type Project } from './project.js';

/** This package's own files (its code, commands and lint rules), by content. */
const PACKAGE_FILES = fileURLToPath(new URL('../../', import.meta.url));

async function contentsUnder(root: string, folders: readonly string[]): Promise<Map<string, string>> {
  const contents = new Map<string, string>();
  for (const folder of folders) {
    const entries = await readdir(path.join(root, folder), { recursive: true, withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (!entry.isFile() || entry.parentPath.split(path.sep).includes('node_modules')) continue;
      const file = path.join(entry.parentPath, entry.name);
      contents.set(
        createHash('sha256')
          .update(await readFile(file))
          .digest('hex'),
        path.relative(root, file),
      );
    }
  }
  return contents;
}

/** The project's files (outside node_modules/) that are byte for byte a file of the package's src/, dist/, bin/ or lint/. */
async function copiesOfPackageFiles(project: string): Promise<string[]> {
  const ours = await contentsUnder(PACKAGE_FILES, ['src', 'dist', 'bin', 'lint', 'patches']);
  const theirs = await contentsUnder(project, ['.']);
  return [...theirs].filter(([hash]) => ours.has(hash)).map(([hash, file]) => `${file} is ${ours.get(hash) ?? ''}`);
}

/**
 * server/security.ts with a verifier for every scheme that accepts exactly the credentials the
 * tests send (presentCredentials: a bearer token, a Basic user and password, an API key) and
 * rejects any other, as `check`'s wrong credentials require.
 */
function acceptingVerifiers(schemes: readonly string[]): string {
  return `import type { securitySchemes } from '../generated/server.js';
import type { Verifiers } from 'contract-first/runtime';

const accepted = new Set(['{"token":"sample-token"}', '{"username":"user","password":"password"}', '{"key":"sample-key"}']);
const verify = async (credential: unknown): Promise<boolean> => accepted.has(JSON.stringify(credential));

export const verifiers: Verifiers<typeof securitySchemes> = {
${schemes.map((name) => `  ${JSON.stringify(name)}: verify,`).join('\n')}
};
`;
}

function testCredentials(parts: Readonly<Record<string, unknown>>): string {
  return `import type { TestCredentials } from 'contract-first/testing';
import type { securitySchemes } from '../generated/server.js';

export const credentials: TestCredentials<typeof securitySchemes> = ${JSON.stringify(parts, null, 2)};
`;
}

/** Checks of one document's project beyond the whole story: on it as made, and after it served its examples. */
export interface ProjectChecks {
  /** After its `npm test` passed as made, before its verifiers are written. */
  readonly asMade?: (project: Project) => Promise<void>;
  /** Once its server has stopped. */
  readonly afterwards?: (project: Project) => Promise<void>;
}

export interface DocumentRun {
  readonly project: Project;
  /** The operations that responded with their documented example through `npm start`. */
  readonly servedExamples: readonly string[];
}

/** The whole story for one document; `install` is `npm ci`'s extra flags. */
export async function exerciseDocument(
  input: string,
  name: string,
  install: readonly string[],
  checks: ProjectChecks = {},
): Promise<DocumentRun> {
  const project = await createProject(input, name);
  const installed = await project.npm(['ci', '--no-audit', '--no-fund', ...install]);
  expect(installed.code, installed.output).toBe(0);
  // npm ci says nothing to review: esbuild's install script is denied in package.json.
  expect(installed.output).not.toContain('install-scripts');
  // The project holds its own files only: none is a copy of a file of the package.
  expect(await copiesOfPackageFiles(project.root)).toEqual([]);
  // The library fixes came with the package: the validator it installed is the fixed one.
  expect(
    await readFile(
      path.join(project.root, 'node_modules/contract-first/node_modules/fast-deep-equal/index.js'),
      'utf8',
    ),
  ).toContain("typeof a.valueOf === 'function'");

  const tested = await project.npm(['test']);
  expect(tested.code, tested.output).toBe(0);
  fewUntested(tested.output);
  await checks.asMade?.(project);

  // The project's own copy of the document, as its server serves it.
  const { model, document, rejectedExamples } = await generate(await firstDocument(project), 'generated', project.root);
  const schemes = Object.keys(model.securitySchemes);
  const credentials = Object.fromEntries(
    schemes.flatMap((scheme) => {
      const parts = presentCredentials({ [scheme]: [] }, model.securitySchemes)?.[scheme];
      return parts === undefined ? [] : [[scheme, parts]];
    }),
  );
  if (schemes.length > 0) {
    // The project's typecheck above already read both files' types as made; these values fit any scheme.
    await project.write('server/security.ts', acceptingVerifiers(schemes));
    await project.write('test/credentials.ts', testCredentials(credentials));
    const again = await project.npm(['exec', '--', 'vitest', 'run']);
    expect(again.code, again.output).toBe(0);
    fewUntested(again.output);
  }

  const server = await startProject(project);
  const servedExamples: string[] = [];
  try {
    const base = model.serverBases[0] ?? '';
    for (const operation of model.operations) {
      const example = successExample(document as OpenApiDocument, operation.path, operation.method, rejectedExamples);
      const chosen = operation.security.find((requirement) =>
        Object.keys(requirement).every((scheme) => credentials[scheme] !== undefined),
      );
      const sample =
        chosen === undefined && operation.security.length > 0
          ? undefined
          : sampleRequest(
              document,
              operation,
              Object.fromEntries(Object.keys(chosen ?? {}).map((scheme) => [scheme, credentials[scheme] ?? {}])),
              rejectedExamples,
            );
      if (example === undefined || !example.hasValue || sample === undefined) continue;
      const send = (target: string) =>
        fetch(`${server.baseUrl}${base}${target}`, {
          method: sample.method,
          headers: sample.headers,
          ...(sample.body === undefined ? {} : { body: sample.body }),
        });
      const response = await send(sample.target);
      const text = await response.text();
      expect([operation.key, response.status], text).toEqual([operation.key, example.status]);
      if (example.contentType !== undefined && /json/i.test(example.contentType))
        expect(JSON.parse(text), operation.key).toEqual(example.value);
      const invalid = await send(
        `${sample.target}${sample.target.includes('?') ? '&' : '?'}not_a_parameter_of_the_operation=1`,
      );
      expect([operation.key, invalid.status], await invalid.text()).toEqual([operation.key, 400]);
      servedExamples.push(operation.key);
    }
  } finally {
    await server.stop();
  }
  await checks.afterwards?.(project);
  return { project, servedExamples };
}

/** Fewer than one valid request in twenty goes untested, as the contract tests' output counts them. */
function fewUntested(output: string): void {
  const untested = /contract tests: (\d+) of (\d+) valid requests could not be tested/.exec(output);
  if (untested !== null) expect(Number(untested[1]) / Number(untested[2]), untested[0]).toBeLessThan(0.05);
}

/** The root of the project's document, as its redocly.yaml names it. */
export async function firstDocument(project: Project): Promise<string> {
  const config = await readFile(path.join(project.root, 'redocly.yaml'), 'utf8');
  const root = /^\s+root: (.+)$/m.exec(config)?.[1];
  if (root === undefined) throw new Error('the project names no document');
  return root.trim();
}
