import fc, { type Arbitrary } from 'fast-check';

/**
 * The values of an arbitrary in the order fast-check's runner draws them from a seed: the value
 * at index i is the one `fc.check(property, { seed, path: String(i) })` starts from, so a case
 * seen here is replayed and shrunk by fast-check itself.
 */
export class DrawStream<T> {
  private start = 0;
  private batch: T[] = [];

  constructor(
    readonly arbitrary: Arbitrary<T>,
    readonly seed: number,
  ) {}

  at(index: number): T {
    if (index < this.start || index >= this.start + this.batch.length) {
      // Batches double from 64 to 1,024 values: few are held at once, and skipping ahead in the
      // random stream to a batch's start costs little (under a millisecond per thousand values).
      const size = Math.min(1024, Math.max(64, this.batch.length * 2));
      this.start = index;
      this.batch = fc.sample(this.arbitrary, { seed: this.seed, path: String(index), numRuns: size });
    }
    return this.batch[index - this.start] as T;
  }
}

/** A 32-bit hash (FNV-1a) of the run's seed, an operation and a stream: that stream's seed. */
export function streamSeed(seed: number, operation: string, stream: string): number {
  let hash = 0x811c9dc5;
  for (const char of `${seed}|${operation}|${stream}`) {
    hash ^= char.codePointAt(0) ?? 0;
    hash = Math.imul(hash, 0x01000193);
  }
  return hash | 0;
}

/**
 * The values of a stream that are the same in every run, whatever its seed (the edges of an
 * operation's schemas): the value at index i is the i-th of the list. A failing case of such a stream
 * is reported as it is, not shrunk: it is already the value at an edge.
 */
export class FixedValues<T> {
  constructor(readonly values: readonly T[]) {}

  at(index: number): T {
    return this.values[index] as T;
  }
}
