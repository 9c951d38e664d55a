import type { Kysely } from 'kysely';
import { makeGuardedChange } from '../../server/store/idempotency.js';
import { inTransaction } from '../../server/store/in-transaction.js';
import type { DB } from '../../server/store/schema.js';
import { insertTransferIfKeyNew, newTransferRecord, type NewTransfer, type TransferRecord } from '../../server/store/transfers.js';

/**
 * Seeds a transfer, in any state, through the insert production makes (insertTransferIfKeyNew),
 * in the caller's transaction when `db` is one.
 */
export async function insertTransfer(db: Kysely<DB>, transfer: NewTransfer): Promise<TransferRecord> {
  await inTransaction(db, (tx) => makeGuardedChange(tx, insertTransferIfKeyNew(transfer)));
  return newTransferRecord(transfer);
}
