import { describe, expect, it } from 'vitest';
import type { RunName } from './options.js';
import { ablationRun, evaluateTargets, SPEED_TARGETS, type OperationResult, type RunResult } from './report.js';

const run = (name: RunName, ratioToExpress: number, p99Ms = 5, peakRssMb = 150): RunResult => ({
  name,
  rps: 1_000,
  p50Ms: 1,
  p99Ms,
  cpuUsPerRequest: 100,
  ratioToExpress,
  peakRssMb,
});

const mixed = (operation: string, p99Ms: number, non2xx = 0): OperationResult => ({
  run: 'mixed',
  operation,
  requests: 100,
  rps: 50,
  p50Ms: 1,
  p99Ms,
  non2xx,
});

const statusOf = (targets: ReturnType<typeof evaluateTargets>, start: string) =>
  targets.find((t) => t.target.startsWith(start))?.status;

describe('evaluateTargets', () => {
  it("checks each database's own ratios: a walk at 0.1 × Express passes on PGlite and misses on PostgreSQL", () => {
    const runs = [run('listTransactionsPages', 0.1)];
    expect(statusOf(evaluateTargets(runs, [], 'pglite', 10), 'ledger pagination')).toBe('PASS');
    expect(statusOf(evaluateTargets(runs, [], 'postgres', 10), 'ledger pagination')).toBe('MISS');
  });

  it('passes a ratio at its minimum and misses one just below', () => {
    const minimum = SPEED_TARGETS.postgres.ratios.find((t) => t.run === 'getCardSpread')?.minimum ?? Number.NaN;
    expect(statusOf(evaluateTargets([run('getCardSpread', minimum)], [], 'postgres', 10), 'card reads over')).toBe(
      'PASS',
    );
    expect(
      statusOf(evaluateTargets([run('getCardSpread', minimum - 0.001)], [], 'postgres', 10), 'card reads over'),
    ).toBe('MISS');
  });

  it('scores no repeated-request run', () => {
    const targets = evaluateTargets(
      [run('getCard', 0.01), run('listTransactions', 0.01), run('createTransferReplay', 0.01)],
      [],
      'postgres',
      10,
    );
    expect(targets.filter((t) => t.status === 'MISS')).toEqual([]);
  });

  it('checks p99 latencies only at 10 connections', () => {
    const slow = [run('executeTransfer', 0.1, 60)];
    expect(statusOf(evaluateTargets(slow, [], 'postgres', 10), 'executeTransfer p99')).toBe('MISS');
    expect(statusOf(evaluateTargets(slow, [], 'postgres', 50), 'executeTransfer p99')).toBe('n/a');
    expect(statusOf(evaluateTargets([run('executeTransfer', 0.1, 49)], [], 'pglite', 10), 'executeTransfer p99')).toBe(
      'PASS',
    );
  });

  it('checks every operation of the mixed run on its own p99', () => {
    const operations = [
      mixed('getCard', 12),
      mixed('listTransactions', 51),
      mixed('createTransfer', 49.9),
      mixed('executeTransfer', 3, 100),
    ];
    const targets = evaluateTargets([run('mixed', 0.1)], [], 'pglite', 10, operations);
    expect(statusOf(targets, 'mixed: getCard')).toBe('PASS');
    expect(statusOf(targets, 'mixed: listTransactions')).toBe('MISS');
    expect(statusOf(targets, 'mixed: createTransfer')).toBe('PASS');
    // Every execute failed: its latencies say nothing.
    expect(statusOf(targets, 'mixed: executeTransfer')).toBe('MISS');
    expect(statusOf(evaluateTargets([], [], 'postgres', 10), 'mixed: every operation')).toBe('n/a');
  });

  it('says which targets were not run, and checks the walk sweep and the memory on PostgreSQL', () => {
    const sweep = [
      { rows: 10_000, p99Ms: 20 },
      { rows: 1_000_000, p99Ms: 31 },
    ];
    const targets = evaluateTargets([run('listBanks', 1, 3, 210)], sweep, 'postgres', 10);
    expect(statusOf(targets, 'card reads over')).toBe('n/a');
    expect(statusOf(targets, 'bank list')).toBe('PASS');
    expect(statusOf(targets, 'listTransactionsPages p99 at 1M')).toBe('MISS');
    expect(statusOf(targets, 'server RSS')).toBe('MISS');
    // The walk's growth is a PostgreSQL target: on PGlite it is shown, not scored.
    expect(statusOf(evaluateTargets([], sweep, 'pglite', 10), 'listTransactionsPages p99 at 1M')).toBe('n/a');
  });
});

describe('ablationRun', () => {
  it("gives the rate without the mechanism as a share of the rate with it, and each side's CPU", () => {
    expect(
      ablationRun(
        'mixed',
        { rps: 1000, p99Ms: 20, cpuUsPerRequest: 400, otherCpuPct: 1.26 },
        { rps: 850, p99Ms: 31.23456, cpuUsPerRequest: 470, otherCpuPct: 0 },
      ),
    ).toEqual({
      name: 'mixed',
      withRps: 1000,
      withoutRps: 850,
      ratio: 0.85,
      withP99Ms: 20,
      withoutP99Ms: 31.235,
      withCpuUsPerRequest: 400,
      withoutCpuUsPerRequest: 470,
      withOtherCpuPct: 1.3,
      withoutOtherCpuPct: 0,
    });
  });

  it('leaves CPU out for one operation of a run, which has none of its own', () => {
    expect(ablationRun('mixed/getCard', { rps: 400, p99Ms: 9 }, { rps: 420, p99Ms: 8 })).toMatchObject({
      ratio: 1.05,
      withCpuUsPerRequest: null,
      withoutOtherCpuPct: null,
    });
  });
});
