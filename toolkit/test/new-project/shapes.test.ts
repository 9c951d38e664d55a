/**
 * `contract-first new` on test/fixtures/generator/shapes.yaml, whose project also shows what an
 * owner meets in a new project: a secured operation rejected until its verifier is written, a path
 * asked for without the servers' base, and a handler off the contract failing the type check.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { exerciseDocument, type DocumentRun, type ProjectChecks } from './documents.js';
import { startProject } from './project.js';

const runs: DocumentRun[] = [];
afterAll(async () => {
  await Promise.all(runs.map((run) => run.project.remove()));
});

/** Every shapes.yaml operation but the event stream needs the `session` cookie, whose verifier a new project lacks. */
const SHAPES_CHECKS: ProjectChecks = {
  async asMade(project) {
    const server = await startProject(project);
    try {
      // Rejected with or without credentials, and the log names what to write.
      const response = await fetch(`${server.baseUrl}/v2/pets`, {
        method: 'POST',
        headers: { Cookie: 'sid=anything', 'Content-Type': 'application/json' },
        body: JSON.stringify({ petType: 'cat', name: 'Tom', lives: 9 }),
      });
      expect(response.status).toBe(401);
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
    expect(checked.output).toContain('UndeclaredStatus<"createPet responds with one of 201 | 400 | 401">');
  },
};

describe('contract-first new on a document of the shapes public APIs use', () => {
  it('a discriminated oneOf, multipart, server-sent events, an API key in a cookie, a callback and a webhook', async () => {
    const run = await exerciseDocument(
      fileURLToPath(new URL('../fixtures/generator/shapes.yaml', import.meta.url)),
      'shapes',
      [],
      SHAPES_CHECKS,
    );
    runs.push(run);
    // The created pet (JSON, behind the cookie's key) and the event stream (text/event-stream) respond with their examples.
    expect(run.servedExamples).toEqual(['createPet', 'streamEvents']);
  }, 300_000);
});
