/**
 * Card reads batched: the reads that arrive while the server handles one turn of its event loop
 * go to the database as one statement (findCardsWithUsage) instead of one each, through
 * DataLoader: one round trip, socket write and driver parse for all of them
 * (server/decisions/0008-card-reads-of-one-event-loop-turn-share-a-statement.md).
 *
 * Nothing is kept between batches (DataLoader's cache is off): every read asks the database, and
 * a read that arrives after a write was served sees that write. A batch waits for nothing but
 * the end of the turn (setImmediate), so a lone read goes at once.
 */
import DataLoader from 'dataloader';
import type { Kysely } from 'kysely';
import type { CairoPeriods } from '../domain/available-balance.js';
import { findCardWithUsage, findCardsWithUsage, type CardKey, type CardWithUsage } from './cards.js';
import type { DB } from '../database/index.js';

/** The organization's card with its usage in `periods`; undefined when unknown or another organization's. */
export type ReadCard = (
  organizationId: string,
  cardId: string,
  periods: CairoPeriods,
) => Promise<CardWithUsage | undefined>;

/** The most reads one statement takes; more in one turn go as several statements. */
export const MAX_CARD_READS_A_STATEMENT = 100;

interface CardRead extends CardKey {
  readonly periods: CairoPeriods;
}

/**
 * Reads cards on `db`, batched unless `batched` is false (the benchmark's measure of what
 * batching buys): then each read is its own statement.
 */
export function createCardReads(db: Kysely<DB>, { batched }: { readonly batched: boolean }): ReadCard {
  if (!batched) return (organizationId, cardId, periods) => findCardWithUsage(db, organizationId, cardId, periods);
  const loader = new DataLoader<CardRead, CardWithUsage | undefined>((reads) => readAll(db, reads), {
    cache: false,
    maxBatchSize: MAX_CARD_READS_A_STATEMENT,
    batchScheduleFn: (run) => setImmediate(run),
  });
  return (organizationId, cardId, periods) => loader.load({ organizationId, cardId, periods });
}

/** The reads of one batch: one statement for each calendar day among them (a batch that spans midnight has two). */
async function readAll(db: Kysely<DB>, reads: readonly CardRead[]): Promise<(CardWithUsage | undefined)[]> {
  const days = new Map<number, { periods: CairoPeriods; places: number[] }>();
  reads.forEach((read, place) => {
    const day = days.get(read.periods.dayStartMs);
    if (day === undefined) days.set(read.periods.dayStartMs, { periods: read.periods, places: [place] });
    else day.places.push(place);
  });
  const found: (CardWithUsage | undefined)[] = reads.map(() => undefined);
  await Promise.all(
    [...days.values()].map(async ({ periods, places }) => {
      const cards = await findCardsWithUsage(
        db,
        places.map((place) => reads[place] as CardRead),
        periods,
      );
      places.forEach((place, index) => (found[place] = cards[index]));
    }),
  );
  return found;
}
