/**
 * Response times and counts in bounded memory: counters, the largest time, and a fixed-size uniform
 * sample of the times (reservoir sampling, Vitter's algorithm R) for the percentiles, however many
 * responses there are.
 */

/** 10,000 times: percentiles within a fraction of a percent, 80 kB whatever the run's length. */
const RESERVOIR_SIZE = 10_000;

export interface TimingSummary {
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

export class Timings {
  private readonly sample: number[] = [];
  private seen = 0;
  private max = 0;

  constructor(
    private readonly size: number = RESERVOIR_SIZE,
    /** A number in [0, 1): Math.random unless a test fixes it. */
    private readonly random: () => number = Math.random,
  ) {}

  add(ms: number): void {
    this.seen += 1;
    if (ms > this.max) this.max = ms;
    if (this.sample.length < this.size) {
      this.sample.push(ms);
      return;
    }
    const slot = Math.floor(this.random() * this.seen);
    if (slot < this.size) this.sample[slot] = ms;
  }

  get count(): number {
    return this.seen;
  }

  /** How many times are held (at most the reservoir's size). */
  get held(): number {
    return this.sample.length;
  }

  summary(): TimingSummary {
    if (this.sample.length === 0) return { p50Ms: 0, p99Ms: 0, maxMs: 0 };
    const sorted = [...this.sample].sort((a, b) => a - b);
    const at = (quantile: number): number =>
      sorted[Math.min(sorted.length - 1, Math.ceil(quantile * sorted.length) - 1)] ?? 0;
    const round = (ms: number): number => Math.round(ms * 100) / 100;
    return { p50Ms: round(at(0.5)), p99Ms: round(at(0.99)), maxMs: round(this.max) };
  }
}

/** Responses by status class (`2xx`), and requests that got none (`none`: hangs and failed connections). */
export class StatusCounts {
  private readonly counts = new Map<string, number>();

  add(status: number | null): void {
    const key = status === null ? 'none' : `${Math.floor(status / 100)}xx`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  entries(): [string, number][] {
    return [...this.counts.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
  }
}
