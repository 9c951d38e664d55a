import type { OperationHandler } from '../../../generated/dashboard/server.js';
import { transactionPage } from '../../http/handlers/transactions.js';
import { sessionOf, type DashboardContext } from '../context.js';

/** The partner API's ledger list, filters and cursors (server/http/handlers/transactions.ts), for the operator's organization. */
export const listTransactions: OperationHandler<'listTransactions', DashboardContext> = async (input, ctx) =>
  transactionPage(ctx.services, ctx.db, sessionOf(ctx).operator.organizationId, input.query);
