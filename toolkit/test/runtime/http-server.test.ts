import { Agent, createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express } from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpServer } from '../../src/runtime/index.js';

// The toolkit's HTTP server builds requests and responses with the app's prototypes, so that
// Express has none to change (src/runtime/http-server.ts).

let server: Server | undefined;
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
  server = undefined;
});

interface Seen {
  /** The prototypes of the request and the response as Node built them, before Express took them. */
  readonly built: { readonly request: boolean; readonly response: boolean };
}

/** Serves `app` through `serve`, noting what Node built for each request before Express sees it. */
async function start(app: Express, serve: (app: Express) => Server): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  server = serve(app);
  server.prependListener('request', (req: IncomingMessage, res) => {
    seen.push({
      built: {
        request: Object.getPrototypeOf(req) === app.request,
        response: Object.getPrototypeOf(res) === app.response,
      },
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', () => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

function get(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: IncomingMessage['headers']; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

function appWithRoutes(): Express {
  const app = express();
  app.set('etag', false);
  // Express's own request and response methods, and a parameter.
  app.get('/items/:id', (req, res) => {
    res
      .set('X-Seen-Header', req.get('x-probe') ?? 'none')
      .status(201)
      .json({ id: req.params['id'], path: req.path, json: req.is('json') });
  });
  return app;
}

describe('createHttpServer', () => {
  it("builds each request and response with the app's prototypes, on every request of a kept-alive connection", async () => {
    const { url, seen } = await start(appWithRoutes(), createHttpServer);
    for (const id of ['a', 'b', 'c']) {
      const response = await get(`${url}/items/${id}`, { 'X-Probe': `probe-${id}` });
      expect(response.status).toBe(201);
      expect(response.headers['x-seen-header']).toBe(`probe-${id}`);
      expect(JSON.parse(response.body)).toEqual({ id, path: `/items/${id}`, json: null });
    }
    expect(seen).toEqual(Array.from({ length: 3 }, () => ({ built: { request: true, response: true } })));
  });

  it("node:http's own server, the one app.listen makes, builds them for Express to change (what the toolkit's avoids)", async () => {
    const { url, seen } = await start(appWithRoutes(), (app) => createServer(app));
    expect((await get(`${url}/items/x`)).status).toBe(201);
    expect(seen).toEqual([{ built: { request: false, response: false } }]);
  });

  it('responds to what no route takes as Express does (404 from its final handler)', async () => {
    const { url } = await start(appWithRoutes(), createHttpServer);
    const response = await get(`${url}/nowhere`);
    expect(response.status).toBe(404);
  });
});
