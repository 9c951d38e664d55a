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

export type IdPrefix = 'org' | 'cli' | 'key' | 'trf' | 'crd' | 'chd' | 'dep' | 'txn' | 'req';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

/** 24 random base-36 characters: about 124 bits, plenty against guessing another partner's ids. */
export const randomIds: IdGenerator = {
  next(prefix) {
    let id = '';
    while (id.length < 24) {
      // Rejection sampling keeps every character equally likely (252 = 7 * 36).
      for (const byte of randomBytes(32)) if (byte < 252 && id.length < 24) id += ALPHABET[byte % 36];
    }
    return `${prefix}_${id}`;
  },
};
