/**
 * `npm run new-api` on the public documents of test/fixtures/third-party/ (sources and licences in
 * its SOURCES.md), documents we never wrote: each becomes a project that installs, passes its own
 * `npm test`, and serves each documented example through `npm start` (documents.ts says how).
 * One installs for real (`npm ci`), the others from the npm cache this repository's install filled.
 * Two run by default: HTTP security and examples; five schemes (API key, basic, bearer, two OAuth
 * 2.0 flows). `NEW_API_DOCUMENTS=all` adds webhooks only, with no operation; many parameter
 * styles (test/contract/third-party.test.ts serves them on every run); and the two Petstores (one
 * more real install). `NEW_API_DOCUMENTS=oai-tictactoe,readme-webhooks` runs the ones it names.
 * Each project costs most of a minute of a CI run.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../scripts/toolkit/generate.js';
import { exerciseDocument, type DocumentRun } from './documents.js';

/** Each document, how it installs, how many of its operations document an example of a success answer, and whether it runs by default. */
const DOCUMENTS: ReadonlyArray<readonly [string, readonly string[], number, 'default' | 'all']> = [
  ['redocly-museum', [], 7, 'default'],
  ['readme-petstore', [], 0, 'all'],
  ['oai-tictactoe', ['--offline'], 1, 'default'],
  ['readme-petstore-simple', ['--offline'], 0, 'all'],
  ['readme-parameters-style', ['--offline'], 0, 'all'],
  // Webhooks only: no operation to serve, and a project that says so.
  ['readme-webhooks', ['--offline'], 0, 'all'],
];

const asked = process.env['NEW_API_DOCUMENTS']?.split(',').map((name) => name.trim()).filter((name) => name !== '');
const unknown = (asked ?? []).filter((name) => name !== 'all' && !DOCUMENTS.some(([document]) => document === name));
if (unknown.length > 0) throw new Error(`NEW_API_DOCUMENTS names no document of test/fixtures/third-party/: ${unknown.join(', ')}`);
const chosen = DOCUMENTS.filter(([name, , , when]) => (asked === undefined || asked.length === 0 ? when === 'default' : asked.includes('all') || asked.includes(name)));

const runs: DocumentRun[] = [];
afterAll(async () => {
  await Promise.all(runs.map((run) => run.project.remove()));
});

describe('npm run new-api on public documents', () => {
  it.each(chosen)('%s: installs, passes its tests, and serves its examples', async (name, install, examples) => {
    const run = await exerciseDocument(path.join(PROJECT_ROOT, 'test/fixtures/third-party', `${name}.yaml`), name, install);
    runs.push(run);
    expect(run.answered).toHaveLength(examples);
  }, 300_000);
});
