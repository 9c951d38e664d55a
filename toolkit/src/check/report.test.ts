import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { curlLine, junitReport, shellQuote, textReport, type CheckReport } from './report.js';

describe('curl lines', () => {
  it.each<[string, string, string]>([
    ['a plain word', 'abc-1.2', 'abc-1.2'],
    ['spaces', 'a b', "'a b'"],
    ['a single quote', "it's", `'it'\\''s'`],
    ['shell characters', '$HOME `x` "y" \\z', `'$HOME \`x\` "y" \\z'`],
    ['nothing', '', "''"],
  ])('quotes %s', (_name, word, quoted) => {
    expect(shellQuote(word)).toBe(quoted);
  });

  it('gives the shell back each word as it was', () => {
    const words = ["it's", '$HOME', 'a\nb', '{"name":"O\'Brien"}', '; rm -rf /', ''];
    const echoed = execFileSync('sh', ['-c', `printf '%s\\0' ${words.map(shellQuote).join(' ')}`]).toString('utf8');
    expect(echoed.split('\0').slice(0, -1)).toEqual(words);
  });

  it('writes method, URL, headers and body', () => {
    const line = curlLine({
      method: 'POST',
      url: 'http://127.0.0.1:4010/pets?tag=a b',
      headers: { 'Content-Type': 'application/json', Authorization: 'Bearer <credential>' },
      body: `{"name":"O'Brien"}`,
    });
    expect(line).toBe(
      `curl -X POST 'http://127.0.0.1:4010/pets?tag=a b' -H 'Content-Type: application/json' -H 'Authorization: Bearer <credential>' --data-raw '{"name":"O'\\''Brien"}'`,
    );
    expect(curlLine({ method: 'GET', url: 'http://h/x', headers: {}, body: null })).toBe('curl http://h/x');
    expect(curlLine({ method: 'HEAD', url: 'http://h/x', headers: {}, body: null })).toBe('curl --head http://h/x');
  });
});

describe('JUnit report', () => {
  const report: CheckReport = {
    seed: 1,
    baseUrl: 'http://h',
    document: 'api.yaml',
    operations: 2,
    requests: 10,
    durationMs: 1500,
    timings: { p50Ms: 1, p99Ms: 2, maxMs: 3 },
    findings: [
      {
        kind: 'server-error',
        operation: 'listPets',
        message: 'responded with 500: <b>"x" & \u0001',
        status: 500,
        requestKind: 'valid',
        request: { method: 'GET', url: 'http://h/pets', headers: {}, body: null },
        curl: 'curl http://h/pets',
        seed: 1,
        replay: 'npm run check -- ...',
      },
    ],
    byOperation: [
      { operation: 'listPets', requests: 8, successes: 0, statuses: { '500': 8 } },
      { operation: 'GET /health', requests: 2, successes: 2, statuses: { '200': 2 } },
    ],
    warnings: [],
    notes: [],
  };

  it('has a test case per operation and a failure per finding, escaped', () => {
    const xml = junitReport(report, ['listPets', 'GET /health']);
    expect(xml).toContain('<testsuites name="check" tests="2" failures="1" time="1.500">');
    expect(xml).toContain('<testcase classname="api.yaml" name="GET /health"/>');
    expect(xml).toContain(
      '<failure type="server-error" message="responded with 500: &lt;b&gt;&quot;x&quot; &amp; \uFFFD">',
    );
  });
});

describe('text report', () => {
  const report: CheckReport = {
    seed: 4,
    baseUrl: 'http://h',
    document: 'api.yaml',
    operations: 3,
    requests: 30,
    durationMs: 1000,
    timings: { p50Ms: 1, p99Ms: 2, maxMs: 3 },
    findings: [],
    byOperation: [
      { operation: 'listPets', requests: 12, successes: 9, statuses: { '200': 9, '400': 3 } },
      { operation: 'getPet', requests: 10, successes: 0, statuses: { '400': 2, '404': 8 } },
      { operation: 'GET /health', requests: 8, successes: 8, statuses: { '200': 8 } },
    ],
    warnings: [
      {
        operation: 'getPet',
        reason: 'no-ids',
        message:
          'getPet never got a 2xx in 10 requests (400 ×2, 404 ×8): no existing ids: give examples of the path parameters, or links from an operation that creates them',
      },
    ],
    notes: [],
  };

  it('says per operation how many requests were sent and got a 2xx, then warns of those that never did', () => {
    const lines = textReport(report, {
      statusClasses: [],
      skipped: 0,
      unbreakable: 0,
      occurrences: [],
      origins: [],
    });
    expect(lines.slice(0, 7)).toEqual([
      'requests per operation (sent, 2xx):',
      '  listPets     12 sent, 9 2xx',
      '  getPet       10 sent, 0 2xx',
      '  GET /health  8 sent, 8 2xx',
      '',
      `warning: ${report.warnings[0]?.message ?? ''}`,
      '',
    ]);
    expect(lines).toContain('findings: 0');
  });
});
