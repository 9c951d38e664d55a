/**
 * `npm run check -- --input FILE --base-url URL`: a property-based contract check of a running
 * server against the OpenAPI 3.1 document it implements. It sends requests built from the edges
 * of the document's schemas, then requests generated from them (valid ones, invalid ones, ones
 * without credentials and with wrong ones, create-then-use sequences), judges every response
 * against what the document declares with the checks selected, and reports each distinct failure
 * once, shrunk to a small request, with a curl line and the command that replays it; then each
 * operation's requests and 2xx responses, and a warning for each that never got a 2xx.
 * The engine is check/ (run.ts runs it; auth.ts says what an --auth module is).
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BundleError } from './codegen/bundle.js';
import { AuthModuleError, loadAuth, parseHeader, type CheckAuth } from './check/auth.js';
import { jsonReport, junitReport, textReport } from './check/report.js';
import { CheckUsageError, runCheckDetailed } from './check/run.js';
import { knownCheckNames } from './check/selection.js';
import { parseFlags, reportUsageError, runAsMain, type ScriptOutput, type Command } from './cli.js';

/** The check names, wrapped to the usage's column. */
const CHECKS = knownCheckNames()
  .split(', ')
  .reduce<string[]>((lines, name) => {
    const last = lines[lines.length - 1];
    if (last !== undefined && last.length + name.length + 2 <= 72) lines[lines.length - 1] = `${last}, ${name}`;
    else lines.push(name);
    return lines;
  }, [])
  .join(',\n                       ');

export const USAGE = `Usage: contract-first check --input FILE --base-url URL [options]

Sends requests to the server at URL, first at the edges of the document's schemas (bounds,
lengths, first and last enum values, required properties only and every property: the same in
every run), then generated from them, and reports where its responses break the document: 5xx
responses, undeclared statuses, undeclared Content-Types, bodies and headers that do not match
their schemas, 2xx responses to invalid requests or to requests without credentials, responses
other than 401 and 403 to requests with a wrong credential, created objects that cannot be read,
responses that never come. Then it prints each operation's requests and 2xx responses, and warns
of each operation that never got a 2xx, with the likely reason.

  --input FILE         the OpenAPI 3.1 document (YAML or JSON)
  --base-url URL       where the server listens; the document's paths are appended to it
  --cases N            valid requests per operation after its edge requests, and as many
                       invalid ones (default 50)
  --seed N             the random seed (default: random; always printed, to replay a run)
  --include OPS        only these operations: operationIds, or "METHOD /path" for one without,
                       comma-separated (repeatable)
  --exclude OPS        not these operations (same form; repeatable)
  --time-limit S       stop generating new requests after S seconds and report what ran
  --timeout-ms N       one response's deadline in milliseconds; past it, the finding is a hang
                       (default 5000)
  --concurrency N      requests in flight (default 8)
  --header "N: V"      a header sent with every request, as credentials (repeatable)
  --auth MODULE        a module whose default export prepares each request with credentials:
                       { prepare(request, context) } (CheckAuth of contract-first/check)
                       The credentials given are also sent made wrong (a token or key with one
                       character changed, an expired JWT, a wrong Basic password or user).
  --checks NAMES       only these checks judge the responses, comma-separated (repeatable):
                       ${CHECKS}
  --exclude-checks NAMES  not these checks (same names; repeatable)
  --report-json FILE   write the report as JSON
  --report-junit FILE  write the report as JUnit XML (a test case per operation)
  --no-negative        send no invalid requests, none without credentials, none with wrong ones
  --no-sequences       send no create-then-use sequences
  --help               show this text

Exit status: 0 when there is no finding, 1 when there is one, 2 on a wrong argument or a
document that cannot be read.`;

const FLAGS = {
  checks: { type: 'string', multiple: true },
  'exclude-checks': { type: 'string', multiple: true },
  input: { type: 'string' },
  'base-url': { type: 'string' },
  cases: { type: 'string' },
  seed: { type: 'string' },
  include: { type: 'string', multiple: true },
  exclude: { type: 'string', multiple: true },
  'time-limit': { type: 'string' },
  'timeout-ms': { type: 'string' },
  concurrency: { type: 'string' },
  header: { type: 'string', multiple: true },
  auth: { type: 'string' },
  'report-json': { type: 'string' },
  'report-junit': { type: 'string' },
  'no-negative': { type: 'boolean' },
  'no-sequences': { type: 'boolean' },
  help: { type: 'boolean' },
} as const;

const CONSOLE: ScriptOutput = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

/** A whole number from the command line within [min, max]; undefined when it is not one. */
function wholeNumber(text: string | undefined, min: number, max: number): number | undefined {
  if (text === undefined || !/^-?\d+$/.test(text.trim())) return undefined;
  const value = Number(text);
  return Number.isSafeInteger(value) && value >= min && value <= max ? value : undefined;
}

const list = (values: readonly string[] | undefined): string[] =>
  (values ?? [])
    .flatMap((value) => value.split(','))
    .map((value) => value.trim())
    .filter((value) => value !== '');

export async function main(
  argv: readonly string[],
  output: ScriptOutput = CONSOLE,
  cwd: string = process.env['INIT_CWD'] ?? process.cwd(),
): Promise<number> {
  const values = parseFlags(argv, FLAGS, USAGE, output);
  if (typeof values === 'number') return values;
  const usage = (problem: string): number => reportUsageError(problem, USAGE, output);
  if (values.input === undefined) return usage('--input FILE is required: the OpenAPI document to check against');
  if (values['base-url'] === undefined)
    return usage('--base-url URL is required: where the server listens (for example http://127.0.0.1:4010)');
  let baseUrl: URL;
  try {
    baseUrl = new URL(values['base-url']);
  } catch {
    return usage(`--base-url ${values['base-url']} is not a URL: give one such as http://127.0.0.1:4010`);
  }
  if (baseUrl.protocol !== 'http:' && baseUrl.protocol !== 'https:')
    return usage(`--base-url ${values['base-url']}: only http and https URLs are checked`);
  const cases = values.cases === undefined ? 50 : wholeNumber(values.cases, 1, 1_000_000);
  if (cases === undefined) return usage('--cases must be a whole number from 1 to 1000000');
  const seed = values.seed === undefined ? undefined : wholeNumber(values.seed, -(2 ** 31), 2 ** 31 - 1);
  if (values.seed !== undefined && seed === undefined)
    return usage('--seed must be a whole number that fits 32 bits (as printed by a previous run)');
  const timeLimit = values['time-limit'] === undefined ? undefined : Number(values['time-limit']);
  if (timeLimit !== undefined && !(Number.isFinite(timeLimit) && timeLimit > 0))
    return usage('--time-limit must be a number of seconds above 0');
  const timeoutMs = values['timeout-ms'] === undefined ? 5000 : wholeNumber(values['timeout-ms'], 1, 3_600_000);
  if (timeoutMs === undefined) return usage('--timeout-ms must be a whole number of milliseconds from 1 to 3600000');
  const concurrency = values.concurrency === undefined ? 8 : wholeNumber(values.concurrency, 1, 1024);
  if (concurrency === undefined) return usage('--concurrency must be a whole number from 1 to 1024');
  const headers: (readonly [string, string])[] = [];
  for (const text of values.header ?? []) {
    const header = parseHeader(text);
    if (header === undefined) return usage(`--header "${text}" is not "Name: value"`);
    headers.push(header);
  }
  let auth: CheckAuth | undefined;
  if (values.auth !== undefined) {
    try {
      auth = await loadAuth(path.resolve(cwd, values.auth));
    } catch (error) {
      if (error instanceof AuthModuleError) return usage(error.message);
      throw error;
    }
  }
  // What a replay repeats besides the document, the URL, the seed and the operations: the
  // credentials, the deadline, the requests left out and the checks selected.
  const replayFlags = [
    ...(values.header ?? []).flatMap((text) => ['--header', text]),
    ...(values.auth === undefined ? [] : ['--auth', values.auth]),
    ...(values['timeout-ms'] === undefined ? [] : ['--timeout-ms', String(timeoutMs)]),
    ...(values['no-negative'] === true ? ['--no-negative'] : []),
    ...(values['no-sequences'] === true ? ['--no-sequences'] : []),
    ...(values.checks === undefined ? [] : ['--checks', list(values.checks).join(',')]),
    ...(values['exclude-checks'] === undefined ? [] : ['--exclude-checks', list(values['exclude-checks']).join(',')]),
  ];

  let run: Awaited<ReturnType<typeof runCheckDetailed>>;
  try {
    run = await runCheckDetailed({
      input: path.resolve(cwd, values.input),
      inputAsTyped: values.input,
      baseUrl: values['base-url'],
      cases,
      ...(seed === undefined ? {} : { seed }),
      include: list(values.include),
      exclude: list(values.exclude),
      ...(timeLimit === undefined ? {} : { timeLimitSeconds: timeLimit }),
      timeoutMs,
      concurrency,
      headers,
      ...(auth === undefined ? {} : { auth }),
      negative: values['no-negative'] !== true,
      ...(values.checks === undefined ? {} : { checks: list(values.checks) }),
      ...(values['exclude-checks'] === undefined ? {} : { excludeChecks: list(values['exclude-checks']) }),
      sequences: values['no-sequences'] !== true,
      replayFlags,
    });
  } catch (error) {
    if (error instanceof BundleError) {
      output.stderr(`cannot check: ${error.message}\n`);
      return 2;
    }
    if (error instanceof CheckUsageError) return usage(error.message);
    throw error;
  }
  const { report, statistics, operations } = run;
  output.stdout(`${textReport(report, statistics).join('\n')}\n`);
  if (values['report-json'] !== undefined)
    await writeFile(path.resolve(cwd, values['report-json']), jsonReport(report));
  if (values['report-junit'] !== undefined)
    await writeFile(path.resolve(cwd, values['report-junit']), junitReport(report, operations));
  return report.findings.length > 0 ? 1 : 0;
}

export const COMMAND: Command = { run: (argv) => main(argv), options: { end: 'drain' } };
runAsMain(import.meta.url, COMMAND.run, COMMAND.options);
