import type { Handlers, OperationId } from '../../../generated/server.js';
import type { OperationContext } from '../invoke.js';
import { createToken } from './authentication.js';
import { listBanks } from './banks.js';
import { getCard, listCards, setCardLimits, updateCardLimits } from './cards.js';
import { getTransaction, listTransactions } from './transactions.js';
import { cancelTransfer, createTransfer, executeTransfer, getTransfer, listTransfers } from './transfers.js';

/** One handler per operationId of the document, one file per tag; the compiler checks the set is complete. */
export const handlers: Handlers<OperationContext> = {
  createToken,
  listBanks,
  listCards,
  getCard,
  setCardLimits,
  updateCardLimits,
  listTransfers,
  createTransfer,
  getTransfer,
  cancelTransfer,
  executeTransfer,
  listTransactions,
  getTransaction,
};

/**
 * The writes whose handler reads nothing from the database and makes its one change through
 * ctx.changeWithAnswer: a new key, the answer and the change are stored in one statement
 * (createInvoke). A handler listed here that touches ctx.db fails loudly.
 */
export const oneStatementWrites: ReadonlySet<OperationId> = new Set<OperationId>(['createTransfer']);
