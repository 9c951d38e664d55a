import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaffoldHandlers } from '../../src/codegen/scaffold.js';
import { generate, type Generation } from '../../src/generate.js';
import { serve, type Serving } from '../../src/serve.js';
import { sampleRequestWithAnyCredentials } from '../../src/testing/sample-request.js';

/**
 * A document with the mistakes a linter reports but that leave it usable (test/fixtures/generator/mistakes.yaml of this package):
 * the generator names each with its JSON pointer and works around it. Its output type-checks with
 * the others' in third-party.test.ts.
 */
const MISTAKES = fileURLToPath(new URL('../fixtures/generator/mistakes.yaml', import.meta.url));
const offSchema = (why: string): string =>
  `the example does not match its schema (${why}): it is not used to build responses or requests`;

let generation: Generation;
let work = '';
beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'mistakes-'));
  generation = await generate(MISTAKES, path.join(work, 'out'), work);
}, 60_000);
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('the generator on a document with mistakes', () => {
  it('warns of each mistake, naming its JSON pointer', () => {
    expect(generation.warnings).toEqual([
      {
        pointer: '#/security/0',
        message:
          'names the security scheme "session", which components.securitySchemes does not define: this alternative is left out',
      },
      {
        pointer: '#/paths/~1pets~1{petId}/delete/security/0',
        message:
          'names the security scheme "petstore_auth", which components.securitySchemes does not define, and no other alternative is left: no request can meet it, so every request to DELETE /pets/{petId} is rejected (never served open)',
      },
      {
        pointer: '#/components/schemas/Pet/properties/tag',
        message: 'nullable is an OpenAPI 3.0 keyword; 3.1 ignores it: write type: [string, "null"]',
      },
      {
        pointer: '#/components/schemas/NewPet/properties/tag',
        message: 'nullable is an OpenAPI 3.0 keyword; 3.1 ignores it: write type: [string, "null"]',
      },
      { pointer: '#/paths/~1pets/get/parameters/0/example', message: offSchema('/ must be integer') },
      {
        pointer: '#/paths/~1pets/get/responses/200/content/application~1json/examples/wrong',
        message: offSchema('/0/id must be integer'),
      },
      {
        pointer: '#/paths/~1pets/post/requestBody/content/application~1json/example',
        message: offSchema('/name must be string'),
      },
      {
        pointer: '#/paths/~1pets/post/responses/201/content/application~1json/example',
        message: offSchema("/ must have required property 'name'"),
      },
      { pointer: '#/components/schemas/Pet/examples/0', message: offSchema('/id must be integer') },
    ]);
  });

  it('keeps the security alternatives that can be met, and the one that cannot where there is no other', () => {
    const security = Object.fromEntries(
      generation.model.operations.map((operation) => [operation.key, operation.security]),
    );
    expect(security).toEqual({
      listPets: [],
      createPet: [],
      getPet: [{ api_key: [] }],
      deletePet: [{ petstore_auth: ['write:pets'] }],
    });
  });

  it('types and validates a 3.0 nullable alike: as 3.1 reads it, without null', () => {
    const file = (name: string): string => generation.files.find((f) => f.path.endsWith(name))?.content ?? '';
    expect(file('openapi-types.ts')).toMatch(/tag\?: string;/);
    expect(file('openapi-types.ts')).not.toContain('null');
    expect(file('openapi.json')).not.toContain('"nullable":');
  });

  it('scaffolds stubs that respond with a valid example, or 501 where every example is off its schema', async () => {
    const handlers = path.join(work, 'handlers');
    await scaffoldHandlers(generation, handlers, path.join(work, 'out'));
    expect(await readFile(path.join(handlers, 'list-pets.ts'), 'utf8')).toContain('"tag": "dog"');
    expect(await readFile(path.join(handlers, 'create-pet.ts'), 'utf8')).toContain(
      'throw new NotImplementedError("createPet")',
    );
  });

  it('builds sample requests from the valid examples only', () => {
    const sample = (key: string) => {
      const operation = generation.model.operations.find((candidate) => candidate.key === key);
      if (operation === undefined) throw new Error(`${key} is missing`);
      return sampleRequestWithAnyCredentials(
        generation.document,
        operation,
        generation.model.securitySchemes,
        generation.rejectedExamples,
      );
    };
    expect(sample('listPets')?.target).toBe('/pets?limit=1');
    expect(sample('createPet')?.body).toBe('{"name":"Rex"}');
    expect(sample('deletePet')).toBeUndefined();
  });
});

describe('the document with mistakes, served', () => {
  let serving: Serving;
  beforeAll(async () => {
    serving = await serve({
      input: MISTAKES,
      port: 0,
      handlersDir: path.join(work, 'served-handlers'),
      log: () => undefined,
    });
  }, 60_000);
  afterAll(async () => {
    await serving.close();
  });

  const send = async (
    method: string,
    target: string,
    init: { headers?: Record<string, string>; body?: unknown } = {},
  ) => {
    const response = await fetch(`${serving.url}${target}`, {
      method,
      headers: { ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }), ...init.headers },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
    // An error response the document declares without content comes without a body.
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
  };

  it('responds to valid requests under the security alternative that is left', async () => {
    expect(await send('GET', '/pets?limit=1')).toEqual({ status: 200, body: [{ id: 1, name: 'Rex', tag: 'dog' }] });
    expect((await send('GET', '/pets/1', { headers: { 'X-API-Key': 'k' } })).status).toBe(200);
    expect((await send('GET', '/pets/1')).status).toBe(401);
  });

  it('rejects null where the document wrote a 3.0 nullable, as its types do', async () => {
    // The document declares its 400 without content: rejected without a body.
    expect(await send('POST', '/pets', { body: { name: 'Rex', tag: null } })).toEqual({ status: 400, body: undefined });
    // Every example of its response is off its schema: serve responds with a value generated from the schema.
    expect((await send('POST', '/pets', { body: { name: 'Rex', tag: 'dog' } })).status).toBe(201);
  });

  it('rejects every request to the operation secured by an undefined scheme, whatever it carries', async () => {
    for (const headers of [{}, { 'X-API-Key': 'k' }, { Authorization: 'Bearer t' }]) {
      // The document declares its 403 without content: rejected without a body.
      expect(await send('DELETE', '/pets/1', { headers })).toEqual({ status: 403, body: undefined });
    }
  });
});
