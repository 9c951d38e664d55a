import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import type { OutgoingRequest } from './cases.js';

/**
 * Sends requests with Node's own HTTP client over kept-alive connections (measured against
 * `npm run serve` on two cores: node:http sustained 2.5 to 4.9 thousand requests a second where
 * `fetch` sustained about one thousand), one response's deadline per request.
 */

export interface ReceivedResponse {
  readonly status: number;
  /** Lower-case names; repeated headers joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly ms: number;
}

export type Outcome =
  | { readonly kind: 'response'; readonly response: ReceivedResponse }
  /** No complete response within the deadline. */
  | { readonly kind: 'hang'; readonly ms: number }
  /** The connection was rejected, reset or closed before a response. */
  | { readonly kind: 'network'; readonly message: string; readonly ms: number }
  /** Node would not send the request as built (a header it cannot carry). */
  | { readonly kind: 'unsendable'; readonly message: string };

export interface SenderOptions {
  readonly timeoutMs: number;
  /** Connections kept per host: the requests in flight at most. */
  readonly concurrency: number;
}

/** Responses larger than this are cut there (their bodies are then judged as cut). */
const MAX_BODY_BYTES = 8 * 1024 * 1024;

/**
 * The longest request head (request line and header fields) the checker sends: 8,000 octets, the
 * URI length RFC 9110 (section 4.1) asks every server to accept at least. Past what it accepts a
 * server may reject the head with 414 or 431 before any of its code runs (Node's HTTP parser
 * responds with 431 and no body past 16 KiB), so a longer request (a string at a large `maxLength` in
 * a path, query or header) would judge the server's HTTP layer rather than its contract: it is
 * not sent, and the report counts it as not sendable.
 */
export const MAX_HEAD_OCTETS = 8_000;

/** The octets of the head Node writes for a request: its request line and header fields. */
function headOctets(method: string, target: string, headers: readonly (readonly [string, string])[]): number {
  let octets = Buffer.byteLength(`${method} ${target} HTTP/1.1\r\n\r\n`);
  for (const [name, value] of headers) octets += Buffer.byteLength(`${name}: ${value}\r\n`, 'latin1');
  return octets;
}

export class Sender {
  private readonly agents: { readonly http: http.Agent; readonly https: https.Agent };

  constructor(private readonly options: SenderOptions) {
    const shared = { keepAlive: true, maxSockets: options.concurrency, maxFreeSockets: options.concurrency };
    this.agents = { http: new http.Agent(shared), https: new https.Agent(shared) };
  }

  /** Sends `request`; never rejects. */
  async send(request: OutgoingRequest): Promise<Outcome> {
    const first = await this.attempt(request);
    // A kept-alive connection the server closed as it was reused fails at once: that is the
    // connection's end, not the server's response to this request (Node's documentation of
    // `request.reusedSocket`); the request is sent again once on a new connection.
    if (first.outcome.kind === 'network' && first.reused) return (await this.attempt(request)).outcome;
    return first.outcome;
  }

  private attempt(request: OutgoingRequest): Promise<{ outcome: Outcome; reused: boolean }> {
    return new Promise((resolve) => {
      const started = performance.now();
      const elapsed = (): number => performance.now() - started;
      let settled = false;
      let reused = false;
      const finish = (outcome: Outcome): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ outcome, reused });
      };
      let url: URL;
      try {
        url = new URL(request.url);
      } catch (error) {
        resolve({
          outcome: { kind: 'unsendable', message: error instanceof Error ? error.message : String(error) },
          reused: false,
        });
        return;
      }
      const secure = url.protocol === 'https:';
      const body = request.bodyBytes ?? request.body;
      // The request target and the header fields as they go on the wire: Host first unless given.
      const path = request.target ?? `${url.pathname}${url.search}`;
      const given = request.headerList ?? Object.entries(request.headers);
      const fields: (readonly [string, string])[] = given.some(([name]) => name.toLowerCase() === 'host')
        ? [...given]
        : [['Host', url.host], ...given];
      const head = headOctets(request.method, path, fields);
      if (head > MAX_HEAD_OCTETS) {
        const message = `its request line and headers are ${head} octets; the checker sends at most ${MAX_HEAD_OCTETS} (RFC 9110, section 4.1)`;
        resolve({ outcome: { kind: 'unsendable', message }, reused: false });
        return;
      }
      const agent = secure ? this.agents.https : this.agents.http;
      let outgoing: http.ClientRequest;
      try {
        if (request.target !== undefined || request.headerList !== undefined) {
          // Headers as a list (Node's `rawHeaders` form) are sent as they are: Node adds no Host.
          const names = new Set(given.map(([name]) => name.toLowerCase()));
          const flat = fields.flatMap(([name, value]) => [name, value]);
          if (body !== null && !names.has('content-length') && !names.has('transfer-encoding'))
            flat.push('Content-Length', String(Buffer.byteLength(body)));
          outgoing = (secure ? https : http).request({
            protocol: url.protocol,
            hostname: url.hostname.replace(/^\[|\]$/g, ''),
            port: url.port,
            path,
            method: request.method,
            headers: flat,
            agent,
          });
        } else {
          const headers: Record<string, string> = { ...request.headers };
          if (body !== null) headers['Content-Length'] = String(Buffer.byteLength(body));
          outgoing = (secure ? https : http).request(url, { method: request.method, headers, agent });
        }
      } catch (error) {
        resolve({
          outcome: { kind: 'unsendable', message: error instanceof Error ? error.message : String(error) },
          reused: false,
        });
        return;
      }
      const timer = setTimeout(() => {
        finish({ kind: 'hang', ms: elapsed() });
        outgoing.destroy();
      }, this.options.timeoutMs);
      outgoing.on('socket', () => {
        reused = outgoing.reusedSocket;
      });
      outgoing.on('error', (error: NodeJS.ErrnoException) =>
        finish({ kind: 'network', message: error.code ?? error.message, ms: elapsed() }),
      );
      outgoing.on('response', (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= MAX_BODY_BYTES) chunks.push(chunk);
        });
        response.on('error', (error: NodeJS.ErrnoException) =>
          finish({ kind: 'network', message: error.code ?? error.message, ms: elapsed() }),
        );
        response.on('end', () => {
          const responseHeaders: Record<string, string> = {};
          for (const [name, value] of Object.entries(response.headers)) {
            if (value !== undefined) responseHeaders[name] = Array.isArray(value) ? value.join(', ') : value;
          }
          finish({
            kind: 'response',
            response: {
              status: response.statusCode ?? 0,
              headers: responseHeaders,
              body: Buffer.concat(chunks).toString('utf8'),
              ms: elapsed(),
            },
          });
        });
      });
      outgoing.end(body ?? undefined);
    });
  }

  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }
}
