import { describe, expect, it } from 'vitest';
import { combineMeasurements } from './combine.js';
import type { Measurement } from './load.js';

const part = (fields: {
  requests: number;
  durationS: number;
  latencies: number[];
  cpu: number;
  other: number;
  db?: number | null;
  operations?: Measurement['operations'];
}): Measurement => {
  const latencies = Float64Array.from(fields.latencies).sort();
  return {
    requests: fields.requests,
    durationS: fields.durationS,
    rps: fields.requests / fields.durationS,
    p50Ms: 0,
    p99Ms: 0,
    statusCodes: { '200': fields.requests - 1, '400': 1 },
    non2xx: 1,
    socketErrors: 0,
    cpuUsPerRequest: fields.cpu,
    dbCpuUsPerRequest: fields.db ?? null,
    clientCpuUsPerRequest: 10,
    otherCpuPct: fields.other,
    peakRssMb: fields.requests,
    operations: fields.operations ?? [],
    latencies,
  };
};

describe('combineMeasurements', () => {
  it('adds requests and seconds, takes percentiles over all latencies, and weighs CPU by requests', () => {
    const combined = combineMeasurements([
      part({ requests: 300, durationS: 3, latencies: Array.from({ length: 99 }, () => 1), cpu: 100, other: 0 }),
      part({ requests: 100, durationS: 3, latencies: [50], cpu: 300, other: 30 }),
    ]);
    expect(combined).toMatchObject({
      requests: 400,
      durationS: 6,
      p50Ms: 1,
      // 100 latencies, one of them 50: the 99th is still 1, the 100th would be 50.
      p99Ms: 1,
      statusCodes: { '200': 398, '400': 2 },
      non2xx: 2,
      cpuUsPerRequest: 150,
      dbCpuUsPerRequest: null,
      otherCpuPct: 15,
      peakRssMb: 300,
    });
    expect(combined.rps).toBeCloseTo(400 / 6);
    expect(combined.latencies).toHaveLength(100);
  });

  it('combines each operation across the parts', () => {
    const operation = (name: string, requests: number, latency: number): Measurement['operations'][number] => ({
      name,
      requests,
      rps: 0,
      p50Ms: latency,
      p99Ms: latency,
      non2xx: 0,
      latencies: Float64Array.from({ length: requests }, () => latency),
    });
    const combined = combineMeasurements([
      part({
        requests: 20,
        durationS: 2,
        latencies: [],
        cpu: 1,
        other: 0,
        db: 5,
        operations: [operation('getCard', 10, 2), operation('createTransfer', 10, 8)],
      }),
      part({
        requests: 20,
        durationS: 2,
        latencies: [],
        cpu: 1,
        other: 0,
        db: 7,
        operations: [operation('createTransfer', 20, 4)],
      }),
    ]);
    expect(combined.dbCpuUsPerRequest).toBe(6);
    expect(
      combined.operations.map(({ name, requests, rps, p50Ms, p99Ms }) => ({ name, requests, rps, p50Ms, p99Ms })),
    ).toEqual([
      { name: 'getCard', requests: 10, rps: 2.5, p50Ms: 2, p99Ms: 2 },
      { name: 'createTransfer', requests: 30, rps: 7.5, p50Ms: 4, p99Ms: 8 },
    ]);
  });
});
