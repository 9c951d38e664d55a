import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Turns, type CheckPlugin, type PluginStream } from '../../src/check/plugin.js';
import { runCheck } from '../../src/check/run.js';

/**
 * The plug-in hooks against a small server on a loopback socket with two planted defects: a
 * response without X-Request-Id for ids holding a `z`, and a rejected create that still counts.
 * A plug-in's stream, judge and around each find theirs; its findings are shrunk and replayed like
 * the checker's own; a serialization key keeps its cases one at a time.
 */

const error = {
  description: 'rejected',
  content: {
    'application/json': {
      schema: { type: 'object', required: ['message'], properties: { message: { type: 'string' } } },
    },
  },
};
const document = {
  openapi: '3.1.0',
  info: { title: 'plug-in', version: '1' },
  paths: {
    '/items': {
      post: {
        operationId: 'createItem',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['name'],
                additionalProperties: false,
                properties: { name: { type: 'string', minLength: 1, maxLength: 10 } },
              },
            },
          },
        },
        responses: {
          '201': { description: 'created', content: { 'application/json': { schema: { type: 'object' } } } },
          '400': error,
          '415': error,
        },
      },
    },
    '/items/{id}': {
      get: {
        operationId: 'getItem',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^[a-z]{1,8}$' } }],
        responses: {
          '200': { description: 'the item', content: { 'application/json': { schema: { type: 'object' } } } },
          '400': error,
        },
      },
    },
  },
};

/** What the server saw and holds: its one piece of state (items created), and raw requests. */
const state = { items: 0, inFlight: 0, maxInFlight: 0, raw: [] as { url: string; headers: string[] }[] };

function handle(request: http.IncomingMessage, response: http.ServerResponse): void {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    state.inFlight += 1;
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
    // A moment in flight, so that requests sent at once overlap here.
    setTimeout(() => {
      state.inFlight -= 1;
      const url = request.url ?? '';
      if (request.headers['x-twice'] !== undefined) state.raw.push({ url, headers: request.rawHeaders });
      const json = (status: number, body: unknown, requestId = true): void => {
        response.writeHead(status, {
          'Content-Type': 'application/json',
          ...(requestId ? { 'X-Request-Id': 'r1' } : {}),
        });
        response.end(JSON.stringify(body));
      };
      if (request.method === 'POST' && url === '/items') {
        let body: unknown;
        if (request.headers['content-type'] !== 'application/json') {
          json(415, { message: 'JSON only' });
          return;
        }
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          json(400, { message: 'not JSON' });
          return;
        }
        const name = typeof body === 'object' && body !== null && 'name' in body ? body.name : undefined;
        if (
          typeof name !== 'string' ||
          [...name].length < 1 ||
          [...name].length > 10 ||
          Object.keys(body as object).length !== 1
        ) {
          json(400, { message: 'not an item' });
          return;
        }
        // Planted: a name over 3 characters is rejected, but the item is counted anyway.
        state.items += 1;
        if ([...name].length > 3) json(400, { message: 'name too long' });
        else json(201, { name });
        return;
      }
      const id = /^\/items\/([^/?]+)$/.exec(url)?.[1];
      if (request.method === 'GET' && id !== undefined) {
        // Planted: no X-Request-Id when the id holds a z.
        json(200, { id }, !id.includes('z'));
        return;
      }
      json(400, { message: 'no such route' });
    }, 2);
  });
}

/** Every response carries X-Request-Id; a rejected write leaves the item count as it was. */
function demoPlugin(options: { readonly serialize: boolean }): CheckPlugin & { judged: Set<string> } {
  const judged = new Set<string>();
  const ids: PluginStream<string> = {
    name: 'ids',
    count: 60,
    arbitrary: fc.string({ unit: fc.constantFrom(...'abcxyz'), minLength: 1, maxLength: 8 }),
    build: (id, context) => ({
      request: { method: 'GET', url: `${baseUrl}/items/${id}`, headers: {}, body: null },
      expect: { case: context.index },
    }),
  };
  const raw: PluginStream<number> = {
    name: 'raw',
    count: 1,
    arbitrary: fc.constant(1),
    build: () => ({
      request: {
        method: 'GET',
        url: `${baseUrl}/items/a`,
        headers: { 'X-Twice': '2' },
        body: null,
        target: '/items/a/../b?x=%zz',
        headerList: [
          ['X-Twice', '1'],
          ['X-Twice', '2'],
        ],
      },
    }),
  };
  return {
    name: 'demo',
    judged,
    streams: (operation) => (operation.key === 'getItem' ? [ids, raw] : []),
    serialize: () => (options.serialize ? 'one' : undefined),
    around: async (_context, request, send) => {
      const before = state.items;
      const exchange = await send();
      const status = exchange.outcome.kind === 'response' ? exchange.outcome.response.status : 0;
      if (request.method === 'POST' && status >= 400 && state.items !== before) {
        return [
          {
            kind: 'demo:rejected-write-changed',
            detail: 'items',
            message: `a ${status} changed the item count from ${before} to ${state.items}`,
          },
        ];
      }
      return [];
    },
    judge: (exchange) => {
      judged.add(exchange.intent);
      if (exchange.outcome.kind !== 'response' || exchange.outcome.response.headers['x-request-id'] !== undefined)
        return [];
      return [{ kind: 'demo:request-id', detail: '', message: 'no X-Request-Id header' }];
    },
    replay: ({ seed, operation, stream, index }) =>
      `DEMO_SEED=${seed} demo --operation ${operation} --stream ${stream} --index ${index}`,
  };
}

let server: http.Server;
let baseUrl = '';
let directory = '';
let input = '';

beforeAll(async () => {
  server = http.createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  directory = await mkdtemp(path.join(os.tmpdir(), 'check-plugin-'));
  input = path.join(directory, 'openapi.json');
  await writeFile(input, JSON.stringify(document));
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(directory, { recursive: true, force: true });
});

describe('check plug-ins', () => {
  it('report what their judge, around and streams find, shrunk, with their replay command', async () => {
    // One at a time: a create in flight beside a rejected one would change the count too.
    const plugin = demoPlugin({ serialize: true });
    const report = await runCheck({ input, baseUrl, seed: 7, cases: 20, plugins: [plugin] });
    const kinds = report.findings.map((finding) => `${finding.kind} ${finding.operation}`).sort();
    expect(kinds).toEqual(['demo:rejected-write-changed createItem', 'demo:request-id getItem']);
    const missing = report.findings.find((finding) => finding.kind === 'demo:request-id');
    // Shrunk to a short id that shows it (generated ids are up to 8 letters), in the checker's own valid stream or the plug-in's.
    expect(missing?.request.url).toMatch(/\/items\/(z|[a-y]z|z[a-y])$/);
    const rejected = report.findings.find((finding) => finding.kind === 'demo:rejected-write-changed');
    expect(rejected?.status).toBe(400);
    // Shrunk to a name of 4 characters, the shortest rejected.
    expect([...(JSON.parse(rejected?.request.body ?? '{}') as { name: string }).name]).toHaveLength(4);
    // The judge saw the checker's own requests and the plug-in's.
    expect([...plugin.judged].sort()).toEqual(['invalid', 'plugin', 'valid']);
    if (missing?.requestKind === 'demo:ids')
      expect(missing.replay).toMatch(/^DEMO_SEED=7 demo --operation getItem --stream demo:ids --index \d+$/);
    else expect(missing?.replay).toMatch(/^npx contract-first check /);
  }, 60_000);

  it('finds the same with the same seed (replay by seed)', async () => {
    const first = await runCheck({
      input,
      baseUrl,
      seed: 11,
      cases: 0,
      negative: false,
      sequences: false,
      plugins: [demoPlugin({ serialize: false })],
    });
    const again = await runCheck({
      input,
      baseUrl,
      seed: 11,
      cases: 0,
      negative: false,
      sequences: false,
      plugins: [demoPlugin({ serialize: false })],
    });
    expect(first.findings.map((finding) => finding.kind)).toEqual(['demo:request-id']);
    expect(first.findings[0]?.requestKind).toBe('demo:ids');
    expect(first.findings[0]?.request.url).toBe(`${baseUrl}/items/z`);
    expect(again.findings.map((finding) => [finding.request.url, finding.replay])).toEqual(
      first.findings.map((finding) => [finding.request.url, finding.replay]),
    );
  }, 60_000);

  it('sends a plug-in request byte by byte: its target as written, repeated headers', async () => {
    state.raw = [];
    await runCheck({
      input,
      baseUrl,
      seed: 3,
      cases: 0,
      negative: false,
      sequences: false,
      plugins: [demoPlugin({ serialize: false })],
      include: ['getItem'],
    });
    expect(state.raw[0]?.url).toBe('/items/a/../b?x=%zz');
    expect(state.raw[0]?.headers.filter((_, index, all) => all[index - 1] === 'X-Twice')).toEqual(['1', '2']);
  }, 60_000);

  it('runs the cases of one serialization key one at a time', async () => {
    state.maxInFlight = 0;
    await runCheck({ input, baseUrl, seed: 5, cases: 10, concurrency: 8, plugins: [demoPlugin({ serialize: false })] });
    expect(state.maxInFlight).toBeGreaterThan(1);
    state.maxInFlight = 0;
    await runCheck({ input, baseUrl, seed: 5, cases: 10, concurrency: 8, plugins: [demoPlugin({ serialize: true })] });
    expect(state.maxInFlight).toBe(1);
  }, 60_000);
});

describe('Turns', () => {
  it('runs one key first come first served, other keys at once', async () => {
    const turns = new Turns();
    const order: string[] = [];
    const step = (name: string, gate: Promise<void>) => async () => {
      order.push(`${name} start`);
      await gate;
      order.push(`${name} end`);
    };
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    const runs = [
      turns.take('a', step('a1', gate)),
      turns.take('a', step('a2', Promise.resolve())),
      turns.take('b', step('b1', Promise.resolve())),
    ];
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(order).toEqual(['a1 start', 'b1 start', 'b1 end']);
    open();
    await Promise.all(runs);
    expect(order).toEqual(['a1 start', 'b1 start', 'b1 end', 'a1 end', 'a2 start', 'a2 end']);
  });
});
