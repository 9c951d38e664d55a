import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main as checkMain } from '../../src/check.js';
import { LIBRARIAN_AUTHORIZATION, MEMBER_AUTHORIZATION } from './fixtures/library-credentials.js';
import {
  LIBRARY_API_KEY,
  LIBRARY_DEFECTS,
  LIBRARY_DOCUMENT,
  startLibraryServer,
  type LibraryDefect,
  type LibraryServer,
} from './fixtures/library-server.js';

/**
 * The contract checker (`npm run check`, src/check.ts) against a hand-written server
 * of library.openapi.yaml with one planted defect at a time: it must exit 1 with a finding of the
 * defect's kind on the defect's operation, the finding's curl line must show the defect again
 * when run, and the finding's replay command must find it again. Against the same server without
 * a defect it must exit 0 with no finding.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const DOCUMENT = path.relative(ROOT, LIBRARY_DOCUMENT);

interface Finding {
  readonly kind: string;
  readonly operation: string;
  readonly message: string;
  readonly status: number | null;
  readonly request: {
    readonly method: string;
    readonly url: string;
    readonly headers: Readonly<Record<string, string>>;
    readonly body: string | null;
  };
  readonly curl: string;
  readonly seed: number;
  readonly replay: string;
}

interface Report {
  readonly seed: number;
  readonly requests: number;
  readonly findings: readonly Finding[];
  readonly notes: readonly string[];
}

interface Run {
  readonly code: number | null;
  readonly output: string;
}

/** Runs a command to its end; its stdout and stderr together, for the failure messages. */
function run(command: string, args: readonly string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/**
 * At most this many checker runs at once (here or as a replay's process): the servers they
 * question all respond from this one test process on a machine of two cores.
 */
const RUNS_AT_ONCE = 2;
let running = 0;
const waiting: Array<() => void> = [];
async function oneAtATime<T>(work: () => Promise<T>): Promise<T> {
  if (running >= RUNS_AT_ONCE) await new Promise<void>((resolve) => waiting.push(resolve));
  running += 1;
  try {
    return await work();
  } finally {
    running -= 1;
    waiting.shift()?.();
  }
}

let reports: string;
let reportCount = 0;
beforeAll(() => {
  reports = mkdtempSync(path.join(tmpdir(), 'check-defects-'));
});
afterAll(() => {
  rmSync(reports, { recursive: true, force: true });
});

/**
 * `npm run check` on the library document against `server`, and the JSON report it wrote: the
 * command's own `main` (src/check.ts), run in this process to spare a Node start per
 * defect; the replay below runs the printed command in a shell. The seed and case count are fixed
 * so that a run draws the same requests every time; the time limit only caps a run on a busy
 * machine (the 30 cases take a few seconds when it is idle). `authorization`: an Authorization
 * header given besides the API key (a member token, or the librarian's password).
 */
async function check(server: LibraryServer, authorization?: string): Promise<Run & { report: Report | undefined }> {
  const file = path.join(reports, `report-${(reportCount += 1)}.json`);
  const args = [
    ...['--input', DOCUMENT, '--base-url', server.url, '--seed', '1', '--cases', '30'],
    ...[
      '--timeout-ms',
      '1000',
      '--time-limit',
      '10',
      '--report-json',
      file,
      '--header',
      `X-Api-Key: ${LIBRARY_API_KEY}`,
      ...(authorization === undefined ? [] : ['--header', `Authorization: ${authorization}`]),
    ],
  ];
  let output = '';
  const sink = { stdout: (text: string) => (output += text), stderr: (text: string) => (output += text) };
  const code = await oneAtATime(() => checkMain(args, sink, ROOT));
  return { code, output, report: readReport(file) };
}

/** The finding's replay command, run by the shell as printed, writing its report where we read it. */
async function replay(finding: Finding): Promise<Run & { report: Report | undefined }> {
  const file = path.join(reports, `report-${(reportCount += 1)}.json`);
  const result = await oneAtATime(() => run('sh', ['-c', `${finding.replay} --report-json '${file}'`]));
  return { ...result, report: readReport(file) };
}

function readReport(file: string): Report | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Report;
  } catch {
    return undefined;
  }
}

interface CurlResponse {
  /** curl's exit code: 28 when no response came within --max-time. */
  readonly exit: number | null;
  readonly status: number;
  readonly headers: ReadonlyMap<string, string>;
  readonly body: string;
}

/**
 * The finding's curl line, run by the shell as printed; `curl` is a shell function that adds what
 * reads the response back (the status line and headers, and a deadline for a hanging server).
 */
async function curl(finding: Finding): Promise<CurlResponse> {
  const { code, output } = await run('sh', [
    '-c',
    `curl() { command curl -sS -i --max-time 3 "$@"; }\n${finding.curl}`,
  ]);
  // Skip the interim responses (100 Continue) to the final one.
  let rest = output;
  let head = '';
  do {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) return { exit: code, status: 0, headers: new Map(), body: output };
    head = rest.slice(0, end);
    rest = rest.slice(end + 4);
  } while (/^HTTP\/\S+ 1\d\d/.test(head));
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = new Map(
    lines.map(
      (line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()] as const,
    ),
  );
  return { exit: code, status: Number(statusLine.split(' ')[1]), headers, body: rest };
}

/** The response's body as JSON, whatever its Content-Type says; empty when it is not JSON. */
function json(response: CurlResponse): Record<string, unknown> {
  try {
    return JSON.parse(response.body) as Record<string, unknown>;
  } catch {
    return {};
  }
}
const isJson = (response: CurlResponse): boolean =>
  response.headers.get('content-type')?.startsWith('application/json') ?? false;

interface Expectation {
  /** The finding kind the checker must report. */
  readonly kind: string;
  /** The operation the finding names, when not the one the defect is planted in. */
  readonly reportedOn?: string;
  /** The Authorization header the run gives, for a defect behind a member token or the librarian's password. */
  readonly authorization?: string;
  /** Whether the response to the finding's curl line shows the defect. */
  readonly shows: (response: CurlResponse, finding: Finding, server: LibraryServer) => boolean | Promise<boolean>;
}

const EXPECTED: { readonly [D in LibraryDefect]: Expectation } = {
  'undeclared-status': { kind: 'undeclared-status', shows: (response) => response.status === 202 },
  'missing-required-field': {
    kind: 'response-body',
    shows: (response) => response.status === 200 && 'id' in json(response) && !('name' in json(response)),
  },
  'wrong-nested-type': {
    kind: 'response-body',
    shows: (response) =>
      response.status === 200 &&
      ((json(response).items ?? []) as Array<{ publisher: { founded: unknown } }>).some(
        (book) => typeof book.publisher.founded === 'string',
      ),
  },
  'error-on-long-string': { kind: 'server-error', shows: (response) => response.status === 500 },
  'accepts-outside-enum': {
    kind: 'accepted-invalid',
    shows: (response) =>
      response.status === 201 && !['fiction', 'history', 'poetry', 'science'].includes(String(json(response).genre)),
  },
  'extra-property': {
    kind: 'response-body',
    shows: (response) => response.status === 201 && 'createdAt' in json(response),
  },
  'wrong-content-type': { kind: 'content-type', shows: (response) => response.status === 200 && !isJson(response) },
  'missing-required-header': {
    kind: 'response-header',
    shows: (response) => response.status === 200 && !response.headers.has('x-rate-limit'),
  },
  'open-without-credentials': {
    kind: 'accepted-without-credentials',
    shows: (response, finding) =>
      response.status === 201 &&
      !Object.keys(finding.request.headers).some((name) => name.toLowerCase() === 'x-api-key'),
  },
  'created-not-found': {
    kind: 'created-not-found',
    // The defect is in createBook; what responds with 404 is the read that follows it.
    reportedOn: 'getBook',
    // The curl line is the read that got 404, or the create whose book is then not found.
    shows: async (response, _finding, server) => {
      if (response.status !== 201) return response.status === 404;
      const read = await fetch(`${server.url}/books/${String(json(response).id)}`);
      return read.status === 404;
    },
  },
  hang: { kind: 'hang', shows: (response) => response.exit === 28 },
  // The curl line carries the credential made wrong, as the run's --header gave it.
  'accepts-any-token': {
    kind: 'ignored-auth',
    authorization: MEMBER_AUTHORIZATION,
    shows: (response, finding) =>
      response.status === 200 &&
      Object.entries(finding.request.headers).some(
        ([name, value]) => name.toLowerCase() === 'authorization' && value !== MEMBER_AUTHORIZATION,
      ),
  },
  'accepts-wrong-password': {
    kind: 'ignored-auth',
    authorization: LIBRARIAN_AUTHORIZATION,
    shows: (response) => response.status === 200,
  },
  'drops-field-at-minimum': {
    kind: 'response-body',
    shows: (response) => response.status === 201 && json(response).quantity === 0 && !('status' in json(response)),
  },
  'error-at-max-length': { kind: 'server-error', shows: (response) => response.status === 500 },
  'error-body-off-schema': {
    kind: 'response-body',
    shows: (response) => response.status === 404 && !('code' in json(response)),
  },
};

/** The finding in a form that says what went wrong when an expectation fails. */
const brief = (finding: Finding): string =>
  `${finding.kind} on ${finding.operation} (${finding.status}): ${finding.message}`;

describe.concurrent('npm run check against the library server', () => {
  for (const defect of Object.keys(LIBRARY_DEFECTS) as LibraryDefect[]) {
    const { kind, shows, reportedOn, authorization } = EXPECTED[defect];
    const operation = reportedOn ?? LIBRARY_DEFECTS[defect];
    it(`finds ${defect} as ${kind} on ${operation}, replayable by its curl line and its replay command`, async () => {
      const server = await startLibraryServer({ defect });
      try {
        const result = await check(server, authorization);
        expect(result.code, result.output).toBe(1);
        const findings = result.report?.findings ?? [];
        const finding = findings.find((found) => found.kind === kind && found.operation === operation);
        expect(finding, `findings: ${findings.map(brief).join('; ')}\n${result.output}`).toBeDefined();
        if (finding === undefined) return;

        const response = await curl(finding);
        expect(
          await shows(response, finding, server),
          `${finding.curl}\ncurl exited ${response.exit}: ${response.status} ${response.body.slice(0, 500)}`,
        ).toBe(true);

        const again = await replay(finding);
        expect(again.report, `${finding.replay}\nwrote no report:\n${again.output}`).toBeDefined();
        expect(again.code, again.output).toBe(1);
        const foundAgain = again.report?.findings ?? [];
        expect(
          foundAgain.map((found) => [found.kind, found.operation]),
          `${finding.replay}\n${again.output}`,
        ).toContainEqual([kind, operation]);
      } finally {
        await server.close();
      }
    }, 90_000);
  }

  it('finds nothing on the server without a defect', async () => {
    const server = await startLibraryServer();
    try {
      const result = await check(server);
      expect((result.report?.findings ?? []).map(brief), result.output).toEqual([]);
      expect(result.code, result.output).toBe(0);
      expect(result.report?.requests).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  }, 90_000);
});
