/** One comparison through the gate, and how diff:api and release:api print it. */
import { compareDocuments } from './compare.js';
import {
  applyGate,
  countByType,
  majorOf,
  summarize,
  type Allowance,
  type GateResult,
  type GatedChange,
} from './gate.js';
import type { ChangeType } from './model.js';
import type { LoadedDocument } from './sources.js';

export interface Report {
  readonly base: LoadedDocument;
  readonly current: LoadedDocument;
  readonly gate: GateResult;
  /** How the allow-list is named to the reader. */
  readonly allowList: string;
  /** The API's name in the project's configuration; none when two files were compared. */
  readonly api?: string;
}

export function buildReport(
  base: LoadedDocument,
  current: LoadedDocument,
  allowances: readonly Allowance[],
  allowList: string,
  api?: string,
): Report {
  const changes = compareDocuments(base.document, current.document);
  return {
    base,
    current,
    gate: applyGate(changes, base.version, current.version, allowances),
    allowList,
    ...(api === undefined ? {} : { api }),
  };
}

/** How a line of diff:api starts: the command, then the API when the project has named it. */
export function linePrefix(api: string | undefined): string {
  return api === undefined ? 'diff:api:' : `diff:api: ${api}:`;
}

const WIDTH = 'non-breaking  '.length;
const indent = ' '.repeat(WIDTH);

function changeLines(change: GatedChange): string[] {
  const lines = [`${change.type.padEnd(WIDTH)}${change.description}`, `${indent}${change.pointer}`];
  if (change.rule !== undefined)
    lines.push(`${indent}api-smart-diff says ${change.library}; our rule ${change.rule} says ${change.type}`);
  if (change.allowed !== undefined) lines.push(`${indent}allowed: ${change.allowed}`);
  return lines;
}

function named(document: LoadedDocument): string {
  return `${document.source} (${document.version ?? 'no info.version'})`;
}

/** The next major version after `version`: `2.0.0` after `1.4.2`. */
function nextMajor(version: string | undefined): string {
  const major = majorOf(version);
  return major === undefined ? 'a new major version' : `${major + 1}.0.0`;
}

/** What diff:api prints: a heading, each change, then why the gate passes or fails. */
export function formatReport(report: Report, milliseconds: number): { stdout: string; stderr: string } {
  const { gate, base, current } = report;
  const prefix = linePrefix(report.api);
  const out = [
    `${prefix} ${named(current)} against ${named(base)}: ${summarize(gate.changes)} (${(milliseconds / 1000).toFixed(1)} s)`,
  ];
  if (gate.changes.length > 0) out.push('');
  for (const change of gate.changes) out.push(...changeLines(change));
  const err: string[] = [];
  for (const allowance of gate.unusedAllowances) {
    err.push(
      `${prefix} warning: ${report.allowList}: ${allowance.path}${allowance.action === undefined ? '' : ` (${allowance.action})`} covers no breaking change; remove it`,
    );
  }
  const breaking = gate.changes.filter((change) => change.type === 'breaking');
  if (!gate.passed) {
    const count = gate.blocking.length;
    err.push(
      `${prefix} FAILED: ${count} breaking change${count === 1 ? ' is' : 's are'} neither allowed nor in a new major version. ` +
        `Raise info.version to ${nextMajor(base.version)}, or list ${count === 1 ? 'it' : 'each'} in ${report.allowList} with the reason:`,
      ...gate.blocking.map((change) => `  - path: '${change.pointer}'\n    action: ${change.action}\n    reason: …`),
    );
  } else if (breaking.length > 0) {
    out.push(
      '',
      gate.majorChanged
        ? `${prefix} passed: info.version's major part went from ${majorOf(base.version) ?? '?'} to ${majorOf(current.version) ?? '?'}, which allows ${breaking.length === 1 ? 'its breaking change' : `its ${breaking.length} breaking changes`}`
        : `${prefix} passed: ${breaking.length === 1 ? 'the breaking change is' : `all ${breaking.length} breaking changes are`} allowed in ${report.allowList}`,
    );
  }
  return { stdout: `${out.join('\n')}\n`, stderr: err.length === 0 ? '' : `${err.join('\n')}\n` };
}

interface JsonChange {
  readonly type: ChangeType;
  readonly library: ChangeType;
  readonly rule?: string;
  readonly action: string;
  readonly pointer: string;
  readonly path: ReadonlyArray<string | number>;
  readonly description: string;
  readonly allowed?: string;
}

/** What `diff:api --json` prints. */
export function reportJson(report: Report, milliseconds: number): unknown {
  const { gate } = report;
  const changes: JsonChange[] = gate.changes.map((change) => ({
    type: change.type,
    library: change.library,
    ...(change.rule === undefined ? {} : { rule: change.rule }),
    action: change.action,
    pointer: change.pointer,
    path: change.path,
    description: change.description,
    ...(change.allowed === undefined ? {} : { allowed: change.allowed }),
  }));
  return {
    ...(report.api === undefined ? {} : { api: report.api }),
    base: { source: report.base.source, version: report.base.version ?? null },
    current: { source: report.current.source, version: report.current.version ?? null },
    passed: gate.passed,
    majorChanged: gate.majorChanged,
    counts: countByType(gate.changes),
    blocking: gate.blocking.map((change) => change.pointer),
    changes,
    unusedAllowances: gate.unusedAllowances,
    milliseconds: Math.round(milliseconds),
  };
}
