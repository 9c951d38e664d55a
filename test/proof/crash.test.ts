import { describe, expect, it } from 'vitest';
import { runCrashSchedule, type CrashDatabase } from '../../scripts/proof/crash-schedule.js';
import { seedFrom } from '../../scripts/proof/seed.js';

// The crash proof in CI time: SIGKILLs of the server process at moments a
// seeded schedule picks, on PostgreSQL when DATABASE_URL is set, else on the embedded database
// (a file data directory: it must recover after every kill, and each restart must take over the
// pid lock the killed process left). What it checks: scripts/proof/crash-schedule.ts. The long
// schedule: `tsx scripts/proof/crash.ts --kills 200 --seed N`.
// Replay a failure: CRASH_SEED=<the printed seed> npx vitest run test/proof/crash.test.ts

const database: CrashDatabase = process.env['DATABASE_URL'] ? 'postgres' : 'pglite';
const seed = seedFrom(process.env['CRASH_SEED']);
/**
 * PostgreSQL: 20 kills (the issue's minimum for CI); a server restarts in about 2 s. The embedded
 * database restarts in 3 to 7 s on a 2-core machine (WebAssembly start, then WAL recovery after
 * the kill), so its CI form delivers 6 kills with longer lives in about a minute; the long form
 * (scripts/proof/crash.ts --database pglite) delivers as many as asked.
 */
const kills = Number(process.env['CRASH_KILLS'] ?? (database === 'postgres' ? 20 : 6));
const lifeMs: readonly [number, number] = database === 'postgres' ? [100, 900] : [800, 2000];

describe(`crash safety on ${database === 'postgres' ? 'PostgreSQL' : 'the embedded database'}`, () => {
  it(`survives ${kills} SIGKILLs at random moments (seed ${seed})`, async () => {
    console.info(`crash schedule: seed ${seed}, ${kills} kills, ${database} (replay with CRASH_SEED=${seed})`);
    const report = await runCrashSchedule({ seed, kills, database, lifeMs });
    console.info(
      `crash schedule (seed ${seed}): ${report.kills} kills (${report.killsUnderLoad} under load, ${report.killsDuringStartup} during start-up), ` +
        `${report.requests} requests, ${report.interrupted} cut off by a kill, responses ${JSON.stringify(report.responsesByStatus)}, ` +
        `${report.replaysChecked} replays checked, ` +
        `${database === 'pglite' ? `${report.staleLocksTakenOver} stale pid locks taken over, ` : ''}${report.operations.creates} creates / ` +
        `${report.operations.executes} executes / ${report.operations.cancels} cancels, transfers ${JSON.stringify(report.invariants.byStatus)}, ` +
        `${Math.round(report.durationMs / 1000)} s`,
    );
    expect(report.violations, `seed ${seed}`).toEqual([]);
    expect(report.kills).toBeGreaterThanOrEqual(kills);
    // The proof means something only if work was cut off and then converged.
    expect(report.interrupted).toBeGreaterThan(0);
    expect(report.operations.creates).toBeGreaterThan(0);
    // The embedded database: every kill under load left the pid lock behind, and a restart took it over.
    if (database === 'pglite') expect(report.staleLocksTakenOver).toBe(report.killsUnderLoad);
  }, 600_000);
});
