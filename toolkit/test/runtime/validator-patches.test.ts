import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import express, { type ErrorRequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { literalExpressPath, toExpressPath } from '../../src/codegen/express-path.js';
import { startValidatedServer, type ValidatedServer } from './validated-server.js';

const require = createRequire(import.meta.url);

/**
 * The fixes the project applies to express-openapi-validator and to the Ajv it compiles with
 * (patches/, applied by patch-package at install). Each test here fails on the library as released: if a patch stops applying (a new
 * version of the library, a patch that no longer matches), these say which.
 */
const DOCUMENT = {
  openapi: '3.1.0',
  info: { title: 'Patched', version: '1' },
  paths: {
    '/a/{id}': {
      get: {
        operationId: 'getA',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'ok' } },
      },
    },
    '/b/{id}': {
      get: {
        operationId: 'getB',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'ok' } },
      },
    },
    '/e/{pet-id}': {
      get: {
        operationId: 'getE',
        parameters: [{ name: 'pet-id', in: 'path', required: true, schema: { type: 'integer' } }],
        responses: { '200': { description: 'ok' } },
      },
    },
    '/f': {
      post: {
        operationId: 'postF',
        requestBody: { content: { 'application/json': { schema: { type: 'object', required: ['x'] } } } },
        responses: { '200': { description: 'ok' } },
      },
    },
    '/g': {
      post: {
        operationId: 'postG',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                oneOf: [
                  { $ref: '#/components/schemas/Named' },
                  { type: 'object', required: ['code'], properties: { code: { type: 'string', maxLength: 3 } } },
                ],
              },
            },
          },
        },
        responses: { '204': { description: 'taken' } },
      },
    },
    // OpenAPI 3.1 lets an operation declare no responses.
    '/h': { get: { operationId: 'getH' } },
    // A closed tuple of one string that states no minItems: valid JSON Schema 2020-12.
    '/t': {
      post: {
        operationId: 'postT',
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: { type: 'array', prefixItems: [{ type: 'string' }], items: false } },
          },
        },
        responses: {
          '200': {
            description: 'ok',
            content: {
              'application/json': { schema: { type: 'array', prefixItems: [{ type: 'integer' }], items: false } },
            },
          },
        },
      },
    },
    // Ajv compares objects with fast-deep-equal (uniqueItems, enum, const).
    '/u': {
      post: {
        operationId: 'postU',
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { type: 'array', uniqueItems: true, items: { type: 'object' } } } },
        },
        responses: { '200': { description: 'ok' } },
      },
    },
    '/r': {
      post: {
        operationId: 'postR',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: {
                  state: { type: 'string', readOnly: true, default: 'new' },
                  id: { type: 'string', readOnly: true },
                  name: { type: 'string' },
                },
              },
            },
          },
        },
        responses: { '200': { description: 'ok' } },
      },
    },
    '/c': {
      get: {
        operationId: 'getC',
        responses: {
          '200': {
            description: 'a JSON response with headers',
            headers: {
              'X-Trace': { required: true, schema: { type: 'string', pattern: '^t-[0-9]+$' } },
              'X-Count': { $ref: '#/components/headers/Count' },
              'Content-Type': { required: true, schema: { type: 'string', const: 'never/checked' } },
            },
            content: { 'application/json': { schema: { type: 'object', properties: { ok: { type: 'boolean' } } } } },
          },
          '304': {
            description: 'no content, one required header',
            headers: { ETag: { required: true, schema: { type: 'string', minLength: 3 } } },
          },
          '401': {
            description: 'a referenced header, required',
            headers: { 'WWW-Authenticate': { $ref: '#/components/headers/Challenge' } },
            content: { 'application/json': { schema: { type: 'object' } } },
          },
        },
      },
    },
  },
  components: {
    schemas: { Named: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } },
    headers: {
      Count: { required: false, schema: { type: 'integer', minimum: 0 } },
      Challenge: { required: true, schema: { type: 'string', minLength: 1 } },
    },
  },
};

let server: ValidatedServer;

/** POSTs `body` as JSON to `path` of the server; returns the status of the response. */
async function postJson(path: string, body: unknown): Promise<number> {
  return (
    await fetch(`${server.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    })
  ).status;
}
beforeAll(async () => {
  server = await startValidatedServer(DOCUMENT, {
    routes: [
      ['get', '/a/:id'],
      ['get', '/b/:id'],
      ['get', '/c'],
      ['get', '/e/:"pet-id"'],
      ['post', '/f'],
      ['get', '/h'],
      ['post', '/r'],
      ['post', '/t'],
      ['post', '/u'],
    ],
  });
});
afterAll(() => server.close());

describe('route matchers compiled once (cdimascio/express-openapi-validator#1217)', () => {
  it('compiles no route matcher while serving requests', async () => {
    // The path-to-regexp the validator loads: the released 5.6.2 calls its pathToRegexp for every
    // documented route on every request.
    const pathToRegexp = require(
      require.resolve('path-to-regexp', { paths: [dirname(require.resolve('express-openapi-validator'))] }),
    ) as {
      pathToRegexp: (...args: unknown[]) => unknown;
    };
    server.response = { status: 200 };
    expect((await fetch(`${server.baseUrl}/b/warm`)).status).toBe(200);
    const compile = vi.spyOn(pathToRegexp, 'pathToRegexp');
    try {
      for (let i = 0; i < 20; i += 1) expect((await fetch(`${server.baseUrl}/b/x${i}`)).status).toBe(200);
      expect(compile).not.toHaveBeenCalled();
    } finally {
      compile.mockRestore();
    }
  });
});

describe('the document added to Ajv once (cdimascio/express-openapi-validator#1041)', () => {
  it('compiles an operation’s validators without the document’s paths and components in them', async () => {
    // The Ajv the validator loads: the released 5.6.2 copies the document's paths and components
    // into every schema it compiles, and Ajv walks all of them at each addition.
    const Core = require(
      require.resolve('ajv/dist/core', { paths: [dirname(require.resolve('express-openapi-validator'))] }),
    ) as { default: { prototype: { addSchema: (schema: unknown, key?: string) => unknown } } };
    const addSchema = vi.spyOn(Core.default.prototype, 'addSchema');
    try {
      server.response = { status: 200 };
      // A media type never sent before: the validator compiles the operation's validators for it.
      const response = await fetch(`${server.baseUrl}/a/x`, {
        headers: { 'content-type': `text/plain; v=${Date.now()}` },
      });
      expect(response.status).toBe(200);
      const added = addSchema.mock.calls.filter(([, key]) => key?.startsWith('GET-') === true);
      expect(added.length).toBeGreaterThan(0);
      for (const [schema] of added) expect(Object.keys(schema as object)).not.toContain('components');
    } finally {
      addSchema.mockRestore();
    }
  });
});

describe('middleware that runs at once once the document is loaded (cdimascio/express-openapi-validator#1041)', () => {
  it('calls next before returning, where the released 5.6.2 waits for a promise of the document', async () => {
    const [pathParams] = OpenApiValidator.middleware({
      apiSpec: DOCUMENT as never,
      validateApiSpec: false,
    }) as unknown as ((req: unknown, res: unknown, next: () => void) => unknown)[];
    const request = { app: express(), method: 'GET', path: '/a/x', baseUrl: '', originalUrl: '/a/x', params: {} };
    // The first request waits for the document to load.
    await new Promise<void>((resolve) => {
      pathParams?.(request, {}, resolve);
    });
    let called = false;
    pathParams?.({ ...request }, {}, () => {
      called = true;
    });
    expect(called).toBe(true);
  });
});

describe('references read from the document while it is prepared, not compiled', () => {
  it('prepares a document without compiling the schemas its operations reference', async () => {
    const Core = require(
      require.resolve('ajv/dist/core', { paths: [dirname(require.resolve('express-openapi-validator'))] }),
    ) as { default: { prototype: { getSchema: (key: string) => unknown } } };
    const getSchema = vi.spyOn(Core.default.prototype, 'getSchema');
    try {
      const pet = { $ref: '#/components/schemas/Pet' };
      const [pathParams] = OpenApiValidator.middleware({
        apiSpec: {
          openapi: '3.1.0',
          info: { title: 'Pets', version: '1' },
          paths: {
            '/pets': {
              post: {
                requestBody: { required: true, content: { 'application/json': { schema: pet } } },
                responses: { '200': { description: 'ok', content: { 'application/json': { schema: pet } } } },
              },
            },
          },
          components: {
            schemas: { Pet: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } },
          },
        } as never,
        validateApiSpec: false,
        validateResponses: true,
      }) as unknown as ((req: unknown, res: unknown, next: () => void) => unknown)[];
      const request = { app: express(), method: 'GET', path: '/x', baseUrl: '', originalUrl: '/x', params: {} };
      // The first request waits for the document to be loaded and prepared.
      await new Promise<void>((resolve) => {
        pathParams?.(request, {}, resolve);
      });
      // The released 5.6.2 compiles each referenced schema to read it back.
      expect(getSchema.mock.calls.filter(([key]) => key.startsWith('#/'))).toEqual([]);
    } finally {
      getSchema.mockRestore();
    }
  });
});

describe('path parameters whose names are not identifiers (path-to-regexp takes them quoted)', () => {
  it('finds the operation of /e/{pet-id} and reads its parameter by the document’s name', async () => {
    // The released 5.6.2 writes :pet-id, a parameter `pet` followed by the text `-id`: 404.
    server.response = { status: 200 };
    expect((await fetch(`${server.baseUrl}/e/5`)).status).toBe(200);
    expect(server.received?.params).toEqual({ 'pet-id': 5 });
    server.failures.length = 0;
    await fetch(`${server.baseUrl}/e/five`);
    // Rejected as a request off the contract (the document declares no 400, so its response then is a 500).
    expect(server.failures[0]).toMatchObject({ status: 400, of: 'request', field: 'path.pet-id' });
  });
});

describe('an optional request body (cdimascio/express-openapi-validator#646)', () => {
  it('accepts a request without one, and still checks one that is sent', async () => {
    // The released 5.6.2 responds with 415 unless the document writes `required: false`.
    server.response = { status: 200 };
    server.failures.length = 0;
    expect((await fetch(`${server.baseUrl}/f`, { method: 'POST' })).status).toBe(200);
    await postJson('/f', {});
    expect(server.failures[0]).toMatchObject({ status: 400, field: 'body.x' });
  });
});

describe('Ajv’s schemaPath and params kept on each error', () => {
  it('says which schema reported each error of a rejected request, and what its keyword reported', async () => {
    // The library alone, as it reports a rejection: the released 5.6.2 keeps only path, message and errorCode.
    const dir = mkdtempSync(join(tmpdir(), 'validator-patches-'));
    const apiSpec = join(dir, 'openapi.json');
    writeFileSync(apiSpec, JSON.stringify(DOCUMENT));
    const app = express();
    app.use(
      express.json(),
      ...(OpenApiValidator.middleware({
        apiSpec,
        validateRequests: { allErrors: true },
        validateResponses: false,
      }) as unknown as express.RequestHandler[]),
    );
    app.post('/g', (_req, res) => {
      res.status(204).end();
    });
    const rejected: unknown[] = [];
    const record: ErrorRequestHandler = (error: unknown, _req, res, _next) => {
      rejected.push(error);
      res.status(400).end();
    };
    app.use(record);
    const listening = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => listening.once('listening', () => resolve()));
    try {
      const url = `http://127.0.0.1:${(listening.address() as AddressInfo).port}/g`;
      const sent = await fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ code: 'ABCD' }),
      });
      expect(sent.status).toBe(400);
      // A `$ref` branch's error names the schema it references; a branch written in place, its index.
      expect((rejected[0] as { errors?: unknown }).errors).toEqual([
        expect.objectContaining({
          path: '/body/name',
          schemaPath: '#/components/schemas/Named/required',
          params: { missingProperty: 'name' },
        }),
        expect.objectContaining({
          path: '/body/code',
          schemaPath: '#/properties/body/oneOf/1/properties/code/maxLength',
          params: { limit: 3 },
        }),
        expect.objectContaining({
          path: '/body',
          schemaPath: '#/properties/body/oneOf',
          params: { passingSchemas: null },
        }),
      ]);
    } finally {
      listening.closeAllConnections();
      await new Promise<void>((resolve) => listening.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('response headers validated (cdimascio/express-openapi-validator#308)', () => {
  beforeEach(() => {
    server.failures.length = 0;
  });
  const get = async (): Promise<number> => (await fetch(`${server.baseUrl}/c`)).status;

  it('lets a response with its required headers, each matching its schema, through', async () => {
    server.response = { status: 200, body: { ok: true }, headers: { 'X-Trace': 't-1', 'X-Count': '2' } };
    expect(await get()).toBe(200);
    expect(server.failures).toEqual([]);
  });

  it.each([
    ['a required header missing', { 'X-Count': '2' }, "must have required property 'x-trace'"],
    ['a header off its schema', { 'X-Trace': 'nope' }, 'must match pattern'],
    [
      'an optional header by $ref off its schema (text read as its type)',
      { 'X-Trace': 't-1', 'X-Count': '-1' },
      'must be >= 0',
    ],
  ])('replaces %s with a 500 reported as off the contract', async (_name, headers, message) => {
    server.response = { status: 200, body: { ok: true }, headers };
    expect(await get()).toBe(500);
    expect(server.failures).toHaveLength(1);
    expect(server.failures[0]).toMatchObject({ status: 500, of: 'response' });
    expect(server.failures[0]?.message).toContain(message);
  });

  it('checks the headers of a response without a body, and its status', async () => {
    server.response = { status: 304, headers: { ETag: '"v1"' } };
    expect(await get()).toBe(304);
    server.response = { status: 304 };
    expect(await get()).toBe(500);
    server.response = { status: 204 };
    expect(await get()).toBe(500);
    expect(server.failures.map((failure) => failure.status)).toEqual([500, 500]);
  });

  it('checks a referenced response header of an error response', async () => {
    server.response = { status: 401, body: {} };
    expect(await get()).toBe(500);
    server.response = { status: 401, body: {}, headers: { 'WWW-Authenticate': 'Bearer' } };
    expect(await get()).toBe(401);
  });
});

describe('an operation that declares no responses', () => {
  it('lets its responses through, with a body or without, where the released 5.6.2 responds with 500', async () => {
    // The released 5.6.2 throws a TypeError reading the responses it does not have.
    server.failures.length = 0;
    server.response = { status: 200, body: { anything: ['goes'] } };
    const response = await fetch(`${server.baseUrl}/h`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ anything: ['goes'] });
    server.response = { status: 204 };
    expect((await fetch(`${server.baseUrl}/h`)).status).toBe(204);
    server.response = { status: 404, body: { message: 'none' } };
    expect((await fetch(`${server.baseUrl}/h`)).status).toBe(404);
    expect(server.failures).toEqual([]);
  });
});

describe('a readOnly property with a default (cdimascio/express-openapi-validator#1083)', () => {
  const post = (body: unknown): Promise<number> => postJson('/r', body);

  it('takes a request that leaves it out, and still rejects one that sets a readOnly property', async () => {
    // The released 5.6.2 writes the default in, then rejects it as read-only: 400 for every request.
    server.response = { status: 200 };
    server.failures.length = 0;
    expect(await post({ name: 'a' })).toBe(200);
    expect(server.failures).toEqual([]);
    await post({ name: 'a', state: 'done' });
    await post({ name: 'a', id: 'x' });
    // Each rejection is followed by a 500 for sending it, as the document declares no 400.
    expect(
      server.failures.filter((failure) => failure.of === 'request').map((failure) => [failure.status, failure.field]),
    ).toEqual([
      [400, 'body.state'],
      [400, 'body.id'],
    ]);
  });
});

describe('tuples (prefixItems) that do not bound their length', () => {
  const post = (body: unknown): Promise<number> => postJson('/t', body);

  it('validates requests and responses by them', async () => {
    // The released 5.6.2 cannot compile the schema (Ajv's strictTuples): every request is a 500.
    server.failures.length = 0;
    server.response = { status: 200, body: [7] };
    expect(await post(['a'])).toBe(200);
    expect(await post([])).toBe(200);
    expect(server.failures).toEqual([]);
    await post(['a', 'b']);
    await post([1]);
    server.response = { status: 200, body: ['seven'] };
    expect(await post(['a'])).toBe(500);
    expect(server.failures.map((failure) => [failure.status, failure.of])).toEqual([
      [400, 'request'],
      [500, 'response'],
      [400, 'request'],
      [500, 'response'],
      [500, 'response'],
    ]);
  });
});

describe('objects with a valueOf or toString member that is not a function (epoberezkin/fast-deep-equal#142)', () => {
  const post = (body: unknown): Promise<number> => postJson('/u', body);

  it('are compared as data, not met with a 500', async () => {
    // The released fast-deep-equal 3.1.3 calls them: a TypeError inside the validator, and a 500.
    server.response = { status: 200 };
    server.failures.length = 0;
    expect(await post([{ valueOf: 1 }, { valueOf: 2 }])).toBe(200);
    expect(await post([{ toString: 'a' }, { toString: 'b' }])).toBe(200);
    expect(server.failures).toEqual([]);
    // Two equal items are still rejected as the request's fault.
    await post([{ valueOf: 1 }, { valueOf: 1 }]);
    expect(server.failures[0]).toMatchObject({ status: 400, of: 'request' });
  });
});

describe('validateApiSpec: false compiles no validator of the OpenAPI schema', () => {
  it('starts without building one, and still builds it when the document is to be validated', async () => {
    // The released 5.6.2 compiles the OpenAPI 3.1 schema's validator at every start and then,
    // told not to validate the document, never uses it: a large part of a server's start-up.
    const factory = require(require.resolve('express-openapi-validator/dist/framework/openapi/factory.schema')) as {
      factorySchema: (...args: unknown[]) => unknown;
    };
    const schemaOf = vi.spyOn(factory, 'factorySchema');
    try {
      const started = await startValidatedServer(DOCUMENT, { routes: [['get', '/a/:id']] });
      try {
        expect((await fetch(`${started.baseUrl}/a/1`)).status).toBe(200);
        expect(schemaOf).not.toHaveBeenCalled();
      } finally {
        await started.close();
      }
      // Asked to validate the document, it does (so this spy would see the released behaviour).
      const app = express();
      app.use(
        OpenApiValidator.middleware({
          apiSpec: structuredClone(DOCUMENT) as never,
          validateApiSpec: true,
          validateRequests: true,
        }),
      );
      app.get('/a/:id', (_req, res) => void res.status(200).end());
      const listening = app.listen(0, '127.0.0.1');
      await new Promise<void>((resolve) => listening.once('listening', () => resolve()));
      try {
        expect((await fetch(`http://127.0.0.1:${(listening.address() as AddressInfo).port}/a/1`)).status).toBe(200);
        expect(schemaOf).toHaveBeenCalledTimes(1);
      } finally {
        listening.closeAllConnections();
        await new Promise<void>((resolve) => listening.close(() => resolve()));
      }
    } finally {
      schemaOf.mockRestore();
    }
  });
});

describe('paths and server paths with characters path-to-regexp reserves, and references into a schema with an $id', () => {
  const TRIP_BASE = '/rest/Train+Travel+API/1.0.0';
  const PATHS = ['/trips/{id}', '/a(b)+c!'];
  const document = {
    openapi: '3.1.0',
    info: { title: 'Literal', version: '1' },
    servers: [
      { url: `https://api.example.com${TRIP_BASE}` },
      { url: '/v{n}(beta)', variables: { n: { default: '1', enum: ['1', '2'] } } },
    ],
    paths: {
      '/trips/{id}': {
        get: {
          operationId: 'getTrip',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
          responses: {
            '200': {
              description: 'a trip',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Trip' } } },
            },
          },
        },
      },
      '/a(b)+c!': { get: { operationId: 'getA', responses: { '200': { description: 'ok' } } } },
    },
    components: {
      schemas: {
        Trip: {
          type: 'object',
          properties: { fare: { $ref: '#/components/schemas/Trip/$defs/Money' } },
          $defs: {
            Money: {
              $id: 'https://api.example.com/schemas/money.json',
              type: 'object',
              required: ['amount'],
              properties: { amount: { type: 'number' } },
            },
          },
        },
      },
    },
  };
  let literal: ValidatedServer;
  beforeAll(async () => {
    const bases = [TRIP_BASE, '/v1(beta)', '/v2(beta)'];
    literal = await startValidatedServer(document, {
      routes: bases.flatMap((base) =>
        PATHS.map((template) => ['get', `${literalExpressPath(base)}${toExpressPath(template)}`] as const),
      ),
    });
  });
  afterAll(() => literal.close());
  beforeEach(() => {
    literal.failures.length = 0;
    literal.response = { status: 200, body: { fare: { amount: 25 } } };
  });

  it('finds the operation of a path under a server path with a `+`, where the released 5.6.2 responds with 500', async () => {
    // The released 5.6.2 hands `/rest/Train+Travel+API/1.0.0/trips/:id` to path-to-regexp: `Unexpected + at index 11`.
    expect((await fetch(`${literal.baseUrl}${TRIP_BASE}/trips/5`)).status).toBe(200);
    expect(literal.received?.params).toEqual({ id: 5 });
    await fetch(`${literal.baseUrl}${TRIP_BASE}/trips/five`);
    // Rejected as a request off the contract (the document declares no 400, so its response then is a 500).
    expect(literal.failures[0]).toMatchObject({ status: 400, of: 'request', field: 'path.id' });
  });

  it('matches `( ) + !` of a path and of a server path with variables as themselves', async () => {
    literal.response = { status: 200 };
    for (const base of ['/v1(beta)', '/v2(beta)', TRIP_BASE])
      expect((await fetch(`${literal.baseUrl}${base}/a(b)+c!`)).status, base).toBe(200);
    expect(literal.failures).toEqual([]);
  });

  it('validates by a schema that references into another’s $defs, one with an $id, where the released libraries cannot', async () => {
    // The released 5.6.2: `can't resolve reference #/components/schemas/Trip/$defs/Money from id #/components/schemas/Trip`;
    // with that fixed, the released Ajv 8.20.0: `reference "https://api.example.com/schemas/money.json" resolves
    // to more than one schema` (Trip is met in components and in place of the response's $ref).
    expect((await fetch(`${literal.baseUrl}${TRIP_BASE}/trips/5`)).status).toBe(200);
    literal.response = { status: 200, body: { fare: {} } };
    expect((await fetch(`${literal.baseUrl}${TRIP_BASE}/trips/5`)).status).toBe(500);
    expect(literal.failures).toEqual([expect.objectContaining({ status: 500, of: 'response', keyword: 'required' })]);
  });
});
