/**
 * What a saved file asks of `npm run dev`. A change under openapi/ (the documents, their lint
 * rules and plugin) is linted, generated, type-checked and restarts the server; a change to the
 * server's code is type-checked and restarts it; a change to the dashboard's pages
 * (client/dashboard/) rebuilds them and restarts the server, which serves them; a change to the
 * SDK or a test is type-checked only: the server does not run it.
 */
import path from 'node:path';

export type ChangeKind = 'document' | 'server' | 'pages' | 'code';

/** The folders `npm run dev` watches, relative to the project root. */
export const WATCHED_DIRS = ['openapi', 'server', 'client'] as const;

const TEST_FILE = /\.test(?:-d)?\.ts$/;

function slashed(relativePath: string): string {
  return relativePath.split(path.sep).join('/');
}

/** What a change to `relativePath` (relative to the project root) asks for; undefined: nothing. */
export function classifyChange(relativePath: string): ChangeKind | undefined {
  const file = slashed(relativePath);
  // The document, and its lint configuration with any plugin it loads.
  if (file.startsWith('openapi/')) return /\.(?:ya?ml|json|[cm]?js)$/.test(file) ? 'document' : undefined;
  // The pages' sources, their styles and their page; their screenshots and tests are not.
  if (file.startsWith('client/dashboard/') && !file.startsWith('client/dashboard/screenshots/') && !TEST_FILE.test(file)) {
    return /\.(?:ts|css|html)$/.test(file) ? 'pages' : undefined;
  }
  if (!file.endsWith('.ts')) return undefined;
  if (file.startsWith('server/')) return TEST_FILE.test(file) ? 'code' : 'server';
  if (file.startsWith('client/')) return 'code';
  return undefined;
}

/** A file the server runs: server/ without its tests, and generated/. Its type errors hold a restart back. */
export function isServerFile(relativePath: string): boolean {
  const file = slashed(relativePath);
  if (file.startsWith('generated/')) return true;
  return file.startsWith('server/') && !TEST_FILE.test(file);
}
