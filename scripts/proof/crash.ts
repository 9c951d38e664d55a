// The long crash schedule: SIGKILLs the server process (`node --import tsx server/main.ts`) at
// moments a seeded schedule picks, while clients create, execute and cancel transfers and retry
// with their idempotency keys; then restarts it, lets every retry converge and the payment network
// settle, and checks the invariants (scripts/proof/crash-schedule.ts says exactly what).
import { runCrashSchedule } from './crash-schedule.js';
import { seedFrom } from './seed.js';
import { parseFlags, reportUsageError, runAsMain } from 'contract-first/cli';

const USAGE = `Usage: tsx scripts/proof/crash.ts [--kills N] [--seed N] [--clients N] [--database postgres|pglite]
On PostgreSQL when DATABASE_URL is set (a fresh database on that server, dropped afterwards), else
on the embedded database in a scratch directory (--database pglite forces it).
  --kills N          SIGKILLs to deliver (default 200)
  --seed N           the schedule's seed (printed; default random): the same seed replays the schedule
  --clients N        concurrent clients (default 6)`;

async function main(argv: readonly string[]): Promise<number> {
  const values = parseFlags(
    argv,
    {
      kills: { type: 'string', default: '200' },
      seed: { type: 'string' },
      clients: { type: 'string', default: '6' },
      database: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    USAGE,
  );
  if (typeof values === 'number') return values;
  const reject = (reason: string): number => reportUsageError(reason, USAGE);
  const kills = Number(values.kills);
  const clients = Number(values.clients);
  if (!Number.isInteger(kills) || kills < 1 || !Number.isInteger(clients) || clients < 1)
    return reject('--kills and --clients are positive integers.');
  const database = values.database ?? (process.env['DATABASE_URL'] ? 'postgres' : 'pglite');
  if (database !== 'postgres' && database !== 'pglite') return reject('--database is postgres or pglite.');
  if (database === 'postgres' && !process.env['DATABASE_URL'])
    return reject(
      '--database postgres needs DATABASE_URL=postgres://… (the server to create the scratch database on).',
    );
  const seed = seedFrom(values.seed);
  console.log(
    `crash schedule: ${kills} kills on ${database}, ${clients} clients, seed ${seed} (replay: tsx scripts/proof/crash.ts --kills ${kills} --seed ${seed}${values.database !== undefined ? ` --database ${database}` : ''})`,
  );

  const started = Date.now();
  const report = await runCrashSchedule({
    seed,
    kills,
    database,
    clients,
    ...(database === 'pglite' ? { lifeMs: [800, 2500] as const } : {}),
    log: (line) => console.log(`  [${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s] ${line}`),
  });
  console.log(
    [
      '',
      `${report.kills} kills (${report.killsUnderLoad} under load, ${report.killsDuringStartup} during start-up) in ${(report.durationMs / 1000).toFixed(1)} s`,
      `${report.requests} requests, ${report.interrupted} cut off by a kill and retried with their key`,
      `responses by status: ${JSON.stringify(report.responsesByStatus)}`,
      `${report.replaysChecked} replays compared with the first response`,
      ...(database === 'pglite'
        ? [`${report.staleLocksTakenOver} pid locks of killed servers taken over by the next start`]
        : []),
      `operations: ${report.operations.creates} creates, ${report.operations.executes} executes, ${report.operations.cancels} cancels`,
      `transfers at the end: ${JSON.stringify(report.invariants.byStatus)}; balance ${JSON.stringify(report.invariants.balances)}`,
    ].join('\n'),
  );
  if (report.violations.length > 0) {
    console.error(
      `\nFAIL: ${report.violations.length} violations (seed ${seed}):\n- ${report.violations.slice(0, 50).join('\n- ')}`,
    );
    return 1;
  }
  console.log('PASS: every acknowledged request is in the database, every key converged, the invariants hold');
  return 0;
}

runAsMain(import.meta.url, main, {
  describeError: (error) => (error instanceof Error ? (error.stack ?? error.message) : error),
  end: 'drain',
});
