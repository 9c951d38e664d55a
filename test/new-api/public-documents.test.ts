/**
 * `npm run new-api` on the six public documents of test/fixtures/third-party/ (sources and licences
 * in its SOURCES.md), documents we never wrote: each becomes a project that installs, passes its
 * own `npm test`, and serves each documented example through `npm start` (documents.ts says how).
 * Two install for real (`npm ci`); the others from the npm cache this repository's install filled.
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

const runs: DocumentRun[] = [];
afterAll(async () => {
  await Promise.all(runs.map((run) => run.project.remove()));
});

describe('npm run new-api on public documents', () => {
  it.each(DOCUMENTS)('%s: installs, passes its tests, and serves its examples', async (name, install, examples) => {
    const run = await exerciseDocument(path.join(PROJECT_ROOT, 'test/fixtures/third-party', `${name}.yaml`), name, install);
    runs.push(run);
    expect(run.answered).toHaveLength(examples);
  }, 300_000);
});
