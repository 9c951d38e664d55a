/**
 * `baseline-express`: bare Express 5 (no middleware) serving GET /v1/bank with the service's
 * own bank list through `res.json`, the yardstick the targets are ratios of.
 * Usage: baseline-express.ts PORT BODY_FILE (the JSON the service responded with).
 */
import { readFileSync } from 'node:fs';
import express from 'express';

const [port, bodyFile] = process.argv.slice(2);
if (port === undefined || bodyFile === undefined) throw new Error('usage: baseline-express.ts PORT BODY_FILE');
const list: unknown = JSON.parse(readFileSync(bodyFile, 'utf8'));

const app = express();
app.get('/v1/bank', (_req, res) => {
  res.json(list);
});
const server = app.listen(Number(port), '127.0.0.1');
process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
});
