import type { OutgoingRequest } from './cases.js';
import type { StreamName } from './runners.js';
import type { CheckWarning, OperationSummary } from './summary.js';
import type { TimingSummary } from './timings.js';

export type { CheckWarning, OperationSummary } from './summary.js';

/**
 * What a run reports: the JSON report (its shape is fixed: tests read it), the JUnit report (one
 * test case per operation, a failure per finding), the text summary (findings, then each
 * operation's requests and 2xx responses, then the warnings about operations that never got a
 * 2xx), and the `curl` line that sends a finding's request again.
 */

export interface FindingReport {
  readonly kind: string;
  /** The operationId, or `METHOD /path`. */
  readonly operation: string;
  readonly message: string;
  readonly status: number | null;
  /**
   * What the request was meant to be: at an edge of the schemas, valid, invalid on purpose, without
   * credentials or with a wrong one on purpose, part of a create-then-use sequence, or a case of a
   * plug-in's stream (`<plug-in>:<stream>`).
   */
  readonly requestKind: StreamName;
  readonly request: {
    readonly method: string;
    readonly url: string;
    readonly headers: Record<string, string>;
    readonly body: string | null;
  };
  readonly curl: string;
  readonly seed: number;
  readonly replay: string;
}

export interface CheckReport {
  readonly seed: number;
  readonly baseUrl: string;
  readonly document: string;
  readonly operations: number;
  readonly requests: number;
  readonly durationMs: number;
  readonly timings: TimingSummary;
  readonly findings: readonly FindingReport[];
  /** Per operation checked, in document order: requests sent, 2xx responses, responses by status. */
  readonly byOperation: readonly OperationSummary[];
  /** The operations that never got a 2xx, each with the likely reason; they do not fail the run. */
  readonly warnings: readonly CheckWarning[];
  readonly notes: readonly string[];
}

/** What the text summary adds to the report. */
export interface RunStatistics {
  /** Responses by status class (`2xx`), `none` for requests without one. */
  readonly statusClasses: readonly (readonly [string, number])[];
  /** Generated requests that were not sent: not valid per the document after all, or not sendable. */
  readonly skipped: number;
  /** Valid requests generated to be broken that had no constraint to break (no parameter, no body). */
  readonly unbreakable: number;
  /** Per finding (same order), how many responses showed it. */
  readonly occurrences: readonly number[];
  /** Per finding, the case that first showed it, and fast-check's path to the shrunk case in its stream. */
  readonly origins: readonly { readonly stream: string; readonly index: number; readonly path: string | undefined }[];
}

/** A word for a POSIX shell: single-quoted unless it is plainly safe. */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_./:=@%+,-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The curl command that sends `request` as it was sent (credentials as `request` shows them). */
export function curlLine(request: OutgoingRequest): string {
  const words = ['curl'];
  if (request.method === 'HEAD') words.push('--head');
  else if (request.method !== 'GET' || request.body !== null) words.push('-X', request.method);
  words.push(shellQuote(request.url));
  for (const [name, value] of Object.entries(request.headers)) words.push('-H', shellQuote(`${name}: ${value}`));
  if (request.body !== null) words.push('--data-raw', shellQuote(request.body));
  return words.join(' ');
}

/** The JSON report, as --report-json writes it. */
export function jsonReport(report: CheckReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

const xml = (text: string): string =>
  text
    // Characters XML 1.0 cannot hold at all.
    .replace(/[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');

/** The JUnit report: one test case per operation checked, a failure element per finding of it. */
export function junitReport(report: CheckReport, operations: readonly string[]): string {
  const seconds = (report.durationMs / 1000).toFixed(3);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="check" tests="${operations.length}" failures="${report.findings.length}" time="${seconds}">`,
    `  <testsuite name="${xml(report.document)}" tests="${operations.length}" failures="${report.findings.length}" time="${seconds}">`,
  ];
  for (const operation of operations) {
    const findings = report.findings.filter((finding) => finding.operation === operation);
    if (findings.length === 0) {
      lines.push(`    <testcase classname="${xml(report.document)}" name="${xml(operation)}"/>`);
      continue;
    }
    lines.push(`    <testcase classname="${xml(report.document)}" name="${xml(operation)}">`);
    for (const finding of findings) {
      lines.push(
        `      <failure type="${xml(finding.kind)}" message="${xml(finding.message)}">${xml(`${finding.curl}\n${finding.replay}`)}</failure>`,
      );
    }
    lines.push('    </testcase>');
  }
  lines.push('  </testsuite>', '</testsuites>', '');
  return lines.join('\n');
}

const truncate = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 3)}...` : text);

/** The longest operation name the per-operation lines pad to. */
const NAME_WIDTH = 40;

/** Each operation's requests sent and 2xx responses, then a warning for each operation that never got a 2xx. */
function operationLines(report: CheckReport): string[] {
  if (report.byOperation.length === 0) return [];
  const width = Math.min(NAME_WIDTH, Math.max(...report.byOperation.map((summary) => summary.operation.length)));
  const lines = ['requests per operation (sent, 2xx):'];
  for (const summary of report.byOperation)
    lines.push(`  ${summary.operation.padEnd(width)}  ${summary.requests} sent, ${summary.successes} 2xx`);
  lines.push('');
  for (const warning of report.warnings) lines.push(`warning: ${warning.message}`);
  if (report.warnings.length > 0) lines.push('');
  return lines;
}

/** The text report: each finding with its curl and replay lines, each operation's counts and warnings, then the summary. */
export function textReport(report: CheckReport, statistics: RunStatistics): string[] {
  const lines: string[] = [];
  report.findings.forEach((finding, index) => {
    const seen = statistics.occurrences[index] ?? 1;
    const origin = statistics.origins[index];
    lines.push(
      `${index + 1}. ${finding.kind}: ${finding.operation}${finding.status === null ? '' : ` (${finding.status})`}${seen > 1 ? `, seen ${seen} times` : ''}`,
    );
    lines.push(`   ${finding.message}`);
    lines.push(`   ${truncate(finding.curl, 4000)}`);
    lines.push(`   replay: ${finding.replay}`);
    if (origin !== undefined) {
      // fast-check's path to the shrunk case in the stream of the operation's requests it came from.
      const steps = origin.path === undefined ? 0 : origin.path.split(':').length - 1;
      const path =
        origin.path === undefined
          ? ''
          : origin.path.length <= 60
            ? `, fast-check path ${origin.path}`
            : `, shrunk in ${steps} steps`;
      lines.push(`   (first seen in case ${origin.index} of the ${origin.stream} requests${path})`);
    }
    lines.push('');
  });
  lines.push(...operationLines(report));
  for (const note of report.notes) lines.push(`note: ${note}`);
  if (report.notes.length > 0) lines.push('');
  const seconds = report.durationMs / 1000;
  const classes = statistics.statusClasses.map(([name, count]) => `${name} ${count}`).join(', ');
  lines.push(`seed ${report.seed} (replay the whole run with --seed ${report.seed})`);
  lines.push(`operations checked: ${report.operations}`);
  const unsent = [
    statistics.skipped > 0
      ? `${statistics.skipped} generated requests not valid per the document after all, or not sendable`
      : '',
    statistics.unbreakable > 0 ? `${statistics.unbreakable} generated to be broken had no constraint to break` : '',
  ].filter((part) => part !== '');
  lines.push(
    `requests sent: ${report.requests}${classes === '' ? '' : ` (${classes})`}${unsent.length > 0 ? `; not sent: ${unsent.join(', ')}` : ''}`,
  );
  lines.push(
    `response times: p50 ${report.timings.p50Ms} ms, p99 ${report.timings.p99Ms} ms, max ${report.timings.maxMs} ms`,
  );
  lines.push(`findings: ${report.findings.length}`);
  if (report.warnings.length > 0)
    lines.push(`warnings: ${report.warnings.length} (operations that never got a 2xx, listed above)`);
  lines.push(`time: ${seconds.toFixed(1)} s, ${seconds > 0 ? Math.round(report.requests / seconds) : 0} requests/s`);
  return lines;
}
