/**
 * The toolkit's lint rules (contract-first.yaml beside this file) run on one document, as
 * `npm run generate`, `npm run serve` and `npm run new-api` do before they work on it: Redocly's
 * CLI, the project's pinned copy, with its findings read from its JSON report. The findings are
 * printed; none stops the command (what the generator cannot carry, it rejects on its own).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runRedocly } from '../redocly.js';

/** The toolkit's ruleset, as a Redocly configuration file. */
export const CONTRACT_FIRST_CONFIG = fileURLToPath(new URL('../../lint/contract-first.yaml', import.meta.url));

export interface LintFinding {
  readonly severity: 'error' | 'warning';
  readonly ruleId: string;
  readonly message: string;
  /** The file, as Redocly names it relative to the working directory. */
  readonly file: string;
  readonly line: number;
  readonly col: number;
  /** The JSON pointer of the finding in its file. */
  readonly pointer: string;
}

interface JsonProblem {
  readonly ruleId: string;
  readonly severity: string;
  readonly message: string;
  readonly location: ReadonlyArray<{
    readonly source: { readonly ref: string };
    readonly pointer?: string;
    readonly start?: { readonly line: number; readonly col: number };
  }>;
}

/** Lints `file` with the toolkit's rules; the findings name files relative to `cwd`. */
export async function lintDocument(file: string, cwd: string = process.cwd()): Promise<LintFinding[]> {
  const result = await runRedocly(
    ['lint', '--config', CONTRACT_FIRST_CONFIG, '--format', 'json', '--max-problems', '10000', path.resolve(cwd, file)],
    { cwd },
  );
  const start = result.stdout.indexOf('{');
  if (start < 0)
    throw new Error(`redocly lint gave no report: ${result.stderr.trim().split('\n').slice(-3).join(' ')}`);
  const report = JSON.parse(result.stdout.slice(start)) as { problems?: readonly JsonProblem[] };
  return (report.problems ?? []).map((problem) => {
    const [location] = problem.location;
    return {
      severity: problem.severity === 'error' ? 'error' : 'warning',
      ruleId: problem.ruleId,
      message: problem.message,
      file: path
        .relative(cwd, path.resolve(cwd, location?.source.ref ?? file))
        .split(path.sep)
        .join('/'),
      line: location?.start?.line ?? 1,
      col: location?.start?.col ?? 1,
      pointer: location?.pointer ?? '#',
    };
  });
}

/** One line per finding, as the commands print them: `warning: api.yaml:12:5 #/paths/… message (rule)`. */
export function formatFindings(findings: readonly LintFinding[]): string[] {
  return findings.map(
    (finding) =>
      `${finding.severity}: ${finding.file}:${finding.line}:${finding.col} ${finding.pointer}: ${finding.message} (${finding.ruleId})`,
  );
}

/** `2 errors and 5 warnings`, or undefined for none. */
export function summarizeFindings(findings: readonly LintFinding[]): string | undefined {
  const errors = findings.filter((finding) => finding.severity === 'error').length;
  const warnings = findings.length - errors;
  if (findings.length === 0) return undefined;
  const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;
  return [errors > 0 ? plural(errors, 'error') : '', warnings > 0 ? plural(warnings, 'warning') : '']
    .filter((part) => part !== '')
    .join(' and ');
}

/**
 * What a command prints of a lint run: each finding, then how many there were; or why the rules
 * could not run. `outcome` is what `lintDocument(…).catch((error) => error)` gave.
 */
export function lintReport(input: string, outcome: readonly LintFinding[] | unknown): string[] {
  if (!Array.isArray(outcome))
    return [`lint: could not run: ${outcome instanceof Error ? outcome.message : String(outcome)}`];
  const findings = outcome as readonly LintFinding[];
  const summary = summarizeFindings(findings);
  return [
    ...formatFindings(findings),
    ...(summary === undefined
      ? []
      : [`lint: ${input}: ${summary} (the toolkit's rules, contract-first/lint/contract-first.yaml)`]),
  ];
}
