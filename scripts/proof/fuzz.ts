// The long fuzz run: the same cases and checks as test/proof/fuzz.test.ts (the toolkit's contract
// checker with the service's plug-in: scripts/proof/fuzz-runner.ts, fuzz-plugin.ts and
// fuzz-cases.ts), against the real app on a fresh database.
import { startTestApp } from './app.js';
import { runFuzz } from './fuzz-runner.js';
import { seedFrom } from './seed.js';
import { parseFlags, reportUsageError, runAsMain } from 'contract-first/cli';

const USAGE = `Usage: tsx scripts/proof/fuzz.ts [--runs N] [--seed N] [--lanes N]
On PostgreSQL when DATABASE_URL is set (a new database on that server, dropped afterwards), else
on the embedded database in memory. Prints the seed first: the same --seed and --runs replay a run.
  --runs N           cases to run (default 10000)
  --seed N           fast-check's seed (printed; default random)
  --lanes N          organizations the cases are spread over (default 4)`;

async function main(argv: readonly string[]): Promise<number> {
  const values = parseFlags(
    argv,
    {
      runs: { type: 'string', default: '10000' },
      seed: { type: 'string' },
      lanes: { type: 'string', default: '4' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    USAGE,
  );
  if (typeof values === 'number') return values;
  const runs = Number(values.runs);
  const lanes = Number(values.lanes);
  if (!Number.isInteger(runs) || runs < 1 || !Number.isInteger(lanes) || lanes < 1) {
    return reportUsageError('--runs and --lanes are positive integers.', USAGE);
  }
  const seed = seedFrom(values.seed);
  const database = process.env['DATABASE_URL'] ? 'PostgreSQL' : 'the embedded database';
  console.log(
    `fuzz: ${runs} cases on ${database}, seed ${seed} (replay: tsx scripts/proof/fuzz.ts --runs ${runs} --seed ${seed}${lanes !== 4 ? ` --lanes ${lanes}` : ''})`,
  );

  const app = await startTestApp();
  try {
    const report = await runFuzz(
      { baseUrl: app.baseUrl, db: app.db, clock: app.clock, onboard: (request) => app.onboard(request) },
      {
        runs,
        seed,
        lanes,
        log: (line) => console.log(`  ${line}`),
        replay: `tsx scripts/proof/fuzz.ts --runs ${runs} --seed ${seed}${lanes !== 4 ? ` --lanes ${lanes}` : ''}`,
      },
    );
    const table = (counts: Record<string, number>): string =>
      Object.entries(counts)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([name, count]) => `    ${name.padEnd(22)} ${String(count).padStart(6)}`)
        .join('\n');
    console.log(
      `\n${report.cases} cases in ${(report.durationMs / 1000).toFixed(1)} s, ${report.writesChecked} rejected-or-accepted writes checked against the database`,
    );
    console.log(`  by status\n${table(report.byStatus)}`);
    console.log(`  by family\n${table(report.byFamily)}`);
    console.log(`  by operation\n${table(report.byOperation)}`);
    console.log('PASS: every response within the contract');
    return 0;
  } finally {
    await app.close();
  }
}

runAsMain(import.meta.url, main, {
  describeError: (error) => `${error instanceof Error ? error.message : String(error)}\nFAIL`,
  end: 'drain',
});
