import { randomInt } from 'node:crypto';

/**
 * A small seeded pseudo-random generator (mulberry32) for the crash schedule and the clients'
 * choices: printing the seed is enough to replay a schedule. Not for anything secret.
 */
export interface Prng {
  readonly seed: number;
  /** A float in [0, 1). */
  next(): number;
  /** An integer from min to max, both inclusive. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(probability: number): boolean;
}

export function createPrng(seed: number): Prng {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return {
    seed,
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => {
      const item = items[Math.floor(next() * items.length)];
      if (item === undefined) throw new Error('pick from an empty list');
      return item;
    },
    chance: (probability) => next() < probability,
  };
}

/** The seed named by `text` (an unsigned 32-bit integer), or a fresh random one when absent. */
export function seedFrom(text: string | undefined): number {
  if (text === undefined || text === '') return randomInt(0, 2 ** 31);
  const seed = Number(text);
  if (!Number.isSafeInteger(seed) || seed < 0 || seed >= 2 ** 32) {
    throw new Error(`A seed is an integer from 0 to ${2 ** 32 - 1} (got ${JSON.stringify(text)})`);
  }
  return seed;
}
