/**
 * The statements of a spread read alone: the store's own function for the read (the card with its
 * balance, batched as the service batches it, or a ledger page) called in a loop by `concurrency`
 * callers at once for `durationS`, with no HTTP in front. Run by the benchmark as its own process
 * once the service has stopped (the embedded database belongs to one process at a time); on the
 * embedded database the statements cross to its thread as the service's do.
 *
 *   node --import tsx scripts/bench/statements.ts FILE     (FILE: a StatementLoopInput as JSON)
 *
 * Prints a StatementLoopResult as JSON on stdout. DATABASE_URL selects the database as for the server.
 */
import { readFile } from 'node:fs/promises';
import { cairoPeriods } from '../../server/domain/available-balance.js';
import type { CursorPosition } from '../../server/domain/cursor.js';
import { createCardReads } from '../../server/store/card-reads.js';
import { openDatabase } from '../../server/database/open.js';
import { listTransactions, positionOfRecord } from '../../server/store/transactions.js';
import { OperationTally } from './latencies.js';
import { Rotation, PaginationPlan, storeFiltersOf, type Pagination } from './traffic.js';

export type StatementRead = 'getCard' | 'listTransactions';

export interface StatementLoopInput {
  readonly read: StatementRead;
  readonly durationS: number;
  /** Callers at once: the benchmark's connections. */
  readonly concurrency: number;
  /** The run's start, for the walks' date bounds. */
  readonly now: number;
  /** getCard: the cards, in the order the HTTP run asks for them. */
  readonly cards: readonly { readonly organizationId: string; readonly cardId: string }[];
  /** listTransactions: the organizations whose ledgers are walked. */
  readonly organizations: readonly string[];
}

export interface StatementLoopResult {
  readonly calls: number;
  readonly durationS: number;
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/** Seconds of calls before the measured ones: each statement text is prepared on its first call. */
const WARM_UP_S = 1;

async function main(file: string): Promise<void> {
  const input = JSON.parse(await readFile(file, 'utf8')) as StatementLoopInput;
  const database = await openDatabase({ url: process.env['DATABASE_URL'] || undefined });
  try {
    const { db } = database;
    const cards = input.read === 'getCard' ? new Rotation(input.cards) : undefined;
    const readCard = createCardReads(db, { batched: true });
    const plan = new PaginationPlan(Math.max(1, input.organizations.length));

    /** One caller's next statement: a card read, or the next page of the caller's walk. */
    const callerOf = (): (() => Promise<unknown>) => {
      if (cards !== undefined) {
        return () => {
          const { organizationId, cardId } = cards.take();
          return readCard(organizationId, cardId, cairoPeriods(Date.now()));
        };
      }
      let walk: Pagination = plan.next();
      let after: CursorPosition | undefined;
      return async () => {
        const rows = await listTransactions(db, {
          organizationId: input.organizations[walk.organization] ?? '',
          filters: storeFiltersOf(walk.filterSet, input.now),
          after,
          // As the handler reads: one more than the page, to know whether another page exists.
          take: walk.limit + 1,
        });
        const last = rows[walk.limit - 1];
        if (rows.length > walk.limit && last !== undefined) after = positionOfRecord(last);
        else {
          walk = plan.next();
          after = undefined;
        }
      };
    };

    const loop = async (seconds: number): Promise<{ tally: OperationTally; durationS: number }> => {
      const tally = new OperationTally();
      const started = performance.now();
      const deadline = started + seconds * 1000;
      await Promise.all(
        Array.from({ length: input.concurrency }, async () => {
          const call = callerOf();
          while (performance.now() < deadline) {
            const at = performance.now();
            await call();
            tally.record(200, performance.now() - at);
          }
        }),
      );
      return { tally, durationS: (performance.now() - started) / 1000 };
    };

    await loop(WARM_UP_S);
    const { tally, durationS } = await loop(input.durationS);
    const { requests, rps, p50Ms, p99Ms } = tally.summary(durationS);
    const result: StatementLoopResult = { calls: requests, durationS, rps, p50Ms, p99Ms };
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await database.close();
  }
}

const file = process.argv[2];
if (file === undefined) {
  process.stderr.write('usage: statements.ts FILE (a StatementLoopInput as JSON)\n');
  process.exitCode = 2;
} else {
  main(file).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  });
}
