import { setImmediate } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import { settlementOutcome } from './domain/transfer-state.js';
import type { Logger } from './logger.js';
import type { Clock } from './clock-and-ids.js';
import type { DB } from './database/index.js';
import { claimDueSettlements } from './store/transfers.js';
import { purgeExpiredIdempotencyKeys } from './store/idempotency.js';
import { purgeAuthFailures } from './store/organizations.js';
import { purgeSessions } from './store/operators.js';
import { AUTH_FAILURE_WINDOW_MS } from './domain/credentials.js';

/**
 * How often each instance looks for PROCESSING transfers whose network delay has passed, and how
 * many it settles per pass. Rows are claimed with FOR UPDATE SKIP LOCKED, so instances sharing a
 * database never settle the same transfer (README, "Design"); a quarter second keeps the sandbox
 * network's delay accurate to within 250 ms without busying the database.
 */
export const SETTLEMENT_INTERVAL_MS = 250;
export const SETTLEMENT_BATCH = 50;

/**
 * Once a minute the worker also deletes what can never matter again: idempotency keys past their
 * 24 hours (they are forgotten either way; this keeps the table at one day of writes) and failed
 * authentication windows that are over (unknown client ids are counted too, so anyone could grow
 * that table), and dashboard sessions that ended or expired (a live session is never deleted).
 * Every instance does it; deleting the same rows twice is harmless.
 */
export const MAINTENANCE_INTERVAL_MS = 60_000;

/** Settles what is due now; returns how many transfers it settled. */
export async function settleDueTransfers(db: Kysely<DB>, nowMs: number, batch = SETTLEMENT_BATCH): Promise<number> {
  const settled = await claimDueSettlements(db, nowMs, batch, (transfer) => settlementOutcome(transfer.accountNumber));
  return settled.length;
}

export interface SettlementWorker {
  /** Stops polling and waits for the pass in progress, so no settlement is cut in half. */
  stop(): Promise<void>;
}

export function startSettlementWorker(deps: {
  readonly db: Kysely<DB>;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly intervalMs?: number;
}): SettlementWorker {
  const interval = deps.intervalMs ?? SETTLEMENT_INTERVAL_MS;
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;

  let lastMaintenance = Number.NEGATIVE_INFINITY;
  const maintain = async (): Promise<void> => {
    const now = deps.clock.now();
    if (now - lastMaintenance < MAINTENANCE_INTERVAL_MS && now >= lastMaintenance) return;
    lastMaintenance = now;
    try {
      const keys = await purgeExpiredIdempotencyKeys(deps.db, now);
      const windows = await purgeAuthFailures(deps.db, now, AUTH_FAILURE_WINDOW_MS);
      const sessions = await purgeSessions(deps.db, now);
      if (keys + windows + sessions > 0)
        deps.logger.info({ idempotencyKeys: keys, authFailureWindows: windows, sessions }, 'expired records deleted');
    } catch (error) {
      deps.logger.error({ err: error }, 'maintenance failed; retrying in a minute');
    }
  };

  const pass = async (): Promise<void> => {
    await maintain();
    try {
      // Drain: a full batch means more may be due right now. A turn of the event loop before
      // each batch lets the requests that came meanwhile in: on the embedded database nothing
      // in a batch waits for the network, and back-to-back batches held the whole process (an
      // execute's p99 under load fell from ~50 to ~30 ms with the turn).
      let settled = SETTLEMENT_BATCH;
      while (!stopped && settled === SETTLEMENT_BATCH) {
        await setImmediate();
        settled = await settleDueTransfers(deps.db, deps.clock.now());
        if (settled > 0) deps.logger.info({ settled }, 'transfers settled');
      }
    } catch (error) {
      deps.logger.error({ err: error }, 'settlement pass failed; retrying on the next tick');
    }
  };
  const schedule = (): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = pass().then(schedule);
    }, interval);
    timer.unref();
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      await running;
    },
  };
}
