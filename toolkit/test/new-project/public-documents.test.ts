/**
 * `contract-first new` on the public documents of test/fixtures/third-party/ (sources and licences
 * in its SOURCES.md), documents we never wrote: each becomes a project, in a folder of its own
 * outside this repository, that installs the packed package with `npm ci`, passes its own
 * `npm test`, and serves each documented example through `npm start`, rejecting an invalid request
 * before its handler runs (documents.ts says how). Between them: the Museum's HTTP security and
 * examples; five schemes (API key, basic, bearer, two OAuth 2.0 flows); webhooks only, with no
 * operation; many parameter styles; the two Petstores. `NEW_PROJECT_DOCUMENTS=redocly-museum,…`
 * runs the ones it names.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { exerciseDocument, type DocumentRun } from './documents.js';

/** Each document, and how many of its operations document an example of a success response. */
const DOCUMENTS: ReadonlyArray<readonly [string, number]> = [
  ['redocly-museum', 7],
  ['readme-petstore', 0],
  ['oai-tictactoe', 1],
  ['readme-petstore-simple', 0],
  ['readme-parameters-style', 0],
  // Webhooks only: no operation to serve, and a project that says so.
  ['readme-webhooks', 0],
];

const asked =
  process.env['NEW_PROJECT_DOCUMENTS']
    ?.split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '') ?? [];
const unknown = asked.filter((name) => !DOCUMENTS.some(([document]) => document === name));
if (unknown.length > 0)
  throw new Error(`NEW_PROJECT_DOCUMENTS names no document of test/fixtures/third-party/: ${unknown.join(', ')}`);
const chosen = DOCUMENTS.filter(([name]) => asked.length === 0 || asked.includes(name));

const runs: DocumentRun[] = [];
afterAll(async () => {
  await Promise.all(runs.map((run) => run.project.remove()));
});

describe('contract-first new on public documents', () => {
  it.each(chosen)(
    '%s: installs, passes its tests, and serves its examples',
    async (name, examples) => {
      const run = await exerciseDocument(
        fileURLToPath(new URL(`../fixtures/third-party/${name}.yaml`, import.meta.url)),
        name,
        ['--prefer-offline'],
      );
      runs.push(run);
      expect(run.servedExamples).toHaveLength(examples);
    },
    300_000,
  );
});
