/**
 * `npm run new-api` on this repository's own documents (the partner API, several files joined by
 * $refs, and with NEW_API_DOCUMENTS=all the dashboard's), and what a project's owner meets in one:
 * a handler off the contract fails the type check naming the operation and its statuses, a secured
 * operation without its verifier is refused, and `--update` brings the toolkit's files up to date without overwriting the
 * owner's edits.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../scripts/toolkit/generate.js';
import { applyUpdate, planUpdate } from '../../scripts/toolkit/new-api.js';
import { INSTALLED_FILE } from '../../scripts/toolkit/new-api/toolkit-files.js';
import { exerciseDocument, type DocumentRun } from './documents.js';
import { createProject, startProject, type Project } from './project.js';

const runs: DocumentRun[] = [];
const projects: Project[] = [];
afterAll(async () => {
  await Promise.all([...runs.map((run) => run.project.remove()), ...projects.map((project) => project.remove())]);
});

/**
 * The partner API on every run; the dashboard's document too with NEW_API_DOCUMENTS=all, as in
 * public-documents.test.ts: its session cookie (an API key in a cookie) is one of shapes.yaml's, and
 * each project costs a minute of a CI run.
 */
const OUR_DOCUMENTS: ReadonlyArray<readonly [string, string]> = [
  ['partner', 'openapi/openapi.yaml'],
  ...(process.env['NEW_API_DOCUMENTS']?.split(',').some((name) => name.trim() === 'all') === true
    ? [['dashboard', 'openapi/dashboard/dashboard.yaml'] as const]
    : []),
];

describe('npm run new-api on our own documents', () => {
  it.each(OUR_DOCUMENTS)('%s: copies every file the document references, installs, passes its tests, and serves its examples', async (name, document) => {
    const run = await exerciseDocument(path.join(PROJECT_ROOT, document), name, ['--offline']);
    runs.push(run);
    expect(run.answered.length).toBeGreaterThan(0);
  }, 300_000);
});

describe('npm run new-api on a document of the shapes public APIs use', () => {
  it('a discriminated oneOf, multipart, server-sent events, an API key in a cookie, a callback and a webhook', async () => {
    const run = await exerciseDocument(path.join(PROJECT_ROOT, 'test/fixtures/generator/shapes.yaml'), 'shapes', ['--offline']);
    runs.push(run);
    // The created pet (JSON, behind the cookie's key) and the event stream (text/event-stream) answer their examples.
    expect(run.answered).toEqual(['createPet', 'streamEvents']);
  }, 300_000);
});

describe('a project made from the Museum document', () => {
  it('refuses a secured operation until its verifier is written, and names the operation when a handler answers off the contract', async () => {
    const project = await createProject(path.join(PROJECT_ROOT, 'test/fixtures/third-party/redocly-museum.yaml'), 'museum');
    projects.push(project);
    expect((await project.npm(['ci', '--offline', '--no-audit', '--no-fund'])).code).toBe(0);

    // Every operation needs MuseumPlaceholderAuth, whose verifier is not written: refused, with or without credentials.
    const server = await startProject(project);
    try {
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

    const handler = await project.read('server/handlers/get-museum-hours.ts');
    await project.write('server/handlers/get-museum-hours.ts', handler.replace(/status: 200,/, 'status: 201,'));
    const checked = await project.npm(['run', 'typecheck']);
    expect(checked.code).not.toBe(0);
    expect(checked.output).toContain('server/handlers/get-museum-hours.ts');
    expect(checked.output).toContain('UndeclaredStatus<"getMuseumHours answers one of 200 | 400 | 404">');
  }, 300_000);

  it('--update replaces the toolkit files the project did not change, keeps those it did, and adds what it lacks', async () => {
    const project = await createProject(path.join(PROJECT_ROOT, 'test/fixtures/third-party/readme-petstore-simple.yaml'), 'update');
    projects.push(project);
    const record = JSON.parse(await project.read(INSTALLED_FILE)) as { files: Record<string, string> };

    // An older toolkit gave a different send-result.ts (the record says so), which the project never touched.
    const old = '// an older toolkit\n';
    await project.write('server/toolkit/send-result.ts', old);
    const { createHash } = await import('node:crypto');
    record.files['server/toolkit/send-result.ts'] = createHash('sha256').update(old).digest('hex');
    await project.write(INSTALLED_FILE, JSON.stringify(record));
    // The project changed routes.ts itself, and lost http-server.ts.
    await writeFile(path.join(project.root, 'server/toolkit/routes.ts'), `${await project.read('server/toolkit/routes.ts')}\n// ours\n`);
    const { rm } = await import('node:fs/promises');
    await rm(path.join(project.root, 'server/toolkit/http-server.ts'));

    const plan = planUpdate(project.root, false);
    expect(plan.steps).toEqual([
      { path: 'server/toolkit/http-server.ts', action: 'add' },
      { path: 'server/toolkit/routes.ts', action: 'keep-edited' },
      { path: 'server/toolkit/send-result.ts', action: 'replace' },
    ]);
    expect(plan.packages).toEqual([]);
    await applyUpdate(project.root, plan);
    expect(await project.read('server/toolkit/send-result.ts')).toBe(await readFile(path.join(PROJECT_ROOT, 'server/toolkit/send-result.ts'), 'utf8'));
    expect(await project.read('server/toolkit/routes.ts')).toContain('// ours');
    expect(planUpdate(project.root, false).steps).toEqual([{ path: 'server/toolkit/routes.ts', action: 'keep-edited' }]);
    expect(planUpdate(project.root, true).steps).toEqual([{ path: 'server/toolkit/routes.ts', action: 'replace-edited' }]);
  });
});
