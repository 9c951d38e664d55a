/** node:http by hand: the routes read and written by hand, nothing validated. */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { announce, created, page, PORT, TOKEN, type NewItem } from './items.js';

const AUTHORIZATION = `Bearer ${TOKEN}`;

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

const server = createServer((req, res) => {
  const [path, search] = (req.url ?? '/').split('?', 2);
  if (path !== '/items') return send(res, 404, { code: 'not_found', message: 'No such path.' });
  if (req.headers.authorization !== AUTHORIZATION)
    return send(res, 401, { code: 'unauthorized', message: 'No valid token.' });
  if (req.method === 'GET') {
    const limit = Number(new URLSearchParams(search ?? '').get('limit') ?? '20');
    return send(res, 200, page(limit));
  }
  if (req.method === 'POST') {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => send(res, 201, created(JSON.parse(Buffer.concat(chunks).toString('utf8')) as NewItem)));
    return undefined;
  }
  return send(res, 405, { code: 'method_not_allowed', message: 'Not allowed.' });
});
server.listen(PORT, '127.0.0.1', () => announce((server.address() as AddressInfo).port));
