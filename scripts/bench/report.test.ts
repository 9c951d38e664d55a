import { describe, expect, it } from 'vitest';
import type { RunName } from './options.js';
import { evaluateTargets, SPEED_TARGETS, type RunResult } from './report.js';

const run = (name: RunName, ratioToExpress: number, p99Ms = 5, peakRssMb = 150): RunResult => ({
  name,
  rps: 1_000,
  p50Ms: 1,
  p99Ms,
  cpuUsPerRequest: 100,
  ratioToExpress,
  peakRssMb,
});

const statusOf = (targets: ReturnType<typeof evaluateTargets>, start: string) => targets.find((t) => t.target.startsWith(start))?.status;

describe('evaluateTargets', () => {
  it("checks each database's own ratios: a page at 0.12 × Express passes on PGlite and misses on PostgreSQL", () => {
    const runs = [run('listTransactions', 0.12)];
    expect(statusOf(evaluateTargets(runs, [], 'pglite', 10), 'page of 100')).toBe('PASS');
    expect(statusOf(evaluateTargets(runs, [], 'postgres', 10), 'page of 100')).toBe('MISS');
  });

  it('passes a ratio at its minimum and misses one just below', () => {
    const minimum = SPEED_TARGETS.postgres.ratios.find((t) => t.run === 'getCard')?.minimum ?? Number.NaN;
    expect(statusOf(evaluateTargets([run('getCard', minimum)], [], 'postgres', 10), 'card read')).toBe('PASS');
    expect(statusOf(evaluateTargets([run('getCard', minimum - 0.001)], [], 'postgres', 10), 'card read')).toBe('MISS');
  });

  it('checks p99 latencies only at 10 connections', () => {
    const slow = [run('executeTransfer', 0.1, 60)];
    expect(statusOf(evaluateTargets(slow, [], 'postgres', 10), 'executeTransfer p99')).toBe('MISS');
    expect(statusOf(evaluateTargets(slow, [], 'postgres', 50), 'executeTransfer p99')).toBe('n/a');
    expect(statusOf(evaluateTargets([run('executeTransfer', 0.1, 49)], [], 'pglite', 10), 'executeTransfer p99')).toBe('PASS');
  });

  it('says which targets were not run, and checks the page sweep and the memory on PostgreSQL', () => {
    const targets = evaluateTargets([run('listBanks', 1, 3, 210)], [{ rows: 10_000, p99Ms: 20 }, { rows: 1_000_000, p99Ms: 31 }], 'postgres', 10);
    expect(statusOf(targets, 'card read')).toBe('n/a');
    expect(statusOf(targets, 'bank list')).toBe('PASS');
    expect(statusOf(targets, 'listTransactions p99 at 1M')).toBe('MISS');
    expect(statusOf(targets, 'server RSS')).toBe('MISS');
  });
});
