import { describe, expect, it } from 'vitest';
import type { OpenApiDocument } from './bundle.js';
import { GeneratorError, readDocument } from './operations.js';

const ok = { '200': { description: 'ok' } };
const doc = (paths: Record<string, unknown>, extra: Record<string, unknown> = {}): OpenApiDocument =>
  ({ openapi: '3.1.0', info: { title: 't', version: '1' }, paths, ...extra }) as unknown as OpenApiDocument;

function rejection(document: OpenApiDocument): GeneratorError {
  try {
    readDocument(document);
  } catch (error) {
    if (error instanceof GeneratorError) return error;
    throw error;
  }
  throw new Error('not rejected');
}

describe('readDocument', () => {
  it('keeps the original operationId as the key, and derives one where there is none', () => {
    const model = readDocument(
      doc({ '/a': { get: { operationId: 'get-a', responses: ok }, post: { responses: ok } } }),
    );
    expect(model.operations.map((op) => [op.key, op.identifier, op.derived])).toEqual([
      ['get-a', 'getA', false],
      ['postA', 'postA', true],
    ]);
  });

  it('lets an operation-level parameter override the path-level one of the same name and place', () => {
    const model = readDocument(
      doc({
        '/a/{id}': {
          parameters: [
            { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
            { name: 'X-Trace', in: 'header', schema: { type: 'string' } },
          ],
          get: {
            parameters: [
              { name: 'id', in: 'path', required: true, schema: { type: 'integer' } },
              { name: 'x-trace', in: 'header' },
            ],
            responses: ok,
          },
        },
      }),
    );
    expect(model.operations[0]?.parameters).toEqual({ path: ['id'], query: [], header: ['x-trace'], cookie: [] });
  });

  it('carries security alternatives, combined schemes, optional security and the schemes’ types', () => {
    const model = readDocument(
      doc(
        { '/a': { get: { security: [{ key: [], basic: [] }, { oauth: ['read'] }, {}], responses: ok } } },
        {
          security: [{ basic: [] }],
          components: {
            securitySchemes: {
              key: { type: 'apiKey', in: 'header', name: 'X-Key' },
              basic: { type: 'http', scheme: 'basic' },
              oauth: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: 'https://t', scopes: { read: 'r' } } } },
            },
          },
        },
      ),
    );
    expect(model.operations[0]?.security).toEqual([{ key: [], basic: [] }, { oauth: ['read'] }, {}]);
    expect(model.securitySchemes).toEqual({
      key: { type: 'apiKey', in: 'header', name: 'X-Key' },
      basic: { type: 'http', scheme: 'basic' },
      oauth: { type: 'oauth2', flows: ['clientCredentials'] },
    });
  });

  it('serves each operation under every base path of the servers, variables expanded', () => {
    const model = readDocument(
      doc(
        { '/a/{id}': { get: { parameters: [{ name: 'id', in: 'path', required: true }], responses: ok } } },
        {
          servers: [
            { url: 'https://x.test/api/{v}/', variables: { v: { default: 'v2', enum: ['v1', 'v2'] } } },
            { url: '/api/v2' },
          ],
        },
      ),
    );
    expect(model.operations[0]?.expressPaths).toEqual(['/api/v1/a/:id', '/api/v2/a/:id']);
    expect(model.serverBases).toEqual(['/api/v1', '/api/v2']);
  });

  it('expands variables in a server URL’s scheme and host too, and names one without a value', () => {
    const model = readDocument(
      doc(
        { '/me': { get: { responses: ok } } },
        {
          servers: [
            {
              url: '{protocol}://{region}.x.test/{path}',
              variables: {
                protocol: { default: 'https', enum: ['https', 'http'] },
                region: { default: 'eu', enum: ['eu', 'us'] },
                path: { default: '' },
              },
            },
            { url: '{origin}/v1', variables: { origin: { default: 'https://x.test' } } },
            { url: 'https://x.test/{unset}', variables: { unset: {} } },
          ],
        },
      ),
    );
    expect(model.serverBases).toEqual(['', '/v1']);
    expect(model.operations[0]?.expressPaths).toEqual(['/me', '/v1/me']);
    expect(model.warnings).toEqual([
      { pointer: '#/servers/2/url', message: 'a server variable without a value; this server is not served' },
    ]);
  });

  it('serves each operation at its path as written when asked, and still names the servers’ base paths', () => {
    const model = readDocument(
      doc({ '/a': { get: { responses: ok } } }, { servers: [{ url: 'https://x.test/api/v2' }] }),
      { pathsAsWritten: true },
    );
    expect(model.operations[0]?.expressPaths).toEqual(['/a']);
    expect(model.serverBases).toEqual(['/api/v2']);
  });

  it('mounts a server path with characters Express’s path syntax reserves as it is written', () => {
    const model = readDocument(
      doc(
        { '/trips/{id}': { get: { parameters: [{ name: 'id', in: 'path', required: true }], responses: ok } } },
        {
          servers: [
            { url: 'https://api.example.com/rest/Train+Travel+API/1.0.0' },
            { url: '/v{n}(beta)', variables: { n: { default: '2' } } },
          ],
        },
      ),
    );
    expect(model.serverBases).toEqual(['/rest/Train+Travel+API/1.0.0', '/v2(beta)']);
    expect(model.operations[0]?.expressPaths).toEqual([
      '/rest/Train\\+Travel\\+API/1.0.0/trips/:id',
      '/v2\\(beta\\)/trips/:id',
    ]);
  });

  it('keeps an alternative naming an undefined scheme as one no request can meet, never as open', () => {
    const model = readDocument(doc({ '/a': { get: { security: [{ nope: [] }], responses: ok } } }));
    expect(model.operations[0]?.security).toEqual([{ nope: [] }]);
  });

  it('reads path items by reference, and mounts fixed segments first and HEAD before GET', () => {
    const model = readDocument(
      doc(
        {
          '/pets/{id}': {
            get: { parameters: [{ name: 'id', in: 'path', required: true }], responses: ok },
            head: { parameters: [{ name: 'id', in: 'path', required: true }], responses: ok },
          },
          '/pets/mine': { $ref: '#/components/pathItems/Mine' },
        },
        { components: { pathItems: { Mine: { get: { operationId: 'mine', responses: ok } } } } },
      ),
    );
    expect(model.mountOrder.map((op) => op.key)).toEqual(['mine', 'headPetsById', 'getPetsById']);
  });

  it.each([
    ['a document that is not 3.1', { ...doc({}), openapi: '3.0.3' } as OpenApiDocument, '#/openapi'],
    [
      'two operations with one operationId',
      doc({ '/a': { get: { operationId: 'x', responses: ok } }, '/b': { get: { operationId: 'x', responses: ok } } }),
      '#/paths/~1b/get',
    ],
    ['a template without its parameter', doc({ '/a/{id}': { get: { responses: ok } } }), '#/paths/~1a~1{id}/get'],
    [
      'a path parameter the template lacks',
      doc({ '/a': { get: { parameters: [{ name: 'id', in: 'path', required: true }], responses: ok } } }),
      '#/paths/~1a/get',
    ],
  ])('rejects %s, naming where', (_name, document, pointer) => {
    expect(rejection(document).pointer).toBe(pointer);
  });

  it('skips, with a warning naming it, what the validator cannot parse, and warns of callbacks', () => {
    const model = readDocument(
      doc({
        '/m/{id}': {
          get: {
            parameters: [{ name: 'id', in: 'path', required: true, style: 'matrix', schema: { type: 'string' } }],
            responses: ok,
          },
        },
        '/c': { post: { callbacks: { done: {} }, responses: ok } },
      }),
    );
    expect(model.operations.map((op) => op.key)).toEqual(['postC']);
    expect(model.warnings).toEqual([
      {
        pointer: '#/paths/~1m~1{id}/get/parameters/0',
        message: 'style matrix in a path is not parsed by the validator; operation "getMById" is not served',
      },
      {
        pointer: '#/paths/~1c/post/callbacks',
        message: 'callbacks are requests this server would send; no code is generated for them',
      },
    ]);
  });

  it('skips, with a warning giving it encoded, a path whose text a request carries percent-encoded', () => {
    const model = readDocument(
      doc({
        '/café/{ünï}': { get: { parameters: [{ name: 'ünï', in: 'path', required: true }], responses: ok } },
        '/caf%C3%A9/{id}': { get: { parameters: [{ name: 'id', in: 'path', required: true }], responses: ok } },
      }),
    );
    expect(model.operations.map((op) => op.path)).toEqual(['/caf%C3%A9/{id}']);
    expect(model.warnings).toEqual([
      {
        pointer: '#/paths/~1café~1{ünï}',
        message:
          'the path has characters a request carries percent-encoded (é), so no request matches it as written: write it /caf%C3%A9/{ünï}; operation "getCafByN" is not served',
      },
    ]);
  });

  it('types a webhook by its first request (in the order get, put, post, …), and warns of another method under its name', () => {
    const model = readDocument(doc({}, { webhooks: { tick: { post: { responses: ok }, put: { responses: ok } } } }));
    expect(model.webhooks.map((hook) => `${hook.method} ${hook.name}`)).toEqual(['put tick']);
    expect(model.warnings).toEqual([
      {
        pointer: '#/webhooks/tick/post',
        message: 'webhook "tick" is typed by its put request; this one is not generated',
      },
    ]);
  });

  it('lists webhooks apart from the routes', () => {
    const model = readDocument(
      doc(
        {},
        { webhooks: { newPet: { post: { requestBody: { content: { 'application/json': {} } }, responses: ok } } } },
      ),
    );
    expect(model.operations).toEqual([]);
    expect(model.webhooks).toEqual([
      {
        name: 'newPet',
        method: 'post',
        pointer: '#/webhooks/newPet/post',
        typeRef: 'webhooks["newPet"]["post"]',
        requestContentTypes: ['application/json'],
      },
    ]);
  });
});
