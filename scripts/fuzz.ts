// The long fuzz run (issue 6 item 4): `tsx scripts/fuzz.ts --runs 10000 --seed N [--lanes 4]`.
// The same cases and checks as test/proof/fuzz.test.ts (test/proof/helpers/fuzz-cases.ts and
// fuzz-runner.ts), against the real app on a fresh database: PostgreSQL when DATABASE_URL is set
// (a new database on that server, dropped afterwards), else the embedded one in memory.
// Prints the seed first, so that a failure can be replayed with the same --seed and --runs.
import { parseArgs } from 'node:util';
import { startTestApp } from '../test/helpers/app.js';
import { runFuzz } from '../test/proof/helpers/fuzz-runner.js';
import { seedFrom } from '../test/proof/helpers/prng.js';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '10000' },
      seed: { type: 'string' },
      lanes: { type: 'string', default: '4' },
    },
  });
  const runs = Number(values.runs);
  const lanes = Number(values.lanes);
  if (!Number.isInteger(runs) || runs < 1 || !Number.isInteger(lanes) || lanes < 1) throw new Error('--runs and --lanes are positive integers');
  const seed = seedFrom(values.seed);
  const database = process.env['DATABASE_URL'] ? 'PostgreSQL' : 'the embedded database';
  console.log(`fuzz: ${runs} cases on ${database}, seed ${seed} (replay: tsx scripts/fuzz.ts --runs ${runs} --seed ${seed})`);

  const app = await startTestApp();
  try {
    const report = await runFuzz(
      { baseUrl: app.baseUrl, db: app.db, clock: app.clock, onboard: (request) => app.onboard(request) },
      { runs, seed, lanes, log: (line) => console.log(`  ${line}`) },
    );
    const table = (counts: Record<string, number>): string =>
      Object.entries(counts)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([name, count]) => `    ${name.padEnd(22)} ${String(count).padStart(6)}`)
        .join('\n');
    console.log(`\n${report.cases} cases in ${(report.durationMs / 1000).toFixed(1)} s, ${report.writesChecked} rejected-or-accepted writes checked against the database`);
    console.log(`  by status\n${table(report.byStatus)}`);
    console.log(`  by family\n${table(report.byFamily)}`);
    console.log(`  by operation\n${table(report.byOperation)}`);
    console.log('PASS: every answer within the contract');
  } finally {
    await app.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  // fast-check wraps the property's own error: that one says what was wrong.
  if (error instanceof Error && error.cause instanceof Error) console.error(`\n${error.cause.message}`);
  console.error('FAIL');
  process.exitCode = 1;
});
