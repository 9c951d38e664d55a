import { IdempotencyKeyTaken, type KeyTakenOutcome } from '../../server/store/idempotency.js';

/** What a storeAnswer call did, as a value: 'stored', or the outcome it threw IdempotencyKeyTaken with. */
export function outcomeOf(storing: Promise<void>): Promise<'stored' | KeyTakenOutcome> {
  return storing.then(
    () => 'stored' as const,
    (error: unknown) => {
      if (error instanceof IdempotencyKeyTaken) return error.outcome;
      throw error;
    },
  );
}
