/**
 * The CPU a request spends in validation alone: the same requests through two Express apps built
 * from the bundled document, one with the toolkit's validation (contract-first/runtime) and one without,
 * each route responding to the document's own example. Requests go over loopback on one kept-alive
 * connection from this same process, one after another (no database), and the process's CPU time
 * is read around each batch: client, sockets and Express cost the same for both apps, so the
 * difference between them is what validation costs.
 *
 * CPU time on a shared virtual machine moves by tens of microseconds between rounds: the two
 * apps take turns, many rounds, and the least of each app's rounds is compared (what the machine
 * adds only ever adds).
 *
 * Usage: npx tsx scripts/bench/validation.ts [--requests N] [--rounds N] [--responses] [--only NAME] (USAGE below).
 */
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import express, { type Express, type RequestHandler } from 'express';
import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { routeList } from '../../generated/server.js';
import { createOpenApiValidation } from 'contract-first/runtime';
import type { OpenApiDocument } from 'contract-first';
import { successExample } from 'contract-first';
import { parseFlags, reportUsageError, runAsMain, wholeNumberFlag } from 'contract-first/cli';

const USAGE = `Usage: npx tsx scripts/bench/validation.ts [--requests N] [--rounds N] [--responses] [--only NAME]
  --requests N    requests a round, to each app (default 2000)
  --rounds N      rounds, the apps taking turns (default 15)
  --responses     also check responses, as development and tests do (off in production)
  --only NAME     one request: bank list, card read, signed create or filtered page`;

const API_SPEC_PATH = fileURLToPath(new URL('../../generated/openapi.json', import.meta.url));

type Json = Record<string, unknown>;

function buildApp(document: Json, validation: ReturnType<typeof createOpenApiValidation> | undefined): Express {
  const app = express();
  app.set('case sensitive routing', true);
  app.set('query parser', 'simple');
  app.set('etag', false);
  app.disable('x-powered-by');
  if (validation !== undefined) app.use(...validation.routing);
  const parsers = [
    express.json({ type: ['application/json', 'application/merge-patch+json'] }),
    express.urlencoded({ extended: false }),
  ];
  for (const route of routeList) {
    // The document's example of the operation's first success response, as a scaffolded stub responds.
    const example = successExample(document as unknown as OpenApiDocument, route.path, route.method) ?? {
      status: 204,
      value: undefined,
      headers: {},
    };
    const handler: RequestHandler = (_req, res) => {
      res.set(example.headers).status(example.status);
      if (example.value === undefined) res.end();
      else res.json(example.value);
    };
    app[route.method as 'get'](
      [...route.expressPaths],
      ...(route.requestContentTypes.length > 0 ? parsers : []),
      ...(validation?.operation ?? []),
      handler,
    );
  }
  app.use(((error, _req, res, _next) => {
    res.status(500).json({ message: String(error) });
  }) as express.ErrorRequestHandler);
  return app;
}

interface Probe {
  readonly name: string;
  readonly method: 'GET' | 'POST';
  readonly url: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

const WRITE_HEADERS = {
  'Idempotency-Key': 'bench-0123456789ab',
  'X-Partner-Request-Timestamp': '1767225600',
  'X-Partner-Signature': 'c2lnbmF0dXJl',
};
const PROBES: readonly Probe[] = [
  { name: 'bank list', method: 'GET', url: '/v1/bank' },
  { name: 'card read', method: 'GET', url: '/v1/card/crd_01j9x3k8b2d5f8h1k4m7p0r3t6' },
  {
    name: 'signed create',
    method: 'POST',
    url: '/v1/transfer',
    headers: { ...WRITE_HEADERS, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      amountCents: 150000,
      currency: 'EGP',
      bankId: 'nbe',
      accountNumber: 'EG650019000500000000263180001',
      accountName: 'Nile Supplies',
      category: 'LOGISTICS',
    }),
  },
  {
    name: 'filtered page',
    method: 'GET',
    url: '/v1/transaction?limit=100&statuses=SUCCEEDED,REVERSED&merchant=mar&fromDate=0',
  },
];

interface Target {
  readonly port: number;
  readonly agent: Agent;
  close(): Promise<void>;
}

async function listen(app: Express): Promise<Target> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  return {
    port: (server.address() as AddressInfo).port,
    agent,
    async close() {
      agent.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Sends `requests` of the probe one after another; the process's CPU µs per request, and the last status. */
async function cpuUsPerRequest(
  target: Target,
  probe: Probe,
  requests: number,
): Promise<{ us: number; status: number }> {
  let status = 0;
  const once = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const options = {
        host: '127.0.0.1',
        port: target.port,
        agent: target.agent,
        method: probe.method,
        path: probe.url,
        headers: probe.headers ?? {},
      };
      const outgoing = request(options, (response) => {
        status = response.statusCode ?? 0;
        response.resume();
        response.once('end', () => resolve());
      });
      outgoing.once('error', reject);
      outgoing.end(probe.body);
    });
  const start = process.cpuUsage();
  for (let i = 0; i < requests; i += 1) await once();
  const used = process.cpuUsage(start);
  return { us: (used.user + used.system) / requests, status };
}

const least = (values: readonly number[]): number => Math.min(...values);

async function main(argv: readonly string[]): Promise<number> {
  const values = parseFlags(
    argv,
    {
      requests: { type: 'string' },
      rounds: { type: 'string' },
      responses: { type: 'boolean' },
      only: { type: 'string' },
      help: { type: 'boolean' },
    },
    USAGE,
  );
  if (typeof values === 'number') return values;
  const requests = wholeNumberFlag('--requests', values.requests, 1, 10_000_000, 2_000);
  const rounds = wholeNumberFlag('--rounds', values.rounds, 1, 10_000, 15);
  if (values.only !== undefined && !PROBES.some((probe) => probe.name === values.only)) {
    return reportUsageError(`--only takes one of: ${PROBES.map((probe) => probe.name).join(', ')}.`, USAGE);
  }
  const responses = values.responses === true;
  const document = JSON.parse(readFileSync(API_SPEC_PATH, 'utf8')) as Json;
  const build = (app: string): Express =>
    app === 'bare'
      ? buildApp(document, undefined)
      : buildApp(document, createOpenApiValidation({ apiSpec: API_SPEC_PATH, validateResponses: responses }));

  const bare = build('bare');
  const validated = build('validated');

  process.stdout.write(
    `${rounds} rounds of ${requests} requests to each app in turn, response validation ${responses ? 'on' : 'off'};\n` +
      'CPU µs per request: the least of the rounds for each app (the machine only ever adds), and their difference\n',
  );
  process.stdout.write(
    `${'request'.padEnd(14)} ${'bare'.padStart(8)} ${'validated'.padStart(10)} ${'validation'.padStart(11)}\n`,
  );
  const [bareTarget, validatedTarget] = [await listen(bare), await listen(validated)];
  try {
    for (const probe of PROBES.filter((p) => values.only === undefined || p.name === values.only)) {
      const without: number[] = [];
      const withValidation: number[] = [];
      // Warm both up (JIT, the validator's lazy compilation), then alternate so that whatever else
      // the machine does falls on both alike.
      await cpuUsPerRequest(bareTarget, probe, 1000);
      await cpuUsPerRequest(validatedTarget, probe, 1000);
      for (let round = 0; round < rounds; round += 1) {
        const a = await cpuUsPerRequest(bareTarget, probe, requests);
        const b = await cpuUsPerRequest(validatedTarget, probe, requests);
        if (a.status >= 400 || b.status >= 400)
          throw new Error(`${probe.name}: answered ${a.status} bare, ${b.status} validated`);
        without.push(a.us);
        withValidation.push(b.us);
      }
      process.stdout.write(
        `${probe.name.padEnd(14)} ${least(without).toFixed(1).padStart(8)} ${least(withValidation).toFixed(1).padStart(10)} ${(least(withValidation) - least(without)).toFixed(1).padStart(11)}\n`,
      );
    }
  } finally {
    await bareTarget.close();
    await validatedTarget.close();
  }
  return 0;
}

runAsMain(import.meta.url, main, { usage: USAGE });
