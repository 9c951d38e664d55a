/** Express 5 as its guide writes it: express.json, res.json, app.listen; nothing validated. */
import type { AddressInfo } from 'node:net';
import express from 'express';
import { announce, created, page, PORT, TOKEN, type NewItem } from './items.js';

const app = express();
app.use((req, res, next) => {
  if (req.get('authorization') === `Bearer ${TOKEN}`) next();
  else res.status(401).json({ code: 'unauthorized', message: 'No valid token.' });
});
app.get('/items', (req, res) => {
  res.json(page(Number(req.query['limit'] ?? 20)));
});
app.post('/items', express.json(), (req, res) => {
  res.status(201).json(created(req.body as NewItem));
});
const server = app.listen(PORT, '127.0.0.1', () => announce((server.address() as AddressInfo).port));
