/**
 * `npm run new-api` on this repository's own documents (the partner API, several files joined by
 * $refs: its files on every run, its whole project and the dashboard's with NEW_API_DOCUMENTS=all)
 * and on test/fixtures/generator/shapes.yaml, and `--update`, which brings a project's toolkit
 * files up to date without overwriting its owner's edits. shapes.yaml's project installs for real
 * (`npm ci` from the registry) and also shows what an owner meets in a new project: a secured
 * operation refused until its verifier is written, a path asked for without the servers' base,
 * and a handler off the contract failing the type check.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generate, PROJECT_ROOT } from '../../scripts/toolkit/generate.js';
import { applyUpdate, planUpdate } from '../../scripts/toolkit/new-api.js';
import { INSTALLED_FILE } from '../../scripts/toolkit/new-api/toolkit-files.js';
import { exerciseDocument, firstDocument, type DocumentRun, type ProjectChecks } from './documents.js';
import { createProject, startProject, type Project } from './project.js';

const runs: DocumentRun[] = [];
const projects: Project[] = [];
afterAll(async () => {
  await Promise.all([...runs.map((run) => run.project.remove()), ...projects.map((project) => project.remove())]);
});

/** NEW_API_DOCUMENTS=all: every document's project is installed, tested and served, as in public-documents.test.ts. */
const ALL = process.env['NEW_API_DOCUMENTS']?.split(',').some((name) => name.trim() === 'all') === true;

describe('npm run new-api on our own documents', () => {
  it('partner: copies every file the document references, and the project alone generates what it holds', async () => {
    // Its project as a whole (installed, tested, served: a minute of a CI run) with NEW_API_DOCUMENTS=all below;
    // shapes.yaml's is on every run.
    const project = await createProject(path.join(PROJECT_ROOT, 'openapi/openapi.yaml'), 'partner-files');
    projects.push(project);
    const original = await generate('openapi/openapi.yaml', 'generated');
    const copy = await generate(await firstDocument(project), 'generated', project.root);
    expect(copy.model.operations.map((operation) => operation.key)).toEqual(original.model.operations.map((operation) => operation.key));
    expect(copy.files.length).toBeGreaterThan(0);
    for (const file of copy.files) expect(await project.read(file.path), file.path).toBe(file.content);
  });

  it.runIf(ALL).each([
    ['partner', 'openapi/openapi.yaml'],
    ['dashboard', 'openapi/dashboard/dashboard.yaml'],
  ])('%s: copies every file the document references, installs, passes its tests, and serves its examples', async (name, document) => {
    const run = await exerciseDocument(path.join(PROJECT_ROOT, document), name, ['--offline']);
    runs.push(run);
    expect(run.answered.length).toBeGreaterThan(0);
  }, 300_000);
});

/** Every shapes.yaml operation but the event stream needs the `session` cookie, whose verifier a new project lacks. */
const SHAPES_CHECKS: ProjectChecks = {
  async asMade(project) {
    const server = await startProject(project);
    try {
      // Refused with or without credentials, and the log names what to write.
      const answer = await fetch(`${server.baseUrl}/v2/pets`, {
        method: 'POST',
        headers: { Cookie: 'sid=anything', 'Content-Type': 'application/json' },
        body: JSON.stringify({ petType: 'cat', name: 'Tom', lives: 9 }),
      });
      expect(answer.status).toBe(401);
      expect(server.lines.join('\n')).toContain('security scheme session has no verifier (server/security.ts)');
      // A documented path asked for without the servers' base says where it is served.
      const elsewhere = await fetch(`${server.baseUrl}/events`);
      expect(elsewhere.status).toBe(404);
      expect(await elsewhere.text()).toContain('GET /events is served at /v2/events');
    } finally {
      await server.stop();
    }
  },
  async afterwards(project) {
    const handler = await project.read('server/handlers/create-pet.ts');
    await project.write('server/handlers/create-pet.ts', handler.replace(/status: 201,/, 'status: 202,'));
    const checked = await project.npm(['run', 'typecheck']);
    expect(checked.code).not.toBe(0);
    expect(checked.output).toContain('server/handlers/create-pet.ts');
    expect(checked.output).toContain('UndeclaredStatus<"createPet answers one of 201 | 400 | 401">');
  },
};

describe('npm run new-api on a document of the shapes public APIs use', () => {
  it('a discriminated oneOf, multipart, server-sent events, an API key in a cookie, a callback and a webhook', async () => {
    const run = await exerciseDocument(path.join(PROJECT_ROOT, 'test/fixtures/generator/shapes.yaml'), 'shapes', [], SHAPES_CHECKS);
    runs.push(run);
    // The created pet (JSON, behind the cookie's key) and the event stream (text/event-stream) answer their examples.
    expect(run.answered).toEqual(['createPet', 'streamEvents']);
  }, 300_000);
});

describe('a project made from the Petstore document', () => {
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
