import type { ServiceHandlers } from '../handler-kinds.js';
import { createToken } from './authentication.js';
import { listBanks } from './banks.js';
import { getCard, listCards, setCardLimits, updateCardLimits } from './cards.js';
import { getTransaction, listTransactions } from './transactions.js';
import { cancelTransfer, createTransfer, executeTransfer, getTransfer, listTransfers } from './transfers.js';

/**
 * One handler per operationId of the document, one file per tag; the compiler checks that the set
 * is complete and that each handler is of the kind its operation needs.
 */
export const handlers: ServiceHandlers = {
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
