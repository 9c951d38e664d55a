import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderTable, replaceTable, type BenchResult } from '../../bench/report.js';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const RESULT = JSON.parse(readFileSync(new URL('../../bench/result.json', import.meta.url), 'utf8')) as BenchResult;

describe('the runtime benchmark in the README', () => {
  it('shows the tables of bench/result.json, the run `npm run bench -w contract-first -- --readme` wrote', () => {
    expect(replaceTable(README, renderTable(RESULT))).toBe(README);
  });

  it('compares every server with Fastify on both routes, and times the start in both modes', () => {
    const servers = new Set(RESULT.throughput.map((row) => row.server));
    expect(servers.size).toBe(5);
    expect(RESULT.throughput).toHaveLength(10);
    for (const row of RESULT.throughput) {
      expect(row.requestsPerSecond).toBeGreaterThan(0);
      expect(row.ratioToFastify).not.toBeNull();
    }
    expect(RESULT.start.map((start) => start.mode)).toEqual(['production', 'development']);
    for (const start of RESULT.start) expect(start.operations).toBe(500);
  });

  it('replaces only what is between its markers', () => {
    const readme = `# x\n\n${README.slice(README.indexOf('<!-- runtime benchmark'), README.indexOf('<!-- end of runtime benchmark -->'))}<!-- end of runtime benchmark -->\n\nafter\n`;
    const replaced = replaceTable(readme, '| a |');
    expect(replaced.startsWith('# x\n\n<!-- runtime benchmark')).toBe(true);
    expect(replaced).toContain('-->\n| a |\n<!-- end of runtime benchmark -->\n\nafter\n');
    expect(() => replaceTable('# no markers', '| a |')).toThrow(/no .* section/);
  });
});
