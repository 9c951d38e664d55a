/**
 * Latencies of one run, kept at full precision: autocannon's own histogram keeps whole
 * milliseconds, too coarse for sub-millisecond baselines, and holds one histogram for a run where
 * the mixed run needs one per operation.
 */

/** Nearest-rank percentile of values sorted ascending; 0 when there are none. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? 0;
}

/** A growable list of latencies (ms): typed storage keeps 200k samples a run cheap to collect. */
export class Samples {
  private values = new Float64Array(1 << 12);
  private length = 0;

  get count(): number {
    return this.length;
  }

  push(value: number): void {
    if (this.length === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.length++] = value;
  }

  /** A sorted copy (a Float64Array sorts numerically). */
  sorted(): Float64Array {
    return this.values.slice(0, this.length).sort();
  }
}

/** The counts and latencies of one operation of a run (all of a run's requests, or one kind of the mixed run's). */
export class OperationTally {
  readonly latencies = new Samples();
  requests = 0;
  non2xx = 0;

  /** Counts a response; like autocannon, only 2xx responses give latency samples. */
  record(statusCode: number, responseTimeMs: number): void {
    this.requests += 1;
    if (statusCode >= 200 && statusCode < 300) this.latencies.push(responseTimeMs);
    else this.non2xx += 1;
  }

  /** Counts, rate and percentiles; `latencies` are the 2xx latencies sorted, for combining runs (combine.ts). */
  summary(durationS: number): {
    requests: number;
    rps: number;
    p50Ms: number;
    p99Ms: number;
    non2xx: number;
    latencies: Float64Array;
  } {
    const sorted = this.latencies.sorted();
    return {
      requests: this.requests,
      rps: durationS > 0 ? this.requests / durationS : 0,
      p50Ms: percentile(sorted, 50),
      p99Ms: percentile(sorted, 99),
      non2xx: this.non2xx,
      latencies: sorted,
    };
  }
}
