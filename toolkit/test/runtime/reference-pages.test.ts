import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import express, { type Express } from 'express';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHttpServer } from '../../src/runtime/index.js';

// The toolkit's HTTP server serves the reference pages it is given (referencePages: a path and
// its HTML file) to GET and HEAD, and leaves everything else to the app.

let directory: string;
let server: Server | undefined;

beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'reference-pages-'));
  await writeFile(path.join(directory, 'index.html'), '<!doctype html><title>Partner API</title>');
  await writeFile(path.join(directory, 'dashboard.html'), '<!doctype html><title>Dashboard API</title>');
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
  server = undefined;
});

/** An app that says, for whatever reaches it, that it was the app. */
function app(): Express {
  const application = express();
  application.use((req, res) => {
    res.status(404).json({ from: 'app', method: req.method, path: req.path });
  });
  return application;
}

async function serve(pages: Record<string, string> | undefined): Promise<string> {
  server = createHttpServer(app(), pages === undefined ? {} : { referencePages: pages });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', () => resolve()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const pages = (): Record<string, string> => ({
  '/docs': path.join(directory, 'index.html'),
  '/docs/dashboard': path.join(directory, 'dashboard.html'),
  '/docs/unbuilt': path.join(directory, 'unbuilt.html'),
});

describe('createHttpServer with referencePages', () => {
  it('serves each page for GET, with or without a trailing slash or a query, as HTML checked on every visit', async () => {
    const base = await serve(pages());
    for (const [target, title] of [
      ['/docs', 'Partner API'],
      ['/docs/', 'Partner API'],
      ['/docs?section=transfers', 'Partner API'],
      ['/docs/dashboard', 'Dashboard API'],
    ] as const) {
      const response = await fetch(`${base}${target}`);
      expect(response.status, target).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('no-cache');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(await response.text()).toContain(`<title>${title}</title>`);
    }
  });

  it('responds to HEAD with the length and no body', async () => {
    const base = await serve(pages());
    const response = await fetch(`${base}/docs`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(Number(response.headers.get('content-length'))).toBe('<!doctype html><title>Partner API</title>'.length);
    expect(await response.text()).toBe('');
  });

  it('leaves other methods, other paths and a page whose file is missing to the app', async () => {
    const base = await serve(pages());
    for (const [method, target, seenPath] of [
      ['POST', '/docs', '/docs'],
      ['DELETE', '/docs/dashboard', '/docs/dashboard'],
      ['GET', '/docs/other', '/docs/other'],
      ['GET', '/docs/dashboard/more', '/docs/dashboard/more'],
      ['GET', '/DOCS', '/DOCS'],
      ['GET', '/docs/unbuilt', '/docs/unbuilt'],
    ] as const) {
      const response = await fetch(`${base}${target}`, { method });
      expect(response.status, `${method} ${target}`).toBe(404);
      expect(await response.json()).toEqual({ from: 'app', method, path: seenPath });
    }
  });

  it('without pages, /docs is the app’s like any path', async () => {
    const base = await serve(undefined);
    expect(await (await fetch(`${base}/docs`)).json()).toEqual({ from: 'app', method: 'GET', path: '/docs' });
  });

  it.each(['docs', '/docs/', ''])('rejects the path %j when the server is built', (page) => {
    expect(() => createHttpServer(app(), { referencePages: { [page]: path.join(directory, 'index.html') } })).toThrow(
      /referencePages: .* must be a path starting with \//,
    );
  });
});
