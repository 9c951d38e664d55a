/**
 * Express 5 as the toolkit serves it (createHttpServer), with one middleware doing by hand what the
 * routes need (the token, the query, the body) and nothing validated: what Express alone costs.
 */
import type { AddressInfo } from 'node:net';
import express, { type RequestHandler } from 'express';
import { createHttpServer } from 'contract-first/runtime';
import { announce, created, page, PORT, TOKEN, type NewItem } from './items.js';

const AUTHORIZATION = `Bearer ${TOKEN}`;

const app = express();
app.set('query parser', 'simple');
app.set('etag', false);
app.disable('x-powered-by');
const byHand: RequestHandler = (req, res, next) => {
  if (req.headers.authorization !== AUTHORIZATION) {
    res.status(401).json({ code: 'unauthorized', message: 'No valid token.' });
    return;
  }
  if (req.method !== 'POST') return next();
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    req.body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
    next();
  });
};
const send = (res: express.Response, status: number, body: unknown): void => {
  res.status(status).type('application/json').send(JSON.stringify(body));
};
app.get('/items', byHand, (req, res) => send(res, 200, page(Number(req.query['limit'] ?? 20))));
app.post('/items', byHand, (req, res) => send(res, 201, created(req.body as NewItem)));
const server = createHttpServer(app);
server.listen(PORT, '127.0.0.1', () => announce((server.address() as AddressInfo).port));
