import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCheck } from '../../src/check/run.js';
import type { FindingReport } from '../../src/check/report.js';
import { serve, type Serving } from '../../src/serve.js';

/**
 * `npm run check` against `npm run serve` of each public document (test/fixtures/third-party/),
 * with and without `--stateful`: serve responds to every operation it can (the document's
 * examples, else values generated from its schemas; with --stateful, what was created), so what
 * the checker finds there are defects of the documents themselves. Each finding must be one of
 * these, and this test says which:
 * - an error response the document does not declare: an invalid request rejected with 400 or 415,
 *   a request without credentials rejected with 401, where the operation declares no such status;
 * - an operation that declares responses but no success response (no 2xx, `2XX` or `default`):
 *   a server can only reject, so serve responds with 501.
 * serve checks that a credential is there, not what it is, so the check that a wrong credential is
 * rejected (`ignored-auth`) is left out.
 */

type Json = Record<string, unknown>;
const basic = `Basic ${Buffer.from('user:password').toString('base64')}`;
/** The credentials each document's schemes ask for; serve checks that they are there. */
const DOCUMENTS: Readonly<Record<string, readonly (readonly [string, string])[]>> = {
  'oai-tictactoe.yaml': [
    ['api-key', 'key'],
    ['Authorization', 'Bearer token'],
  ],
  'readme-parameters-style.yaml': [],
  'readme-petstore-simple.yaml': [['Authorization', basic]],
  'readme-petstore.yaml': [
    ['api_key', 'key'],
    ['Authorization', 'Bearer token'],
  ],
  'readme-webhooks.yaml': [],
  'redocly-museum.yaml': [['Authorization', basic]],
};

/** The operation a finding names (its operationId, or `METHOD /path`). */
function operationOf(document: Json, name: string): Json {
  for (const [route, item] of Object.entries((document['paths'] ?? {}) as Record<string, Json>)) {
    for (const [method, operation] of Object.entries(item)) {
      const candidate = operation as Json;
      if (candidate['operationId'] === name || `${method.toUpperCase()} ${route}` === name) return candidate;
    }
  }
  throw new Error(`no operation ${name}`);
}

/** Why `finding` is a defect of the document; undefined when it is not one. */
function documentDefect(document: Json, finding: FindingReport): string | undefined {
  const declared = Object.keys((operationOf(document, finding.operation)['responses'] ?? {}) as Json);
  if (finding.kind === 'undeclared-status' && finding.status !== null && !declared.includes(String(finding.status))) {
    if (finding.requestKind === 'invalid' && [400, 415].includes(finding.status))
      return `rejects invalid input with an undeclared ${finding.status}`;
    if (finding.requestKind === 'no-credentials' && finding.status === 401)
      return 'rejects a missing credential with an undeclared 401';
  }
  const success = declared.some((code) => /^2(?:\d\d|XX)$/i.test(code) || code === 'default');
  if (
    finding.status === 501 &&
    declared.length > 0 &&
    !success &&
    ['server-error', 'undeclared-status'].includes(finding.kind)
  )
    return 'declares no success response';
  return undefined;
}

describe.each(
  Object.keys(DOCUMENTS).flatMap((file) => [
    [file, ''],
    [file, ' --stateful'],
  ]),
)('npm run check against npm run serve%2$s of %1$s', (file, mode) => {
  const input = fileURLToPath(new URL(`../fixtures/third-party/${file}`, import.meta.url));
  const document = parse(readFileSync(input, 'utf8')) as Json;
  let serving: Serving;
  beforeAll(async () => {
    serving = await serve({ input, port: 0, log: () => undefined, stateful: mode !== '' });
  }, 60_000);
  afterAll(async () => {
    await serving.close();
  });

  it('finds only defects of the document', async () => {
    const report = await runCheck({
      input,
      baseUrl: serving.url,
      cases: 8,
      seed: 1,
      headers: DOCUMENTS[file] ?? [],
      excludeChecks: ['ignored-auth'],
    });
    const defects = report.findings.map((finding) => ({
      finding: `${finding.kind} ${finding.operation} ${finding.status ?? ''}`,
      defect: documentDefect(document, finding),
    }));
    expect(defects.filter((found) => found.defect === undefined)).toEqual([]);
  }, 60_000);
});
