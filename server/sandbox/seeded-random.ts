/**
 * Deterministic randomness for the sandbox data: the same seed and organization always give the
 * same departments, people, cards and ledger, so tests and demos can rely on them. The project's
 * one seeded generator: the crash schedule (scripts/proof/crash-schedule.ts) draws from it too.
 */
import { createHash } from 'node:crypto';
import type { IdGenerator, IdPrefix } from '../clock-and-ids.js';

/** A random number in [0, 1). */
export type Random = () => number;

/**
 * mulberry32: a tiny 32-bit generator with a full 2^32 period. Not for secrets; plenty for
 * sample data, and identical on every platform because it only uses 32-bit integer arithmetic.
 */
export function mulberry32(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** FNV-1a over UTF-16 code units: turns a text (an organization id and a seed) into a 32-bit seed. */
export function hashSeed(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Helpers over one generator, so that the data code reads as what it picks. */
export interface Picker {
  readonly random: Random;
  /** An integer in [min, max], both included. */
  int(min: number, max: number): number;
  /** True with the given probability. */
  chance(probability: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** Picks by weight; `weightOf` must be positive for at least one item. */
  weighted<T>(items: readonly T[], weightOf: (item: T) => number): T;
}

export function picker(random: Random): Picker {
  const int = (min: number, max: number): number => min + Math.floor(random() * (max - min + 1));
  return {
    random,
    int,
    chance: (probability) => random() < probability,
    pick<T>(items: readonly T[]): T {
      const item = items[int(0, items.length - 1)];
      if (item === undefined) throw new RangeError('pick: no items');
      return item;
    },
    weighted<T>(items: readonly T[], weightOf: (item: T) => number): T {
      const total = items.reduce((sum, item) => sum + weightOf(item), 0);
      let point = random() * total;
      for (const item of items) {
        point -= weightOf(item);
        if (point < 0) return item;
      }
      const last = items[items.length - 1];
      if (last === undefined) throw new RangeError('weighted: no items');
      return last;
    },
  };
}

const ID_ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';
const ID_LENGTH = 24;

/**
 * Ids derived from the organization, the seed and a per-prefix counter: the same inputs give the
 * same ids, and two organizations (or two seeds) never share one, because the organization id
 * is part of what is hashed. Same shape as `randomIds`: prefix, underscore, 24 base-36 characters.
 */
export function derivedIds(organizationId: string, seed: number): IdGenerator & { tag(): string } {
  const counters = new Map<string, number>();
  const make = (prefix: string): string => {
    const n = counters.get(prefix) ?? 0;
    counters.set(prefix, n + 1);
    const digest = createHash('sha256')
      .update(`sandbox\u0000${organizationId}\u0000${seed}\u0000${prefix}\u0000${n}`)
      .digest();
    let id = '';
    // 24 bytes of 256 values mapped onto 36 symbols: a slight bias, irrelevant for sample ids.
    for (let i = 0; i < ID_LENGTH; i += 1) id += ID_ALPHABET[(digest[i] ?? 0) % ID_ALPHABET.length];
    return `${prefix}_${id}`;
  };
  return {
    next: (prefix: IdPrefix) => make(prefix),
    tag: () => make('tag'),
  };
}
