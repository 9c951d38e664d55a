import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckReport, FindingReport } from '../../src/check/report.js';
import { runCheck } from '../../src/check/run.js';
import { LIBRARIAN_AUTHORIZATION, LIBRARY_API_KEY, MEMBER_AUTHORIZATION } from './fixtures/library-credentials.js';
import {
  LIBRARY_DEFECTS,
  LIBRARY_DOCUMENT,
  startLibraryServer,
  type LibraryDefect,
  type LibraryServer,
} from './fixtures/library-server.js';

/**
 * The defects of the library server that sit at one edge of a schema or behind a credential are
 * found on every seed from 1 to 10 with 10 cases per operation: the edge requests are the same in
 * every run, and the requests with a wrong credential make each credential wrong in each way. The
 * correct server gives no finding on the same runs.
 */

const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
const CASES = 10;

interface Expected {
  readonly defect: LibraryDefect;
  readonly kind: string;
  /** The credential given besides the API key: a member token, the librarian's password. */
  readonly authorization?: string;
  /** What the finding's request or message shows. */
  readonly shows: (finding: FindingReport) => boolean;
}

const header = (finding: FindingReport, name: string): string | undefined =>
  Object.entries(finding.request.headers).find(([key]) => key.toLowerCase() === name)?.[1];
const body = (finding: FindingReport): Record<string, unknown> =>
  JSON.parse(finding.request.body ?? '{}') as Record<string, unknown>;

const EXPECTED: readonly Expected[] = [
  {
    defect: 'accepts-any-token',
    kind: 'ignored-auth',
    authorization: MEMBER_AUTHORIZATION,
    shows: (finding) =>
      finding.requestKind === 'wrong-credentials' &&
      header(finding, 'authorization') !== MEMBER_AUTHORIZATION &&
      finding.message.includes('MemberToken'),
  },
  {
    defect: 'accepts-wrong-password',
    kind: 'ignored-auth',
    authorization: LIBRARIAN_AUTHORIZATION,
    shows: (finding) =>
      finding.requestKind === 'wrong-credentials' && finding.message.includes('password with one character changed'),
  },
  {
    defect: 'drops-field-at-minimum',
    kind: 'response-body',
    shows: (finding) => body(finding)['quantity'] === 0,
  },
  {
    defect: 'error-at-max-length',
    kind: 'server-error',
    shows: (finding) => [...String(body(finding)['title'])].length === 200,
  },
  {
    defect: 'error-body-off-schema',
    kind: 'response-body',
    shows: (finding) => finding.status === 404,
  },
];

const check = (server: LibraryServer, seed: number, include: readonly string[], authorization?: string) =>
  runCheck({
    input: LIBRARY_DOCUMENT,
    baseUrl: server.url,
    seed,
    cases: CASES,
    include,
    timeoutMs: 2000,
    headers: [
      ['X-Api-Key', LIBRARY_API_KEY],
      ...(authorization === undefined ? [] : [['Authorization', authorization] as const]),
    ],
  });

const brief = (report: CheckReport): string =>
  report.findings
    .map((finding) => `${finding.kind} ${finding.operation} (${finding.status}): ${finding.message}`)
    .join('\n');

describe.each(EXPECTED)('the library server with the defect $defect', ({ defect, kind, authorization, shows }) => {
  const operation = LIBRARY_DEFECTS[defect];
  let server: LibraryServer;
  beforeAll(async () => {
    server = await startLibraryServer({ defect });
  });
  afterAll(async () => {
    await server.close();
  });

  it.each(SEEDS)(
    `is found as ${kind} on ${operation} with seed %i`,
    async (seed) => {
      const report = await check(server, seed, [operation], authorization);
      const found = report.findings.filter((finding) => finding.kind === kind && finding.operation === operation);
      expect(found.length, brief(report)).toBeGreaterThan(0);
      expect(found.some(shows), brief(report)).toBe(true);
    },
    60_000,
  );
});

describe('the library server without a defect', () => {
  let server: LibraryServer;
  beforeAll(async () => {
    server = await startLibraryServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it.each(SEEDS)(
    'gives no finding on the same operations with seed %i',
    async (seed) => {
      const withToken = await check(server, seed, ['getMember', 'createOrder', 'getBook'], MEMBER_AUTHORIZATION);
      expect(brief(withToken)).toBe('');
      const withPassword = await check(server, seed, ['getStatistics'], LIBRARIAN_AUTHORIZATION);
      expect(brief(withPassword)).toBe('');
      // A wrong credential of each kind was sent, and rejected.
      expect(
        withToken.byOperation.find((summary) => summary.operation === 'getMember')?.statuses['401'],
      ).toBeGreaterThanOrEqual(2);
      expect(withPassword.byOperation[0]?.statuses['401']).toBeGreaterThanOrEqual(2);
    },
    60_000,
  );
});
