import { describe, expect, it } from 'vitest';
import { MECHANISMS, MECHANISM_NAMES, describeOff } from './mechanisms.js';

describe('the mechanisms --without turns off', () => {
  it('say how each is turned off', () => {
    expect(describeOff(MECHANISMS['last-statement'])).toBe('DATABASE_LAST_STATEMENT=off');
    expect(describeOff(MECHANISMS['pglite-prepared'])).toBe('PGLITE_PREPARED_STATEMENTS=off');
    expect(describeOff(MECHANISMS['database-thread'])).toBe('PGLITE_THREAD=off');
    expect(describeOff(MECHANISMS['card-read-batching'])).toBe('CARD_READ_BATCHING=off');
    expect(describeOff(MECHANISMS.none)).toBe('the same settings');
    for (const name of MECHANISM_NAMES) expect(MECHANISMS[name].name).toBe(name);
  });
});
