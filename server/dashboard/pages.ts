import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { RequestHandler, Response } from 'express';

/**
 * The dashboard's pages at /dashboard (README, "The dashboard's pages"): the index.html and the
 * hashed assets `npm run build` bundles from client/dashboard/ into a folder (`.build/dashboard/`),
 * read once at start and served from memory. GET /dashboard and /dashboard/ are the page (the
 * views are chosen by the address's hash, so no other path is a page); /dashboard/assets/<file>
 * the script and style. /dashboard/api is the API's, mounted ahead of this.
 */

/**
 * A strict policy: the page runs only its own script file (no inline script, no eval), loads its
 * own style, talks only to its own origin and cannot be framed. The pages are built for it: no
 * inline script or style attribute anywhere.
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

interface Asset {
  readonly body: Buffer;
  readonly type: string;
}

const PAGE_PATHS = new Set(['/dashboard', '/dashboard/']);
const ASSET_PATH = /^\/dashboard\/assets\/([A-Za-z0-9_.-]+)$/;

function securityHeaders(res: Response): void {
  res.set({
    'Content-Security-Policy': DASHBOARD_CSP,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
  });
}

async function readAssets(dir: string): Promise<{ page: Buffer; assets: Map<string, Asset> } | undefined> {
  const page = await readFile(path.join(dir, 'index.html')).catch(() => undefined);
  if (page === undefined) return undefined;
  const assets = new Map<string, Asset>();
  const names = await readdir(path.join(dir, 'assets')).catch(() => [] as string[]);
  for (const name of names) {
    const type = CONTENT_TYPES[path.extname(name)];
    if (type !== undefined) assets.set(name, { body: await readFile(path.join(dir, 'assets', name)), type });
  }
  return { page, assets };
}

/**
 * The pages' middleware, from the built folder. When the folder holds no build, /dashboard responds with
 * 503 saying how to build it, and the rest of the service is unaffected.
 */
export async function dashboardPages(dir: string): Promise<RequestHandler> {
  const built = await readAssets(dir);
  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    if (PAGE_PATHS.has(req.path)) {
      securityHeaders(res);
      if (built === undefined) {
        res
          .status(503)
          .type('text/plain')
          .send(
            "The dashboard's pages are not built: run `npm run build` (or `npm run build:dashboard`), then restart.\n",
          );
        return;
      }
      // Asked for every time, so that a new build's asset names are seen at once.
      res
        .set('Cache-Control', 'no-cache')
        .type(CONTENT_TYPES['.html'] ?? 'text/html')
        .send(built.page);
      return;
    }
    const name = ASSET_PATH.exec(req.path)?.[1];
    const asset = name === undefined ? undefined : built?.assets.get(name);
    if (asset === undefined) return next();
    securityHeaders(res);
    // The name holds a hash of the content: a changed file is a new name.
    res.set('Cache-Control', 'public, max-age=31536000, immutable').type(asset.type).send(asset.body);
  };
}
