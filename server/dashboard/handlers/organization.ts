import type { OperationHandler } from '../../../generated/dashboard/server.js';
import { isScope } from '../../domain/tokens.js';
import { listClientSummaries } from '../../store/organizations.js';
import { getBalanceSummary } from '../../store/transfers.js';
import { sessionOf, type DashboardContext } from '../context.js';

export const getBalance: OperationHandler<'getBalance', DashboardContext> = async (_input, ctx) => {
  const organizationId = sessionOf(ctx).operator.organizationId;
  const summary = await getBalanceSummary(ctx.db, organizationId);
  if (summary === undefined) throw new Error(`a live session of organization ${organizationId}, which does not exist`);
  return { status: 200, body: { currency: 'EGP', ...summary } };
};

/** Ids, scopes, creation and key counts: never a secret hash or a key (the listClients description). */
export const listClients: OperationHandler<'listClients', DashboardContext> = async (_input, ctx) => {
  const clients = await listClientSummaries(ctx.db, sessionOf(ctx).operator.organizationId);
  return {
    status: 200,
    body: { clients: clients.map((client) => ({ ...client, scopes: client.scopes.filter(isScope) })) },
  };
};
