/**
 * One measurement from several parts of a run: the mechanism comparison (--without) measures each
 * side in slices that alternate with the other side's, so that a slow moment of the machine falls
 * on both, and reports each side as the sum of its slices.
 */
import { percentile } from './latencies.js';
import type { Measurement, OperationMeasurement } from './load.js';

/** Sorted values of several sorted lists. */
function merged(lists: readonly Float64Array[]): Float64Array {
  const out = new Float64Array(lists.reduce((sum, list) => sum + list.length, 0));
  let at = 0;
  for (const list of lists) {
    out.set(list, at);
    at += list.length;
  }
  return out.sort();
}

/** A mean of the parts' values weighted by their requests (or their seconds). */
function weighted(
  parts: readonly Measurement[],
  value: (m: Measurement) => number,
  weight: (m: Measurement) => number,
): number {
  const total = parts.reduce((sum, m) => sum + weight(m), 0);
  return total === 0 ? 0 : parts.reduce((sum, m) => sum + value(m) * weight(m), 0) / total;
}

function combinedOperation(
  name: string,
  parts: readonly OperationMeasurement[],
  durationS: number,
): OperationMeasurement {
  const requests = parts.reduce((sum, part) => sum + part.requests, 0);
  const latencies = merged(parts.map((part) => part.latencies));
  return {
    name,
    requests,
    rps: durationS > 0 ? requests / durationS : 0,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    non2xx: parts.reduce((sum, part) => sum + part.non2xx, 0),
    latencies,
  };
}

/** The parts as one run: their requests over their seconds, percentiles of all their latencies, CPU per request over all requests. */
export function combineMeasurements(parts: readonly Measurement[]): Measurement {
  if (parts.length === 0) throw new RangeError('combineMeasurements: no parts');
  const requests = parts.reduce((sum, m) => sum + m.requests, 0);
  const durationS = parts.reduce((sum, m) => sum + m.durationS, 0);
  const latencies = merged(parts.map((m) => m.latencies));
  const statusCodes: Record<string, number> = {};
  for (const m of parts)
    for (const [code, count] of Object.entries(m.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + count;
  const operationNames = [...new Set(parts.flatMap((m) => m.operations.map((operation) => operation.name)))];
  const byRequests = (m: Measurement): number => m.requests;
  return {
    requests,
    durationS,
    rps: durationS > 0 ? requests / durationS : 0,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    statusCodes,
    non2xx: parts.reduce((sum, m) => sum + m.non2xx, 0),
    socketErrors: parts.reduce((sum, m) => sum + m.socketErrors, 0),
    cpuUsPerRequest: weighted(parts, (m) => m.cpuUsPerRequest, byRequests),
    dbCpuUsPerRequest: parts.some((m) => m.dbCpuUsPerRequest === null)
      ? null
      : weighted(parts, (m) => m.dbCpuUsPerRequest ?? 0, byRequests),
    clientCpuUsPerRequest: weighted(parts, (m) => m.clientCpuUsPerRequest, byRequests),
    otherCpuPct: weighted(
      parts,
      (m) => m.otherCpuPct,
      (m) => m.durationS,
    ),
    peakRssMb: Math.max(...parts.map((m) => m.peakRssMb)),
    operations: operationNames.map((name) =>
      combinedOperation(
        name,
        parts.flatMap((m) => m.operations.filter((operation) => operation.name === name)),
        durationS,
      ),
    ),
    latencies,
  };
}
