/**
 * `npm run new-api` on the public documents of test/fixtures/third-party/ (sources and licences in
 * its SOURCES.md), documents we never wrote: each becomes a project that installs, passes its own
 * `npm test`, and serves each documented example through `npm start` (documents.ts says how). Two
 * install for real (`npm ci`), the others from the npm cache this repository's install filled.
 *
 * Each project costs most of a minute of a CI run, so these run when asked for:
 * `NEW_API_DOCUMENTS=all` runs them all (the Museum's HTTP security and examples; five schemes: API
 * key, basic, bearer, two OAuth 2.0 flows; webhooks only, with no operation; many parameter styles;
 * the two Petstores), `NEW_API_DOCUMENTS=redocly-museum,readme-webhooks` the ones it names. On
 * every run, test/contract/third-party.test.ts generates, type-checks and serves every one of them,
 * and our-documents.test.ts takes shapes.yaml's project through the whole story.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../scripts/toolkit/generate.js';
import { exerciseDocument, type DocumentRun } from './documents.js';

/** Each document, how it installs, and how many of its operations document an example of a success answer. */
const DOCUMENTS: ReadonlyArray<readonly [string, readonly string[], number]> = [
  ['redocly-museum', [], 7],
  ['readme-petstore', [], 0],
  ['oai-tictactoe', ['--offline'], 1],
  ['readme-petstore-simple', ['--offline'], 0],
  ['readme-parameters-style', ['--offline'], 0],
  // Webhooks only: no operation to serve, and a project that says so.
  ['readme-webhooks', ['--offline'], 0],
];

const asked = process.env['NEW_API_DOCUMENTS']?.split(',').map((name) => name.trim()).filter((name) => name !== '') ?? [];
const unknown = asked.filter((name) => name !== 'all' && !DOCUMENTS.some(([document]) => document === name));
if (unknown.length > 0) throw new Error(`NEW_API_DOCUMENTS names no document of test/fixtures/third-party/: ${unknown.join(', ')}`);
const chosen = DOCUMENTS.filter(([name]) => asked.includes('all') || asked.includes(name));

const runs: DocumentRun[] = [];
afterAll(async () => {
  await Promise.all(runs.map((run) => run.project.remove()));
});

describe.runIf(chosen.length > 0)('npm run new-api on public documents', () => {
  it.each(chosen)('%s: installs, passes its tests, and serves its examples', async (name, install, examples) => {
    const run = await exerciseDocument(path.join(PROJECT_ROOT, 'test/fixtures/third-party', `${name}.yaml`), name, install);
    runs.push(run);
    expect(run.answered).toHaveLength(examples);
  }, 300_000);
});
