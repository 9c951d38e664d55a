import { describe, expect, it } from 'vitest';
import { startScriptEnvironment, startScriptNodeFlags } from './processes.js';

// The service is measured, and started by the tests, as `npm start` starts it (package.json).
describe("npm start's command", () => {
  it('gives node its flags', () => {
    expect(startScriptNodeFlags()).toEqual([
      '--enable-source-maps',
      '--max-semi-space-size=8',
      '--max-old-space-size=1024',
    ]);
  });

  it('sets MALLOC_ARENA_MAX to 2 unless the environment sets it', () => {
    expect(startScriptEnvironment({})).toEqual({ MALLOC_ARENA_MAX: '2' });
    expect(startScriptEnvironment({ MALLOC_ARENA_MAX: '8' })).toEqual({ MALLOC_ARENA_MAX: '8' });
  });
});
