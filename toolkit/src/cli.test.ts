import { describe, expect, it } from 'vitest';
import { UsageError, wholeNumberFlag } from './cli.js';

describe('wholeNumberFlag', () => {
  it('reads a whole number within its range, and the fallback when the flag is absent', () => {
    expect(wholeNumberFlag('--top', '0', 0, 10)).toBe(0);
    expect(wholeNumberFlag('--top', '10', 0, 10)).toBe(10);
    expect(wholeNumberFlag('--top', undefined, 1, 10, 3)).toBe(3);
  });

  it.each([
    ['-1', '--top must be a whole number from 0 to 10; got "-1".'],
    ['11', '--top must be a whole number from 0 to 10; got "11".'],
    ['1.5', '--top must be a whole number from 0 to 10; got "1.5".'],
    ['1e1', '--top must be a whole number from 0 to 10; got "1e1".'],
    ['', '--top must be a whole number from 0 to 10; got "".'],
  ])('rejects %j with a UsageError naming the flag and its range', (text, message) => {
    expect(() => wholeNumberFlag('--top', text, 0, 10)).toThrow(new UsageError(message));
  });

  it('rejects a number past the safe integers, whatever the range says', () => {
    expect(() => wholeNumberFlag('--balance', '9007199254740993', 0, Number.MAX_SAFE_INTEGER)).toThrow(UsageError);
  });

  it('rejects a missing flag that has no fallback', () => {
    expect(() => wholeNumberFlag('--seeds', undefined, 1, 10)).toThrow(
      new UsageError('--seeds is required: a whole number from 1 to 10.'),
    );
  });
});
