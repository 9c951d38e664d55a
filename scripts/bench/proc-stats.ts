/**
 * What the benchmark reads about processes from Linux's /proc: CPU time (utime + stime of
 * /proc/<pid>/stat, in clock ticks), resident memory (VmRSS of /proc/<pid>/status), the machine's
 * busy time (/proc/stat), and the PostgreSQL backends serving one database (their process titles
 * name it). Linux only, like the measurement it serves.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';

/** Clock ticks a second (`getconf CLK_TCK`); 100 on every common Linux build. */
export const CLOCK_TICKS_PER_SECOND: number = (() => {
  try {
    const value = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return Number.isInteger(value) && value > 0 ? value : 100;
  } catch {
    return 100;
  }
})();

export const MICROSECONDS_PER_TICK = 1_000_000 / CLOCK_TICKS_PER_SECOND;

/** utime + stime of one process in clock ticks, or undefined when it is gone. */
export function cpuTicks(pid: number): number | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces: split after the last ')'.
  // Then field 3 (state) is index 0, so utime (field 14) is index 11 and stime (15) index 12.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** Resident set size in kB (VmRSS), or undefined when the process is gone. */
export function rssKb(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match?.[1] === undefined ? undefined : Number(match[1]);
  } catch {
    return undefined;
  }
}

/** Busy and total clock ticks of the whole machine since boot (first line of /proc/stat). */
export function machineTicks(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
  const values = line.trim().split(/\s+/).slice(1).map(Number);
  const total = values.reduce((sum, value) => sum + value, 0);
  // idle (4th) and iowait (5th) are the idle columns.
  const idle = (values[3] ?? 0) + (values[4] ?? 0);
  return { busy: total - idle, total };
}

/**
 * The PostgreSQL backends serving `database`: PostgreSQL retitles each backend
 * "postgres: [cluster: ]user database host(port) state", so the database name is a word of it.
 */
export function postgresBackends(database: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const title = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (title.startsWith('postgres:') && title.split(/\s+/).includes(database)) pids.push(Number(entry));
    } catch {
      // Gone between readdir and read, or not ours to read.
    }
  }
  return pids;
}

/** CPU ticks of a changing set of processes: processes that appear later count from zero. */
export class ProcessGroupCpu {
  private readonly start = new Map<number, number>();

  constructor(private readonly list: () => readonly number[]) {
    for (const pid of list()) this.start.set(pid, cpuTicks(pid) ?? 0);
  }

  /** Ticks spent since construction by the processes alive now (exited ones are lost). */
  elapsedTicks(): number {
    let sum = 0;
    for (const pid of this.list()) sum += Math.max(0, (cpuTicks(pid) ?? 0) - (this.start.get(pid) ?? 0));
    return sum;
  }
}

/** Samples a process's RSS every `intervalMs` until stopped; returns the peak in MB. */
export function sampleRss(pid: number, intervalMs = 100): { stop(): number } {
  let peakKb = rssKb(pid) ?? 0;
  const timer = setInterval(() => {
    peakKb = Math.max(peakKb, rssKb(pid) ?? 0);
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      peakKb = Math.max(peakKb, rssKb(pid) ?? 0);
      return peakKb / 1024;
    },
  };
}

/** The share of all cores busy over the next `sampleMs` (0 to 1). */
export async function machineBusyShare(sampleMs = 1000): Promise<number> {
  const start = machineTicks();
  await new Promise((resolve) => setTimeout(resolve, sampleMs));
  const end = machineTicks();
  const total = end.total - start.total;
  return total > 0 ? (end.busy - start.busy) / total : 0;
}
