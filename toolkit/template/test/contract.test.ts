/**
 * The server against its document, for every operation, with requests built from the document's
 * own examples (contract-first/testing), and every response checked against the
 * document (response validation on):
 * - a valid request gets a response the operation declares, never a 5xx;
 * - the same request with a parameter the operation does not declare gets 400, and its handler
 *   does not run;
 * - an operation that needs credentials rejects a request without them (401), and one whose
 *   verifier is not written yet (server/security.ts) rejects every request.
 * Where the document gives no example of a value a request needs, the value is drawn from its schema.
 * A handler still a stub without an example responds with 501: the valid request reached it, and
 * its response is tested once it is written. The cases that cannot run are counted, with why, in
 * the test run's output.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeList } from '../generated/server.js';
import { createApp } from '../server/app.js';
import { handlers } from '../server/handlers/index.js';
import { verifiers } from '../server/security.js';
import { createHttpServer } from 'contract-first/runtime';
import { contractCases, declares, withUndeclaredParameter, type SampleRequest } from 'contract-first/testing';
import { credentials } from './credentials.js';

const cases = contractCases({
  document: fileURLToPath(new URL('../generated/openapi.json', import.meta.url)),
  routes: routeList,
  verified: new Set(
    Object.entries(verifiers)
      .filter(([, verifier]) => typeof verifier === 'function')
      .map(([name]) => name),
  ),
  credentials,
});

/** The operations whose handler ran, in order. */
const ran: string[] = [];
const recorded = Object.fromEntries(
  Object.entries(handlers).map(([operationId, handler]) => [
    operationId,
    (input: never, ctx: never) => {
      ran.push(operationId);
      return (handler as (input: never, ctx: never) => Promise<unknown>)(input, ctx);
    },
  ]),
) as unknown as typeof handlers;

/** Why cases were skipped, and which, and the operations whose handler is a stub: printed once the run is over. */
const skipped = new Map<string, string[]>();
const unwritten: string[] = [];
function skip(context: { skip: (note: string) => void }, contractCase: { title: string }, why: string): void {
  skipped.set(why, [...(skipped.get(why) ?? []), contractCase.title]);
  context.skip(why);
}

let server: Server;
let baseUrl = '';
beforeAll(async () => {
  server = createHttpServer(createApp({ validateResponses: true, handlers: recorded }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  const count = [...skipped.values()].reduce((total, titles) => total + titles.length, 0);
  if (count > 0)
    console.warn(
      [
        `contract tests: ${count} of ${cases.length} valid requests could not be tested:`,
        ...[...skipped].map(([why, titles]) => `  ${titles.length} ${why}: ${titles.join(', ')}`),
      ].join('\n'),
    );
  if (unwritten.length > 0)
    console.warn(
      `contract tests: ${unwritten.length} handlers are not written yet (server/handlers/): the valid request reached each; its response is tested once it is written`,
    );
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function send(request: SampleRequest): Promise<{ status: number; text: string }> {
  const response = await fetch(`${baseUrl}${request.target}`, {
    method: request.method,
    headers: request.headers,
    ...(request.body === undefined ? {} : { body: request.body }),
  });
  return { status: response.status, text: await response.text() };
}

it.runIf(cases.length === 0)('has no operation to test: the document declares none', () => {
  expect(routeList).toEqual([]);
});

describe.each(cases)('$title ($operationId)', (contractCase) => {
  it('responds to a valid request as the document declares', async (context) => {
    const { request } = contractCase;
    if ('skip' in request) return skip(context, contractCase, request.skip);
    if (contractCase.access === 'no-credential')
      return skip(context, contractCase, 'test/credentials.ts gives no credential its verifier accepts');
    const response = await send(request);
    if (contractCase.access === 'no-verifier') {
      expect(response.status, `${response.text}: its verifier is not written, so it is rejected`).toBe(401);
      return;
    }
    if (contractCase.access === 'unmeetable') {
      expect(response.status, `${response.text}: its security names a scheme the document does not define`).toBe(403);
      return;
    }
    if (response.status === 501 && response.text.includes('not implemented yet')) {
      // A stub: the valid request went through routing, security and validation to its handler;
      // its response is tested once the handler is written.
      expect(ran.at(-1)).toBe(contractCase.operationId);
      unwritten.push(contractCase.title);
      return;
    }
    expect(response.status, response.text).toBeLessThan(500);
    expect(declares(contractCase, response.status), `${response.status} is not declared: ${response.text}`).toBe(true);
  });

  it('rejects a request off the contract before its handler runs', async (context) => {
    const { request } = contractCase;
    if ('skip' in request) return context.skip(request.skip);
    const before = ran.length;
    const response = await send(withUndeclaredParameter(request));
    // Without credentials it can meet, security responds first.
    expect(response.status, response.text).toBe(
      contractCase.access === 'open' ? 400 : contractCase.access === 'unmeetable' ? 403 : 401,
    );
    expect(ran.length).toBe(before);
  });

  it.runIf(contractCase.anonymous !== undefined)('rejects a request without credentials', async () => {
    const before = ran.length;
    const response = await send(contractCase.anonymous as SampleRequest);
    expect(response.status, response.text).toBe(contractCase.access === 'unmeetable' ? 403 : 401);
    expect(ran.length).toBe(before);
  });
});
