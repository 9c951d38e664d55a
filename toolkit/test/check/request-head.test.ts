import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_HEAD_OCTETS, Sender } from '../../src/check/requests.js';
import { runCheckDetailed } from '../../src/check/run.js';
import { serve, type Serving } from '../../src/serve.js';

/**
 * A path parameter whose `maxLength` is larger than any server takes in a URL (public documents
 * have such: a code of at most 152,133 characters). Node's HTTP parser rejects a request head
 * longer than 16 KiB with 431 and no body, before the server's code runs; the checker must not
 * report that rejection as the server breaking its document, so it never sends a head longer than
 * MAX_HEAD_OCTETS (src/check/requests.ts) and counts such a request as not sendable.
 */
const DOCUMENT = {
  openapi: '3.1.0',
  info: { title: 'Long codes', version: '1.0.0' },
  paths: {
    '/codes/{code}': {
      get: {
        operationId: 'getCode',
        parameters: [
          { name: 'code', in: 'path', required: true, schema: { type: 'string', minLength: 1, maxLength: 100_000 } },
        ],
        responses: {
          '200': {
            description: 'The code.',
            content: { 'application/json': { schema: { type: 'object' }, example: { found: true } } },
          },
          '4XX': { description: 'Rejected.', content: { 'application/json': { schema: { type: 'object' } } } },
        },
      },
    },
  },
};

let directory: string;
let serving: Serving;
beforeAll(async () => {
  directory = mkdtempSync(path.join(tmpdir(), 'request-head-'));
  writeFileSync(path.join(directory, 'codes.json'), JSON.stringify(DOCUMENT));
  serving = await serve({ input: path.join(directory, 'codes.json'), port: 0, log: () => undefined });
}, 60_000);
afterAll(async () => {
  await serving.close();
  rmSync(directory, { recursive: true, force: true });
});

describe('request heads the checker sends', () => {
  it(`sends a head of ${MAX_HEAD_OCTETS} octets and not one octet more`, async () => {
    const sender = new Sender({ timeoutMs: 10_000, concurrency: 1 });
    try {
      const url = new URL(`${serving.url}/codes/`);
      // GET <path> HTTP/1.1, the blank line, and the Host field.
      const fixed = `GET ${url.pathname} HTTP/1.1\r\n\r\nHost: ${url.host}\r\n`.length;
      const request = (length: number) => ({
        method: 'GET',
        url: `${url.href}${'c'.repeat(length)}`,
        headers: {},
        body: null,
      });
      const longest = await sender.send(request(MAX_HEAD_OCTETS - fixed));
      expect(longest.kind === 'response' ? longest.response.status : longest).toBe(200);
      const longer = await sender.send(request(MAX_HEAD_OCTETS - fixed + 1));
      expect(longer).toEqual({
        kind: 'unsendable',
        message: expect.stringContaining(`the checker sends at most ${MAX_HEAD_OCTETS}`) as unknown,
      });
    } finally {
      sender.close();
    }
  });

  it('finds nothing where the only longer requests would meet the HTTP layer', async () => {
    const { report, statistics } = await runCheckDetailed({
      input: path.join(directory, 'codes.json'),
      baseUrl: serving.url,
      cases: 20,
      seed: 1,
    });
    expect(
      report.findings.map((finding) => `${finding.kind} ${finding.status ?? ''}: ${finding.message.slice(0, 200)}`),
    ).toEqual([]);
    // The code one character past its maxLength, and the longest valid one, were generated and not sent.
    expect(statistics.skipped).toBeGreaterThan(0);
  }, 60_000);
});
