import type { Transaction } from 'kysely';
import {
  idempotencyKeyTakenOf,
  IdempotencyKeyTaken,
  storedResponseStatement,
  type KeyTakenOutcome,
  type StoreResponseInput,
} from '../../server/store/idempotency.js';
import type { DB } from '../../server/database/schema.js';

/**
 * Stores a write's response in its transaction `tx` when called, as the unit of work does with the
 * commit (storedResponseStatement): tests use it to take a key as a request would. When the key is
 * taken it throws IdempotencyKeyTaken, and the transaction can only be rolled back.
 */
export async function storeResponse(tx: Transaction<DB>, input: StoreResponseInput): Promise<void> {
  if (!tx.isTransaction) throw new Error('storeResponse belongs in the transaction of the write it responds to');
  try {
    await tx.executeQuery(storedResponseStatement(input));
  } catch (error) {
    throw idempotencyKeyTakenOf(error) ?? error;
  }
}

/** What a storeResponse call did, as a value: 'stored', or the outcome it threw IdempotencyKeyTaken with. */
export function outcomeOf(storing: Promise<void>): Promise<'stored' | KeyTakenOutcome> {
  return storing.then(
    () => 'stored' as const,
    (error: unknown) => {
      if (error instanceof IdempotencyKeyTaken) return error.outcome;
      throw error;
    },
  );
}
