import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { IdGenerator } from '../clock-and-ids.js';

/**
 * Requests Node's HTTP parser rejects before they reach the app (a forbidden byte in the request
 * line or a header, a header section over Node's 16 KiB, a request too slow to arrive) would get
 * Node's bare response without a body. They get the Error shape and an X-Request-Id like every other
 * response (the ErrorType table in openapi/): 431 for oversized headers, 408 for a timeout, 400 otherwise.
 */
export function respondToHttpParserErrors(server: Server, ids: IdGenerator): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const [status, reason, message] =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', 'The request headers are larger than 16 KiB.']
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'Request Timeout', 'The request did not arrive in time.']
          : [400, 'Bad Request', 'The request is not valid HTTP/1.1.'];
    const body = JSON.stringify({
      message,
      type: 'InvalidRequest',
      details: 'Check the request line and the header names and values.',
    });
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${ids.next('req')}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  });
}
