import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the fake service received it. */
export interface Received {
  readonly method: string;
  /** Path and query, as sent. */
  readonly url: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface Reply {
  readonly status: number;
  readonly headers?: Record<string, string>;
  /** Sent as JSON unless it is a string. */
  readonly body?: unknown;
  /** Hold the response until this promise settles (to keep a request in flight). */
  readonly after?: Promise<unknown>;
}

export type Handler = (request: Received, index: number) => Reply | Promise<Reply>;

export interface FakeService {
  readonly baseUrl: string;
  /** Every request but the token requests, in arrival order. */
  readonly requests: Received[];
  readonly tokenRequests: Received[];
  /** Replace the API handler. */
  handle(handler: Handler): void;
  /** Replace the token endpoint's handler (default: `token-N`, one hour). */
  handleToken(handler: Handler): void;
  close(): Promise<void>;
}

export function tokenReply(token: string, expiresIn = 3600): Reply {
  return {
    status: 200,
    headers: { 'Cache-Control': 'no-store' },
    body: {
      access_token: token,
      token_type: 'Bearer',
      expires_in: expiresIn,
      scope: 'cards:read cards:write transfers:read transfers:write',
    },
  };
}

/**
 * A real HTTP server on an ephemeral port that plays the service: the SDK runs over a real
 * socket and a real fetch, and each test scripts the responses it needs (a 503, a 429 with
 * Retry-After, a 401) that the real app does not give on demand.
 */
export async function startFakeService(): Promise<FakeService> {
  const requests: Received[] = [];
  const tokenRequests: Received[] = [];
  let handler: Handler = () => ({ status: 200, body: {} });
  let tokenHandler: Handler = (_request, index) => tokenReply(`token-${index + 1}`);

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = req.url ?? '/';
      const received: Received = {
        method: req.method ?? 'GET',
        url,
        path: url.split('?')[0] ?? url,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      const isToken = received.path === '/v1/oauth/token';
      const list = isToken ? tokenRequests : requests;
      list.push(received);
      Promise.resolve((isToken ? tokenHandler : handler)(received, list.length - 1))
        .then(async (reply) => {
          await reply.after;
          const text =
            reply.body === undefined ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
          res.writeHead(reply.status, { 'Content-Type': 'application/json', ...reply.headers });
          res.end(text);
        })
        .catch((error: unknown) => {
          res.writeHead(599);
          res.end(String(error));
        });
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    tokenRequests,
    handle: (next) => {
      handler = next;
    },
    handleToken: (next) => {
      tokenHandler = next;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
