/**
 * The server against its document with the toolkit's contract checker (`npm run check`): requests
 * generated from the document's schemas, valid and invalid ones, without credentials, and
 * create-then-read sequences, each response judged against the document.
 * Any finding fails the test, with a `curl` line and the seed that replays it.
 *
 * Checked: the operations the tests can reach (test/credentials.ts gives a credential for a scheme
 * whose verifier server/security.ts has, or the operation needs none). Two kinds of finding are
 * printed as warnings, not failures:
 * - a handler still a stub without an example responds with 501 Not Implemented, until it is written;
 * - a status the server's own error responses use (400 for a request off the contract, 401 without
 *   credentials, 404, 405, 406, 413, 415) that the operation does not declare: the finding is the
 *   document's to fix (its lint warns of the same). Where the document declares the response, the
 *   server sends it in the declared media type, headers and schema, so a finding about it fails.
 * Everything else fails: a handler's response off the contract, a 5xx, an invalid request accepted.
 * CHECK_CASES and CHECK_SEED change how many requests and which; `npm run check` runs the same
 * check against any running server.
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeList } from '../generated/server.js';
import { createApp } from '../server/app.js';
import { verifiers } from '../server/security.js';
import { readDocument, type OpenApiDocument } from 'contract-first';
import { runCheck, type CheckAuth, type FindingReport } from 'contract-first/check';
import { createHttpServer } from 'contract-first/runtime';
import { contractCases, type CredentialParts } from 'contract-first/testing';
import { credentials } from './credentials.js';

/** The statuses of the server's own error responses (contract-first/runtime). */
const SERVER_ERROR_STATUSES = new Set([400, 401, 404, 405, 406, 413, 415]);

const documentFile = fileURLToPath(new URL('../generated/openapi.json', import.meta.url));
const cases = Number(process.env['CHECK_CASES'] ?? 20);
const seed = Number(process.env['CHECK_SEED'] ?? 1);

const verified = new Set(
  Object.entries(verifiers)
    .filter(([, verifier]) => typeof verifier === 'function')
    .map(([name]) => name),
);
const reachable = contractCases({ document: documentFile, routes: routeList, verified, credentials })
  .filter((contractCase) => contractCase.access === 'open')
  // By method and path (`GET /pets/{id}`): the checker names operations as the document does.
  .map((contractCase) => contractCase.title);

/** Every credential test/credentials.ts gives, added to each request the checker sends with credentials. */
const withTestCredentials: CheckAuth = {
  prepare(request) {
    const url = new URL(request.url);
    const headers: Record<string, string> = { ...request.headers };
    const cookies: string[] = [];
    for (const parts of Object.values(credentials as Readonly<Record<string, CredentialParts | undefined>>)) {
      Object.assign(headers, parts?.header);
      for (const [name, value] of Object.entries(parts?.query ?? {})) url.searchParams.set(name, value);
      for (const [name, value] of Object.entries(parts?.cookie ?? {})) cookies.push(`${name}=${value}`);
    }
    if (cookies.length > 0) headers['Cookie'] = cookies.join('; ');
    return { ...request, url: url.href, headers };
  },
};

let server: Server;
let baseUrl = '';
beforeAll(async () => {
  server = createHttpServer(createApp({ validateResponses: true }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  // The server mounts the paths under the path of the document's first server.
  const base = readDocument(JSON.parse(readFileSync(documentFile, 'utf8')) as OpenApiDocument).serverBases[0] ?? '';
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}${base}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('npm run check against this server', () => {
  it.skipIf(reachable.length === 0)(
    `finds nothing in ${cases} cases per reachable operation (seed ${seed})`,
    async () => {
      const report = await runCheck({
        input: documentFile,
        baseUrl,
        cases,
        seed,
        include: reachable,
        auth: withTestCredentials,
        timeoutMs: 10_000,
      });
      const documentsToFix = (finding: FindingReport): boolean =>
        finding.status === 501 ||
        (finding.status !== null && SERVER_ERROR_STATUSES.has(finding.status) && finding.kind === 'undeclared-status');
      for (const finding of report.findings.filter(documentsToFix))
        console.warn(`check: ${finding.kind} ${finding.operation}: ${finding.message}`);
      const findings = report.findings.filter((finding) => !documentsToFix(finding));
      expect(
        findings.map(
          (finding) =>
            `${finding.kind} ${finding.operation}: ${finding.message}\n  ${finding.curl}\n  replay: ${finding.replay}`,
        ),
      ).toEqual([]);
      expect(report.requests).toBeGreaterThan(0);
    },
    120_000,
  );
});
