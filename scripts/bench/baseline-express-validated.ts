/**
 * `baseline-express-validated`: Express served as the toolkit serves it (its HTTP server,
 * contract-first/runtime) with the toolkit's request validation
 * (contract-first/runtime, express-openapi-validator) of the service's bundled
 * document mounted as the service mounts it, serving GET /v1/bank with the service's own bank
 * list: the toolkit's part of a request and nothing else. Beside the service's bank list in the
 * same run, it shows what the service adds to it. Usage: baseline-express-validated.ts PORT BODY_FILE.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { createHttpServer } from 'contract-first/runtime';
import { createOpenApiValidation } from 'contract-first/runtime';

const [port, bodyFile] = process.argv.slice(2);
if (port === undefined || bodyFile === undefined)
  throw new Error('usage: baseline-express-validated.ts PORT BODY_FILE');
const list: unknown = JSON.parse(readFileSync(bodyFile, 'utf8'));

// As in production: requests validated, responses not.
const validation = createOpenApiValidation({
  apiSpec: fileURLToPath(new URL('../../generated/openapi.json', import.meta.url)),
  validateResponses: false,
});
const app = express();
app.use(...validation.routing);
app.get('/v1/bank', ...validation.operation, (_req, res) => {
  res.json(list);
});
const server = createHttpServer(app).listen(Number(port), '127.0.0.1');
process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
});
