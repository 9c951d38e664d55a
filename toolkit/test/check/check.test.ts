import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/check.js';
import type { ScriptOutput } from '../../src/cli.js';
import { runCheck } from '../../src/check/run.js';
import type { CheckReport } from '../../src/check/report.js';

/**
 * `npm run check` against a small server with one planted defect per operation: each finding kind
 * is reported, on its operation, once; a correct operation gives none.
 */

const error = {
  description: 'rejected',
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
};
const item = {
  type: 'object',
  required: ['id', 'name', 'price'],
  properties: { id: { type: 'string' }, name: { type: 'string', maxLength: 5 }, price: { type: 'number', minimum: 0 } },
};
const document = {
  openapi: '3.1.0',
  info: { title: 'planted', version: '1' },
  security: [{ key: [] }],
  paths: {
    '/items': {
      get: {
        operationId: 'listItems',
        parameters: [
          { name: 'limit', in: 'query', required: true, schema: { type: 'integer', minimum: 1, maximum: 10 } },
        ],
        responses: {
          '200': { description: 'items', content: { 'application/json': { schema: { type: 'array', items: item } } } },
          '400': error,
          '401': error,
        },
      },
      post: {
        operationId: 'createItem',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['name', 'price'],
                additionalProperties: false,
                properties: { name: item.properties.name, price: item.properties.price },
              },
            },
          },
        },
        responses: {
          '201': { description: 'created', content: { 'application/json': { schema: item } } },
          '400': error,
          '401': error,
        },
      },
    },
    '/items/{itemId}': {
      get: {
        operationId: 'getItem',
        parameters: [{ name: 'itemId', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '200': { description: 'the item', content: { 'application/json': { schema: item } } },
          '404': error,
          '401': error,
        },
      },
    },
    '/open': {
      get: {
        operationId: 'getOpen',
        responses: {
          '200': { description: 'open', content: { 'application/json': { schema: { type: 'object' } } } },
          '401': error,
        },
      },
    },
    '/status': {
      get: {
        operationId: 'getStatus',
        security: [],
        responses: {
          '200': { description: 'status', content: { 'application/json': { schema: { type: 'object' } } } },
        },
      },
    },
    '/price': {
      get: {
        operationId: 'getPrice',
        security: [],
        responses: { '200': { description: 'price', content: { 'application/json': { schema: item } } } },
      },
    },
    '/rate': {
      get: {
        operationId: 'getRate',
        security: [],
        responses: {
          '200': {
            description: 'rate',
            headers: { 'X-Rate': { required: true, schema: { type: 'integer' } } },
            content: { 'application/json': { schema: { type: 'object' } } },
          },
        },
      },
    },
    '/teapot': { get: { operationId: 'getTeapot', security: [], responses: { '200': { description: 'tea' } } } },
    '/jobs': {
      post: {
        operationId: 'startJob',
        security: [],
        responses: { '202': { description: 'started', headers: { Location: { schema: { type: 'string' } } } } },
      },
    },
    '/jobs/{jobId}': {
      get: {
        operationId: 'getJob',
        security: [],
        parameters: [{ name: 'jobId', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '200': { description: 'the job', content: { 'application/json': { schema: { type: 'object' } } } },
          '404': error,
        },
      },
    },
    '/slow': { get: { operationId: 'getSlow', security: [], responses: { '200': { description: 'eventually' } } } },
    '/reset': { get: { operationId: 'getReset', security: [], responses: { '200': { description: 'never' } } } },
    '/ok': {
      get: {
        operationId: 'getOk',
        parameters: [{ name: 'n', in: 'query', required: true, schema: { type: 'integer', minimum: 0, maximum: 5 } }],
        responses: {
          '200': {
            description: 'n squared',
            content: {
              'application/json': {
                schema: { type: 'object', required: ['square'], properties: { square: { type: 'integer' } } },
              },
            },
          },
          '400': error,
          '401': error,
        },
      },
    },
  },
  components: {
    schemas: { Error: { type: 'object', required: ['message'], properties: { message: { type: 'string' } } } },
    securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-Key' } },
  },
};

const send = (res: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}): void => {
  res.writeHead(status, body === undefined ? headers : { 'Content-Type': 'application/json', ...headers });
  res.end(body === undefined ? undefined : JSON.stringify(body));
};
const readBody = async (req: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

let jobs = 0;

/** The planted defects, one an operation; getOk is right. */
async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const body = await readBody(req);
  const keyed = req.headers['x-key'] === 'secret';
  const route = url.pathname.replace(/^\/items\/[^/]+$/, '/items/{itemId}').replace(/^\/jobs\/[^/]+$/, '/jobs/{jobId}');
  switch (`${req.method} ${route}`) {
    case 'GET /items': {
      if (!keyed) return send(res, 401, { message: 'key' });
      const limit = Number(url.searchParams.get('limit'));
      if (!Number.isInteger(limit) || limit < 1 || limit > 10) return send(res, 400, { message: 'limit' });
      // Planted: a server error for valid values from 6 up (shrunk, 6 is the one reported).
      if (limit >= 6) return send(res, 500, { message: 'six and more' });
      return send(res, 200, []);
    }
    case 'POST /items': {
      if (!keyed) return send(res, 401, { message: 'key' });
      // Planted: no validation; anything JSON is created.
      try {
        const parsed = JSON.parse(body) as Record<string, unknown>;
        return send(res, 201, { id: 'i-1', name: String(parsed['name'] ?? '').slice(0, 5), price: 1 });
      } catch {
        return send(res, 400, { message: 'json' });
      }
    }
    case 'GET /items/{itemId}':
      if (!keyed) return send(res, 401, { message: 'key' });
      // Planted: what was created is never found.
      return send(res, 404, { message: 'none' });
    case 'GET /open':
      // Planted: the key is never asked for.
      return send(res, 200, {});
    case 'GET /status':
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      return void res.end('fine');
    case 'GET /price':
      return send(res, 200, { id: 'p', name: 'n', price: 'free' });
    case 'GET /rate':
      return send(res, 200, {});
    case 'POST /jobs':
      // The job is named by its Location only.
      return send(res, 202, undefined, { Location: `/jobs/j-${(jobs += 1)}` });
    case 'GET /jobs/{jobId}':
      // Planted: the job the Location names is never found.
      return send(res, 404, { message: 'no job' });
    case 'GET /teapot':
      return send(res, 418, { message: 'teapot' });
    case 'GET /slow':
      return void setTimeout(() => send(res, 200), 2000);
    case 'GET /reset':
      return void req.socket.destroy();
    case 'GET /ok': {
      if (!keyed) return send(res, 401, { message: 'key' });
      const text = url.searchParams.get('n') ?? '';
      const n = Number(text);
      if (!/^\d+$/.test(text) || n > 5) return send(res, 400, { message: 'n' });
      return send(res, 200, { square: n * n });
    }
    default:
      return send(res, 404, { message: 'no route' });
  }
}

describe('npm run check', () => {
  let server: http.Server;
  let baseUrl: string;
  let folder: string;
  let input: string;

  beforeAll(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), 'check-test-'));
    input = path.join(folder, 'openapi.json');
    await writeFile(input, JSON.stringify(document));
    server = http.createServer((req, res) => void handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await rm(folder, { recursive: true, force: true });
  });

  const findingsOf = (report: CheckReport) => report.findings.map((finding) => `${finding.kind} ${finding.operation}`);

  it('reports each planted defect once, on its operation', async () => {
    const report = await runCheck({
      input,
      baseUrl,
      cases: 30,
      seed: 42,
      timeoutMs: 300,
      headers: [['X-Key', 'secret']],
    });
    const found = findingsOf(report);
    for (const expected of [
      'server-error listItems',
      'accepted-invalid createItem',
      'created-not-found getItem',
      'accepted-without-credentials getOpen',
      'ignored-auth getOpen',
      'created-not-found getJob',
      'content-type getStatus',
      'response-body getPrice',
      'response-header getRate',
      'undeclared-status getTeapot',
      'hang getSlow',
      'network getReset',
    ]) {
      expect(found, expected).toContain(expected);
    }
    expect(found.filter((finding) => finding.endsWith(' getOk'))).toEqual([]);
    // Once: what differs between two findings of a kind on an operation is the constraint broken.
    const keys = report.findings.map(
      (finding) =>
        `${finding.kind} ${finding.operation} ${finding.status} ${finding.kind === 'accepted-invalid' ? finding.message.split(': ').slice(1, 3).join(': ') : ''}`,
    );
    expect(new Set(keys).size).toBe(keys.length);
    const serverError = report.findings.find((finding) => finding.kind === 'server-error');
    expect(serverError?.request.url).toBe(`${baseUrl}/items?limit=6`);
    expect(serverError?.curl).toBe(`curl '${baseUrl}/items?limit=6' -H 'X-Key: secret'`);
    expect(serverError?.replay).toContain('--seed 42 --include listItems');
  });

  it('shrinks an accepted invalid body to a small one', async () => {
    const report = await runCheck({
      input,
      baseUrl,
      cases: 30,
      seed: 7,
      include: ['createItem'],
      sequences: false,
      headers: [['X-Key', 'secret']],
    });
    const accepted = report.findings.filter((finding) => finding.kind === 'accepted-invalid');
    expect(accepted.length).toBeGreaterThan(0);
    for (const finding of accepted) expect((finding.request.body ?? '').length).toBeLessThan(60);
  });

  it('finds nothing on an operation that keeps its contract, and exits 0', async () => {
    const lines: string[] = [];
    const output: ScriptOutput = { stdout: (text) => lines.push(text), stderr: (text) => lines.push(text) };
    const json = path.join(folder, 'ok.json');
    const junit = path.join(folder, 'ok.xml');
    const code = await main(
      [
        '--input',
        input,
        '--base-url',
        baseUrl,
        '--include',
        'getOk',
        '--header',
        'X-Key: secret',
        '--seed',
        '3',
        '--cases',
        '20',
        '--report-json',
        json,
        '--report-junit',
        junit,
      ],
      output,
      folder,
    );
    expect(lines.join('')).toContain('findings: 0');
    expect(code).toBe(0);
    const report = JSON.parse(await readFile(json, 'utf8')) as CheckReport;
    expect(Object.keys(report).sort()).toEqual(
      [
        'baseUrl',
        'byOperation',
        'document',
        'durationMs',
        'findings',
        'notes',
        'operations',
        'requests',
        'seed',
        'timings',
        'warnings',
      ].sort(),
    );
    expect(report).toMatchObject({ seed: 3, baseUrl, operations: 1, findings: [], warnings: [] });
    expect(report.byOperation).toEqual([
      {
        operation: 'getOk',
        requests: report.requests,
        successes: expect.any(Number) as number,
        statuses: expect.any(Object) as object,
      },
    ]);
    expect(report.byOperation[0]?.successes).toBeGreaterThan(20);
    expect(report.requests).toBeGreaterThan(20);
    expect(await readFile(junit, 'utf8')).toContain('<testcase classname="');
  });

  it('exits 1 with findings, and writes them to the JSON report', async () => {
    const json = path.join(folder, 'teapot.json');
    const output: ScriptOutput = { stdout: () => undefined, stderr: () => undefined };
    expect(
      await main(
        ['--input', input, '--base-url', baseUrl, '--include', 'getTeapot', '--cases', '2', '--report-json', json],
        output,
        folder,
      ),
    ).toBe(1);
    const report = JSON.parse(await readFile(json, 'utf8')) as CheckReport;
    expect(report.findings.map((finding) => [finding.kind, finding.operation, finding.status])).toEqual([
      ['undeclared-status', 'getTeapot', 418],
    ]);
    expect(Object.keys(report.findings[0] ?? {}).sort()).toEqual(
      ['curl', 'kind', 'message', 'operation', 'replay', 'request', 'requestKind', 'seed', 'status'].sort(),
    );
  });

  it.each<[string, string[]]>([
    ['no --input', ['--base-url', 'http://127.0.0.1:1']],
    ['no --base-url', ['--input', 'x.yaml']],
    ['a bad number', ['--input', 'x.yaml', '--base-url', 'http://127.0.0.1:1', '--cases', 'many']],
    ['an unknown flag', ['--input', 'x.yaml', '--base-url', 'http://127.0.0.1:1', '--fast']],
    ['a document that cannot be read', ['--input', 'missing.yaml', '--base-url', 'http://127.0.0.1:1']],
  ])('exits 2 on %s', async (_name, argv) => {
    const errors: string[] = [];
    expect(await main(argv, { stdout: () => undefined, stderr: (text) => errors.push(text) }, folder)).toBe(2);
    expect(errors.join('')).not.toBe('');
  });

  it('sends the credential given made wrong, and reports a response other than 401 or 403 as ignored-auth', async () => {
    const report = await runCheck({
      input,
      baseUrl,
      cases: 5,
      seed: 2,
      include: ['getOpen', 'getOk'],
      headers: [['X-Key', 'secret']],
    });
    const ignored = report.findings.filter((finding) => finding.kind === 'ignored-auth');
    expect(ignored.map((finding) => [finding.operation, finding.status, finding.requestKind])).toEqual([
      ['getOpen', 200, 'wrong-credentials'],
    ]);
    expect(ignored[0]?.request.headers['X-Key']).toBe('sedret');
    expect(ignored[0]?.curl).toContain("-H 'X-Key: sedret'");
    expect(ignored[0]?.replay).toContain('--include getOpen');
  });

  it('sends no wrong credentials when none was given', async () => {
    const report = await runCheck({ input, baseUrl, cases: 5, seed: 2, include: ['getOpen'] });
    expect(report.findings.map((finding) => finding.kind)).not.toContain('ignored-auth');
  });

  it('reports only the checks selected', async () => {
    const only = await runCheck({
      input,
      baseUrl,
      cases: 5,
      seed: 2,
      include: ['getOpen'],
      headers: [['X-Key', 'secret']],
      checks: ['ignored-auth'],
    });
    expect(only.findings.map((finding) => finding.kind)).toEqual(['ignored-auth']);
    const without = await runCheck({
      input,
      baseUrl,
      cases: 5,
      seed: 2,
      include: ['getOpen'],
      headers: [['X-Key', 'secret']],
      excludeChecks: ['ignored-auth'],
    });
    expect(without.findings.map((finding) => finding.kind)).toEqual(['accepted-without-credentials']);
  });

  it('exits 0 when the only finding is of a check left out, and warns of an operation that never got a 2xx', async () => {
    const lines: string[] = [];
    const output: ScriptOutput = { stdout: (text) => lines.push(text), stderr: (text) => lines.push(text) };
    const argv = [
      '--input',
      input,
      '--base-url',
      baseUrl,
      '--include',
      'getTeapot,getItem',
      '--cases',
      '3',
      '--seed',
      '1',
    ];
    expect(
      await main([...argv, '--header', 'X-Key: secret', '--exclude-checks', 'undeclared-status'], output, folder),
    ).toBe(0);
    const text = lines.join('');
    expect(text).toContain('findings: 0');
    expect(text).toMatch(
      /requests per operation \(sent, 2xx\):\n {2}getItem {4}\d+ sent, 0 2xx\n {2}getTeapot {2}\d+ sent, 0 2xx\n/,
    );
    expect(text).toMatch(
      /warning: getItem never got a 2xx in \d+ requests \([^)]*\): no existing ids: give examples of the path parameters, or links from an operation that creates them\n/,
    );
    expect(text).toMatch(
      /warning: getTeapot never got a 2xx in \d+ requests \(418 ×\d+\): the requests meant to succeed got 418 ×\d+\n/,
    );
    lines.length = 0;
    expect(await main([...argv, '--checks', 'undeclared-status,server-error'], output, folder)).toBe(1);
    expect(lines.join('')).toContain('undeclared-status: getTeapot (418)');
    // The replay selects the same checks.
    expect(lines.join('')).toMatch(/replay: npx contract-first check .* --checks undeclared-status,server-error\n/);
  });

  it('exits 2 on an unknown check, naming the known ones', async () => {
    const errors: string[] = [];
    const output: ScriptOutput = { stdout: () => undefined, stderr: (text) => errors.push(text) };
    expect(
      await main(['--input', input, '--base-url', baseUrl, '--checks', 'server-error,ignored_auth'], output, folder),
    ).toBe(2);
    expect(errors.join('')).toContain(
      '--checks: no check is named "ignored_auth": the checks are all, server-error, undeclared-status',
    );
    expect(errors.join('')).toContain('Usage: contract-first check');
    errors.length = 0;
    expect(await main(['--input', input, '--base-url', baseUrl, '--exclude-checks', 'nope'], output, folder)).toBe(2);
    expect(errors.join('')).toContain('--exclude-checks: no check is named "nope"');
  });

  it('exits 2 naming an operation the document lacks', async () => {
    const errors: string[] = [];
    expect(
      await main(
        ['--input', input, '--base-url', baseUrl, '--include', 'nope'],
        { stdout: () => undefined, stderr: (text) => errors.push(text) },
        folder,
      ),
    ).toBe(2);
    expect(errors.join('')).toContain('"nope"');
  });
});
