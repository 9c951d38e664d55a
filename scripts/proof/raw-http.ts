import { connect } from 'node:net';

// A deliberately small HTTP/1.1 client over a plain socket. The fuzz and security proofs need
// requests that fetch() refuses to send: a header twice, bytes that are not UTF-8, a body
// without the header that names it, a request target exactly as written. One connection per
// request (`Connection: close`), and a deadline: a request that takes longer is a hang.

export type HeaderList = ReadonlyArray<readonly [string, string | Buffer]>;

export interface RawRequest {
  readonly method: string;
  /** The request target as sent, already percent-encoded where wanted. */
  readonly target: string;
  readonly headers: HeaderList;
  readonly body?: Buffer | undefined;
}

export interface RawResponse {
  readonly status: number;
  /** Lower-case name → values in order. */
  readonly headers: ReadonlyMap<string, readonly string[]>;
  readonly body: Buffer;
  header(name: string): string | undefined;
}

/** The server did not respond within the deadline: the "never a hang" property failed. */
export class HangError extends Error {
  constructor(request: RawRequest, timeoutMs: number) {
    super(`no response within ${timeoutMs} ms to ${request.method} ${request.target.slice(0, 200)}`);
    this.name = 'HangError';
  }
}

function headBytes(host: string, request: RawRequest): Buffer {
  const parts: Buffer[] = [Buffer.from(`${request.method} ${request.target} HTTP/1.1\r\nHost: ${host}\r\n`, 'latin1')];
  const names = new Set(request.headers.map(([name]) => name.toLowerCase()));
  for (const [name, value] of request.headers) {
    parts.push(
      Buffer.from(`${name}: `, 'latin1'),
      typeof value === 'string' ? Buffer.from(value, 'latin1') : value,
      Buffer.from('\r\n'),
    );
  }
  if (request.body !== undefined && !names.has('content-length') && !names.has('transfer-encoding')) {
    parts.push(Buffer.from(`Content-Length: ${request.body.length}\r\n`));
  }
  parts.push(Buffer.from('Connection: close\r\n\r\n'));
  return Buffer.concat(parts);
}

function dechunk(body: Buffer): Buffer {
  const out: Buffer[] = [];
  let offset = 0;
  while (offset < body.length) {
    const lineEnd = body.indexOf('\r\n', offset);
    if (lineEnd < 0) break;
    const size = Number.parseInt(body.subarray(offset, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    out.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    offset = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(out);
}

export function parseResponse(bytes: Buffer): RawResponse {
  const headEnd = bytes.indexOf('\r\n\r\n');
  if (headEnd < 0)
    throw new Error(`not an HTTP response: ${JSON.stringify(bytes.subarray(0, 200).toString('latin1'))}`);
  const [statusLine = '', ...headerLines] = bytes.subarray(0, headEnd).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
  if (!Number.isInteger(status)) throw new Error(`bad status line ${JSON.stringify(statusLine)}`);
  const headers = new Map<string, string[]>();
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    headers.set(name, [...(headers.get(name) ?? []), line.slice(colon + 1).trim()]);
  }
  let body = bytes.subarray(headEnd + 4);
  if (headers.get('transfer-encoding')?.some((value) => /chunked/i.test(value))) body = dechunk(body);
  else {
    const length = Number(headers.get('content-length')?.[0]);
    if (Number.isInteger(length)) body = body.subarray(0, length);
  }
  return { status, headers, body, header: (name) => headers.get(name.toLowerCase())?.[0] };
}

export function rawRequest(port: number, request: RawRequest, timeoutMs: number): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let done = false;
    const finish = (outcome: () => void): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      outcome();
    };
    const timer = setTimeout(() => finish(() => reject(new HangError(request, timeoutMs))), timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (error) => {
      // The server may respond and close before it read the whole body (413): keep what came.
      const bytes = Buffer.concat(chunks);
      finish(() => {
        if (bytes.indexOf('\r\n\r\n') >= 0) resolve(parseResponse(bytes));
        else reject(error);
      });
    });
    socket.on('end', () => {
      const bytes = Buffer.concat(chunks);
      finish(() => {
        try {
          resolve(parseResponse(bytes));
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
    });
    socket.write(headBytes(`127.0.0.1:${port}`, request));
    if (request.body !== undefined && request.body.length > 0) socket.write(request.body);
  });
}
