/**
 * `npm run new-api` on the public documents of test/fixtures/third-party/ (sources and licences in
 * its SOURCES.md), documents we never wrote: each becomes a project that installs, passes its own
 * `npm test`, and serves each documented example through `npm start` (documents.ts says how).
 * One installs for real (`npm ci`), the others from the npm cache this repository's install filled.
 * The Museum's runs by default (HTTP security and examples, installed for real). Each project
 * costs most of a minute of a CI run, so `NEW_API_DOCUMENTS=all` adds the rest: five schemes (API
 * key, basic, bearer, two OAuth 2.0 flows); webhooks only, with no operation; many parameter
 * styles; and the two Petstores (one more real install). test/contract/third-party.test.ts
 * generates and serves every one of them on every run. `NEW_API_DOCUMENTS=oai-tictactoe,readme-webhooks`
 * runs the ones it names.
 *
 * The Museum's project also shows what its owner meets in it: a secured operation is refused
 * until its verifier is written, and a handler that answers off the contract fails the type check
 * naming the operation and its statuses.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../scripts/toolkit/generate.js';
import { exerciseDocument, type DocumentRun, type ProjectChecks } from './documents.js';
import { startProject } from './project.js';

/** Each document, how it installs, how many of its operations document an example of a success answer, and whether it runs by default. */
const DOCUMENTS: ReadonlyArray<readonly [string, readonly string[], number, 'default' | 'all']> = [
  ['redocly-museum', [], 7, 'default'],
  ['readme-petstore', [], 0, 'all'],
  ['oai-tictactoe', ['--offline'], 1, 'all'],
  ['readme-petstore-simple', ['--offline'], 0, 'all'],
  ['readme-parameters-style', ['--offline'], 0, 'all'],
  // Webhooks only: no operation to serve, and a project that says so.
  ['readme-webhooks', ['--offline'], 0, 'all'],
];

/** Every Museum operation needs MuseumPlaceholderAuth, whose verifier a new project lacks. */
const MUSEUM_CHECKS: ProjectChecks = {
  async asMade(project) {
    const server = await startProject(project);
    try {
      // Refused with or without credentials, and the log names what to write.
      const basic = `Basic ${Buffer.from('user:password').toString('base64')}`;
      const answer = await fetch(`${server.baseUrl}/_mock/docs/openapi/museum-api/museum-hours`, { headers: { Authorization: basic } });
      expect(answer.status).toBe(401);
      expect(server.lines.join('\n')).toContain('security scheme MuseumPlaceholderAuth has no verifier (server/security.ts)');
      // A documented path asked for without the servers' base says where it is served.
      const elsewhere = await fetch(`${server.baseUrl}/museum-hours`);
      expect(elsewhere.status).toBe(404);
      expect(await elsewhere.text()).toContain('GET /museum-hours is served at /_mock/docs/openapi/museum-api/museum-hours');
    } finally {
      await server.stop();
    }
  },
  async afterwards(project) {
    const handler = await project.read('server/handlers/get-museum-hours.ts');
    await project.write('server/handlers/get-museum-hours.ts', handler.replace(/status: 200,/, 'status: 201,'));
    const checked = await project.npm(['run', 'typecheck']);
    expect(checked.code).not.toBe(0);
    expect(checked.output).toContain('server/handlers/get-museum-hours.ts');
    expect(checked.output).toContain('UndeclaredStatus<"getMuseumHours answers one of 200 | 400 | 404">');
  },
};
const CHECKS: Readonly<Record<string, ProjectChecks>> = { 'redocly-museum': MUSEUM_CHECKS };

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
    const run = await exerciseDocument(path.join(PROJECT_ROOT, 'test/fixtures/third-party', `${name}.yaml`), name, install, CHECKS[name]);
    runs.push(run);
    expect(run.answered).toHaveLength(examples);
  }, 300_000);
});
