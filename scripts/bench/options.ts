/** The flags of `npm run bench`. */
import { parseArgs } from 'node:util';
import { UsageError, wholeNumberFlag } from 'contract-first/cli';
import { MECHANISM_NAMES, type MechanismName } from './mechanisms.js';

export const RUN_NAMES = [
  'baseline-http',
  'baseline-express',
  'baseline-express-validated',
  'listBanks',
  'getCard',
  'getCardSpread',
  'listTransactions',
  'listTransactionsUnkept',
  'listTransactionsPages',
  'createTransfer',
  'createTransferReplay',
  'executeTransfer',
  'mixed',
] as const;

export type RunName = (typeof RUN_NAMES)[number];

/** The service's runs, not the baselines: the Express baseline is measured around them, and they count for the memory target. */
export const SERVICE_RUNS: readonly RunName[] = RUN_NAMES.filter((name) => !name.startsWith('baseline-'));

/** The runs whose traffic spreads over the organizations of seed-organizations.ts. */
export const SPREAD_RUNS: readonly RunName[] = ['getCardSpread', 'listTransactionsPages', 'mixed'];

/** Organizations of the spread runs, and rounds of sandbox data (16 cards each) per organization: 5 × 13 × 16 = 1,040 cards. */
export const SPREAD_ORGANIZATIONS = 5;
export const SANDBOX_ROUNDS_PER_ORGANIZATION = 13;

/** What each run sends; the repeated-request runs say that they carry no target. */
export const RUN_TRAFFIC: Readonly<Record<RunName, string>> = {
  'baseline-http': 'bare node:http serving the bytes GET /v1/bank responded with',
  'baseline-express': 'bare Express 5 responding with the same bytes (the ratios are to this run)',
  'baseline-express-validated': 'Express 5 with request validation, the same bytes',
  listBanks: 'GET /v1/bank',
  getCard: 'the same card every request: repeated request, no target',
  getCardSpread: `GET /v1/card/{id} over the ${SPREAD_ORGANIZATIONS * SANDBOX_ROUNDS_PER_ORGANIZATION * 16} cards of ${SPREAD_ORGANIZATIONS} organizations in turn, each with its own token`,
  listTransactions: 'the same filtered page of 100 every request: repeated request, no target',
  listTransactionsUnkept: 'the same filtered records with a new fromDate each request, so none is kept: no target',
  listTransactionsPages:
    'ledger pages followed by nextCursor, each page once, under 4 filter sets in every organization',
  createTransfer: 'signed POST /v1/transfer, a new Idempotency-Key each',
  createTransferReplay:
    'the same key and body every request, the stored response replayed: repeated request, no target',
  executeTransfer: 'signed POST /v1/transfer/{id}/execute, each pending transfer once',
  mixed:
    '8 spread card reads, 8 walk pages, 3 signed creates and 1 execute in every 20 requests, over all organizations',
};

/** The sweep: 10k, 100k and 1M ledger records. */
export const DEFAULT_SWEEP_ROWS = [10_000, 100_000, 1_000_000] as const;

export interface BenchOptions {
  readonly durationS: number;
  readonly connections: number;
  readonly json: boolean;
  readonly quick: boolean;
  /** Ledger sizes of the sweep; empty when there is no sweep. */
  readonly rows: readonly number[];
  /** Bulk ledger records of the main database (the issue: 100 000). */
  readonly transactions: number;
  readonly runs: readonly RunName[];
  /** Write a V8 CPU profile of each service process into this directory. */
  readonly cpuProfDir: string | undefined;
  readonly signEachRequest: boolean;
  /** Extra flags for the service's node (e.g. --max-semi-space-size=8), to try a memory or GC setting. */
  readonly nodeFlags: readonly string[];
  /** Before each run, wait up to this many seconds for the rest of the machine to go quiet; 0: do not wait. */
  readonly waitQuietS: number;
  readonly logLevel: string;
  /** Mechanisms to turn off, one at a time, for the service's runs again (mechanisms.ts). */
  readonly without: readonly MechanismName[];
}

export const USAGE = `Usage: npm run bench -- [options]

Measures the service against bare node:http and Express baselines with autocannon, one run after
another on this machine, and checks the service's speed targets. The service runs as a child process
(NODE_ENV=production) on a fresh database: a new PostgreSQL database on the server DATABASE_URL
names (created and dropped by the benchmark), or an embedded one in a temporary directory when
DATABASE_URL is unset. The organization is onboarded with --demo and 100 000 ledger records.
baseline-express is measured before the service's runs and again after them, and the ratios are to
the faster of the two: a slow moment of the machine during one baseline run would raise them all.
The spread runs (${SPREAD_RUNS.join(', ')}) add ${SPREAD_ORGANIZATIONS - 1} more organizations with
${SANDBOX_ROUNDS_PER_ORGANIZATION} rounds of sandbox cards each, and report beside each read the
rate of its statements alone (pgbench on PostgreSQL; a loop through the store on either database).

  --duration S          seconds per run (default 10; 2 with --quick)
  --connections N       concurrent connections (default 10)
  --rows [LIST]         also sweep the ledger pagination (listTransactionsPages, one organization) over
                        ledger sizes, re-seeding a fresh database for each (default list
                        10000,100000,1000000)
  --transactions N      bulk ledger records of each organization (default 100000)
  --only NAMES          comma-separated runs to measure (default all):
                        ${RUN_NAMES.join(', ')}
  --without NAMES       comma-separated mechanisms to turn off, one at a time: the service's runs of
                        --only are measured again against a service started without it, on the same
                        database, and the report gives each run's ratio without / with:
                        ${MECHANISM_NAMES.join(', ')} (none: the same service again,
                        for how far two runs of one configuration differ)
  --quick               2 s runs and no sweep: a smoke test
  --cpu-prof            profile the service (node --cpu-prof) into --cpu-prof-dir: one profile per
                        service process, covering all its runs (pick one with --only); read it
                        with npx tsx scripts/bench/profile-summary.ts FILE
  --cpu-prof-dir DIR    where profiles go (default a new directory under the system temp dir)
  --sign-each-request   sign every write as it is sent (~0.7 ms of client CPU each) instead of
                        reusing a (path, second)'s signature and signing executes before the run
  --node-flag FLAG      an extra flag for the service's node process, e.g. --node-flag=--max-semi-space-size=8
                        (repeatable)
  --wait-quiet S        before each run, wait up to S seconds until the machine is nearly idle
                        (under 15 % of all cores busy), for shared machines (default 0: no wait)
  --log-level LEVEL     the service's LOG_LEVEL (default warn)
  --json                print only the result as JSON on stdout (through npm, add -s:
                        npm run -s bench -- --json; otherwise npm prints its banner there too)
  --help                show this text`;

export function parseBenchArgs(argv: readonly string[]): BenchOptions | 'help' {
  // `--rows` may stand alone (the default sweep): give parseArgs the value it expects.
  const args = [...argv];
  const rowsAt = args.indexOf('--rows');
  if (rowsAt >= 0 && (args[rowsAt + 1] === undefined || args[rowsAt + 1]?.startsWith('--') === true)) {
    args.splice(rowsAt + 1, 0, DEFAULT_SWEEP_ROWS.join(','));
  }
  let values;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        duration: { type: 'string' },
        connections: { type: 'string' },
        rows: { type: 'string' },
        transactions: { type: 'string' },
        only: { type: 'string' },
        quick: { type: 'boolean' },
        'cpu-prof': { type: 'boolean' },
        'cpu-prof-dir': { type: 'string' },
        'sign-each-request': { type: 'boolean' },
        'node-flag': { type: 'string', multiple: true },
        'wait-quiet': { type: 'string' },
        'log-level': { type: 'string' },
        without: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (values.help === true) return 'help';
  const quick = values.quick === true;
  const rows =
    values.rows === undefined || quick
      ? []
      : values.rows.split(',').map((part) => wholeNumberFlag('--rows', part.trim(), 1, 10_000_000));
  const runs =
    values.only === undefined
      ? RUN_NAMES
      : values.only.split(',').map((name) => {
          const run = RUN_NAMES.find((candidate) => candidate === name.trim());
          if (run === undefined)
            throw new UsageError(`--only: unknown run ${JSON.stringify(name)}; known: ${RUN_NAMES.join(', ')}.`);
          return run;
        });
  const without =
    values.without === undefined
      ? []
      : values.without.split(',').map((name) => {
          const mechanism = MECHANISM_NAMES.find((candidate) => candidate === name.trim());
          if (mechanism === undefined)
            throw new UsageError(
              `--without: unknown mechanism ${JSON.stringify(name)}; known: ${MECHANISM_NAMES.join(', ')}.`,
            );
          return mechanism;
        });
  const cpuProf = values['cpu-prof'] === true || values['cpu-prof-dir'] !== undefined;
  return {
    durationS: wholeNumberFlag('--duration', values.duration, 1, 3600, quick ? 2 : 10),
    connections: wholeNumberFlag('--connections', values.connections, 1, 1000, 10),
    json: values.json === true,
    quick,
    rows,
    transactions: wholeNumberFlag('--transactions', values.transactions, 0, 10_000_000, 100_000),
    runs: RUN_NAMES.filter((name) => runs.includes(name)),
    cpuProfDir: cpuProf ? (values['cpu-prof-dir'] ?? '') : undefined,
    signEachRequest: values['sign-each-request'] === true,
    nodeFlags: values['node-flag'] ?? [],
    waitQuietS: wholeNumberFlag('--wait-quiet', values['wait-quiet'], 0, 3600, 0),
    logLevel: values['log-level'] ?? 'warn',
    without: MECHANISM_NAMES.filter((name) => without.includes(name)),
  };
}
