import { randomBytes } from 'node:crypto';

/** Wall-clock time in Unix milliseconds; injected so that tests can pin and move it. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** Creates identifiers such as `trf_3k9x...`; injected so that tests can make them predictable. */
export interface IdGenerator {
  next(prefix: IdPrefix): string;
}

export type IdPrefix = 'org' | 'cli' | 'key' | 'trf' | 'crd' | 'chd' | 'dep' | 'txn' | 'req' | 'opr';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

/**
 * Random bytes taken from a pool refilled 4 KiB at a time: a system call per id would cost more
 * than the rest of a small request's id work (Node's randomUUID keeps a pool the same way).
 */
const POOL_SIZE = 4096;
let pool = Buffer.alloc(0);
let poolOffset = 0;

function randomByte(): number {
  if (poolOffset >= pool.length) {
    pool = randomBytes(POOL_SIZE);
    poolOffset = 0;
  }
  return pool[poolOffset++] ?? 0;
}

/** 24 random base-36 characters: about 124 bits, plenty against guessing another partner's ids. */
export const randomIds: IdGenerator = {
  next(prefix) {
    let id = '';
    while (id.length < 24) {
      // Rejection sampling keeps every character equally likely (252 = 7 * 36).
      const byte = randomByte();
      if (byte < 252) id += ALPHABET[byte % 36];
    }
    return `${prefix}_${id}`;
  },
};
