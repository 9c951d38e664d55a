/**
 * What `npm run dev` serves at its port: the references of the project's documents, at /docs
 * (the page written to index.html) and /docs/<page> (any other page), each reloading itself when
 * rebuilt (a few lines of script listening to /docs/events, Server-Sent Events), and every
 * other request forwarded as it came to the server of the moment. While a server starts, requests
 * wait for it, so a restart is never seen as a rejected connection.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Target } from './server-process.js';

export const DOCS_PATH = '/docs';
export const EVENTS_PATH = '/docs/events';

const RELOAD_SCRIPT = `<script>new EventSource(${JSON.stringify(EVENTS_PATH)}).addEventListener('reload', () => location.reload());</script>`;

/** Headers that concern one connection, not the message: each side of the forward sets its own. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
]);

export interface FrontOptions {
  /** 0: any free port. */
  readonly port: number;
  readonly target: () => Promise<Target>;
  /** A reference page as last built (`index`, `orders`), or why there is none yet; undefined for no such page. */
  readonly docs: (name: string) => { readonly html: string } | { readonly missing: string } | undefined;
}

export interface Front {
  readonly port: number;
  /** Tells every open reference page to reload. */
  reload(): void;
  close(): Promise<void>;
}

/** The page with the reload script, before `</body>` (or at the end). */
export function withReloadScript(html: string): string {
  const end = html.lastIndexOf('</body>');
  return end < 0 ? `${html}${RELOAD_SCRIPT}` : `${html.slice(0, end)}${RELOAD_SCRIPT}${html.slice(end)}`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] ?? c);
}

function withoutHopByHop(raw: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] ?? '';
    if (!HOP_BY_HOP.has(name.toLowerCase())) kept.push(name, raw[i + 1] ?? '');
  }
  return kept;
}

/** The reference page a path asks for: /docs is index.html's, /docs/NAME the page NAME.html. */
function docsPage(pathname: string, docs: FrontOptions['docs']): ReturnType<FrontOptions['docs']> {
  if (pathname === DOCS_PATH || pathname === `${DOCS_PATH}/`) return docs('index');
  const name = pathname.startsWith(`${DOCS_PATH}/`) ? pathname.slice(DOCS_PATH.length + 1).replace(/\/$/, '') : '';
  return name === '' || name === 'index' || name.includes('/') ? undefined : docs(name);
}

function respond(res: ServerResponse, status: number, message: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
  res.end(`${message}\n`);
}

function forward(req: IncomingMessage, res: ServerResponse, target: () => Promise<Target>): void {
  void target().then((to) => {
    if (res.destroyed) return;
    if ('unavailable' in to) {
      respond(res, 503, `npm run dev: no server responds: ${to.unavailable}`);
      return;
    }
    const upstream = request(
      {
        host: '127.0.0.1',
        port: to.port,
        method: req.method,
        path: req.url,
        headers: withoutHopByHop(req.rawHeaders),
        agent: false,
      },
      (response) => {
        res.writeHead(response.statusCode ?? 502, response.statusMessage, withoutHopByHop(response.rawHeaders));
        response.pipe(res);
        response.on('error', () => res.destroy());
      },
    );
    upstream.on('error', (error) => respond(res, 502, `npm run dev: the server did not respond: ${error.message}`));
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  });
}

export async function startFront(options: FrontOptions): Promise<Front> {
  const listeners = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    let pathname: string;
    try {
      pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
    } catch {
      pathname = '';
    }
    const read = req.method === 'GET' || req.method === 'HEAD';
    if (read && pathname === EVENTS_PATH) {
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store' });
      res.write('retry: 1000\n\n');
      listeners.add(res);
      res.on('close', () => listeners.delete(res));
      return;
    }
    const docs = read ? docsPage(pathname, options.docs) : undefined;
    if (docs !== undefined) {
      const page =
        'html' in docs
          ? docs.html
          : `<!doctype html><html><head><meta charset="utf-8"><title>API reference</title></head><body><p>${escapeHtml(docs.missing)}</p></body></html>`;
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : withReloadScript(page));
      return;
    }
    forward(req, res, options.target);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  return {
    port,
    reload() {
      for (const res of listeners) res.write('event: reload\ndata: \n\n');
    },
    async close() {
      for (const res of listeners) res.end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
