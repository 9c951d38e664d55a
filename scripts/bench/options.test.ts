import { describe, expect, it } from 'vitest';
import { UsageError } from 'contract-first/cli';
import { RUN_NAMES, RUN_TRAFFIC, parseBenchArgs } from './options.js';

describe('parseBenchArgs', () => {
  it('takes the mechanisms to turn off, in their own order', () => {
    const options = parseBenchArgs(['--only', 'getCardSpread,mixed', '--without', 'database-thread,last-statement']);
    if (options === 'help') throw new Error('help');
    expect(options.runs).toEqual(['getCardSpread', 'mixed']);
    expect(options.without).toEqual(['last-statement', 'database-thread']);
  });

  it('rejects a mechanism it does not know, naming those it does', () => {
    expect(() => parseBenchArgs(['--without', 'cache'])).toThrow(UsageError);
    expect(() => parseBenchArgs(['--without', 'cache'])).toThrow(/last-statement/);
  });

  it('labels the repeated-request runs as carrying no target', () => {
    for (const name of ['getCard', 'listTransactions', 'createTransferReplay'] as const)
      expect(RUN_TRAFFIC[name]).toMatch(/repeated request, no target/);
    for (const name of RUN_NAMES) expect(RUN_TRAFFIC[name]).not.toBe('');
  });
});
