import { randomInt } from 'node:crypto';

/**
 * The seed named by `text` (an unsigned 32-bit integer), or a fresh random one when absent: the
 * fuzz and crash runs print the seed they use, and take it back (`--seed N`, or FUZZ_SEED and
 * CRASH_SEED in the tests) to replay a run.
 */
export function seedFrom(text: string | undefined): number {
  if (text === undefined || text === '') return randomInt(0, 2 ** 31);
  const seed = Number(text);
  if (!Number.isSafeInteger(seed) || seed < 0 || seed >= 2 ** 32) {
    throw new Error(`A seed is an integer from 0 to ${2 ** 32 - 1} (got ${JSON.stringify(text)})`);
  }
  return seed;
}
