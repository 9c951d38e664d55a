/**
 * `baseline-http`: raw node:http serving GET /v1/bank with the service's own bank list, the
 * floor any Node.js HTTP service stands on. Serialises the list on every request, as the service
 * does. Usage: baseline-http.ts PORT BODY_FILE (the JSON the service responded with).
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const [port, bodyFile] = process.argv.slice(2);
if (port === undefined || bodyFile === undefined) throw new Error('usage: baseline-http.ts PORT BODY_FILE');
const list: unknown = JSON.parse(readFileSync(bodyFile, 'utf8'));

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/v1/bank') {
    const body = JSON.stringify(list);
    res.writeHead(200, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
    });
    res.end(body);
    return;
  }
  res.writeHead(404).end();
});
server.listen(Number(port), '127.0.0.1');
process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
});
