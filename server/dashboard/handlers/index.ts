import type { Handlers } from '../../../generated/dashboard/server.js';
import type { DashboardContext } from '../context.js';
import { listCards, setCardLimits, updateCardLimits } from './cards.js';
import { getBalance, listClients } from './organization.js';
import { createSession, deleteSession, getSession } from './session.js';
import { listTransactions } from './transactions.js';
import { approveTransfer, getTransfer, listTransfers, rejectTransfer } from './transfers.js';

/** One handler per operationId of the dashboard's document; the compiler checks that none is missing or off the contract. */
export const dashboardHandlers: Handlers<DashboardContext> = {
  createSession,
  getSession,
  deleteSession,
  listTransfers,
  getTransfer,
  approveTransfer,
  rejectTransfer,
  listCards,
  setCardLimits,
  updateCardLimits,
  listTransactions,
  getBalance,
  listClients,
};
