import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { IRouter } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createContractApp,
  type ContractResult,
  type ContractRoute,
  type ErrorResponse,
} from '../../src/runtime/index.js';

/**
 * The body of the contract server's own error responses (src/runtime/contract-server.ts), shaped
 * by the project (`errorResponseBody`, server/error-responses.ts of a new project) as its
 * document's errors are: here `{ code, message }`, which the document declares for 4XX.
 */
const ERROR = {
  type: 'object',
  required: ['code', 'message'],
  properties: { code: { type: 'integer' }, message: { type: 'string' } },
};
const DOCUMENT = {
  openapi: '3.1.0',
  info: { title: 'Error responses', version: '1' },
  paths: {
    '/things/{id}': {
      get: {
        operationId: 'getThing',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
        security: [{ key: [] }],
        responses: {
          '200': { description: 'the thing', content: { 'application/json': { schema: { type: 'object' } } } },
          '4XX': { description: 'rejected', content: { 'application/json': { schema: ERROR } } },
          '500': { description: 'failed', content: { 'text/plain': { schema: { type: 'string' } } } },
        },
      },
    },
  },
  components: { securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-Key' } } },
};

const ROUTE: ContractRoute = {
  operationId: 'getThing',
  method: 'get',
  path: '/things/{id}',
  security: [{ key: [] }],
  parameters: { cookie: [] },
  requestContentTypes: [],
};
type Handlers = { getThing: (id: string) => Promise<ContractResult> };

let directory: string;
let server: Server;
let base = '';
const errorResponses: ErrorResponse[] = [];
beforeAll(async () => {
  directory = mkdtempSync(path.join(tmpdir(), 'error-response-body-'));
  const apiSpec = path.join(directory, 'openapi.json');
  writeFileSync(apiSpec, JSON.stringify(DOCUMENT));
  const app = createContractApp<ContractRoute, Handlers, undefined>({
    apiSpec,
    routeList: [ROUTE],
    securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-Key' } },
    mountOperations: (router: IRouter, handlers, invoke, before) => {
      router.get('/things/:id', ...before(ROUTE), (req, res, next) => {
        invoke(ROUTE, req, res, () => handlers.getThing(String(req.params['id']))).catch(next);
      });
    },
    handlers: {
      getThing: async (id) => {
        if (id === '13') throw new Error('unlucky');
        return { status: 200, body: { id } };
      },
    },
    verifiers: { key: async ({ key }: { key: string }) => key === 'k' },
    validateResponses: true,
    errorResponseBody: (errorResponse) => {
      errorResponses.push(errorResponse);
      return { code: errorResponse.status, message: errorResponse.message };
    },
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(directory, { recursive: true, force: true });
});

const get = async (target: string, key = 'k'): Promise<{ status: number; type: string | null; body: string }> => {
  const response = await fetch(`${base}${target}`, { headers: { 'X-Key': key } });
  return { status: response.status, type: response.headers.get('content-type'), body: await response.text() };
};

describe("the server's own error responses", () => {
  it('take the body the project writes, in the JSON media type the document declares', async () => {
    expect(await get('/things/many')).toEqual({
      status: 400,
      type: 'application/json; charset=utf-8',
      body: expect.stringMatching(/^\{"code":400,"message":".+"\}$/) as unknown,
    });
    expect(JSON.parse((await get('/things/1', 'wrong')).body)).toEqual({
      code: 401,
      message: expect.any(String) as unknown,
    });
    expect(errorResponses.slice(0, 2)).toEqual([
      { status: 400, message: expect.any(String) as unknown, field: 'path.id', operationId: 'getThing' },
      { status: 401, message: expect.any(String) as unknown, operationId: 'getThing' },
    ]);
    expect((await get('/things/1')).status).toBe(200);
  });

  it('stay words where the document declares text for their status', async () => {
    expect(await get('/things/13')).toEqual({
      status: 500,
      type: 'text/plain; charset=utf-8',
      body: 'The handler failed.',
    });
  });
});
