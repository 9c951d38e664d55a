/**
 * `npm start`: the only reader of process.env and the only opener of sockets.
 *
 * PORT (3000), NODE_ENV (every response is checked against the document unless it is `production`),
 * PUBLIC_URL (where clients reach this server, for the address it logs; default
 * http://localhost:PORT). It logs one JSON line per event on stdout (`listening` once it responds).
 */
import type { AddressInfo } from 'node:net';
import { createApp } from './app.js';
import { createHttpServer } from 'contract-first/runtime';

function port(): number {
  const raw = process.env['PORT'] ?? '3000';
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 65535)
    throw new Error(`PORT must be an integer from 0 to 65535 (got ${JSON.stringify(raw)})`);
  return value;
}

const log = (msg: string, fields: Record<string, unknown> = {}): void => {
  console.log(JSON.stringify({ time: new Date().toISOString(), msg, ...fields }));
};

const validateResponses = process.env['NODE_ENV'] !== 'production';
const app = createApp({ validateResponses, log: (line) => log(line) });
const server = createHttpServer(app);
await new Promise<void>((resolve, reject) => {
  server.once('error', reject);
  server.listen(port(), () => resolve());
});
const { port: listening } = server.address() as AddressInfo;

// One request through the validator before the start is announced: it reads the document and
// builds its validators then, so that no request after "listening" waits for them, and a document
// it cannot use fails the start instead of every request.
const warmUp = await fetch(`http://127.0.0.1:${listening}/.well-known/warm-up`, { headers: { Connection: 'close' } });
await warmUp.arrayBuffer();
if (warmUp.status >= 500) throw new Error(`the server cannot respond: its warm-up request got HTTP ${warmUp.status}`);

const url = process.env['PUBLIC_URL'] ?? `http://localhost:${listening}`;
log('listening', { port: listening, url, validateResponses });

/** SIGTERM or SIGINT: stop taking connections, let the requests in flight finish, then exit. */
function shutDown(signal: string): void {
  log('stopping', { signal });
  server.close(() => process.exit(0));
  server.closeIdleConnections();
  setTimeout(() => process.exit(1), 10_000).unref();
}
process.once('SIGTERM', () => shutDown('SIGTERM'));
process.once('SIGINT', () => shutDown('SIGINT'));
