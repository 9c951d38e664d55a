import type { OperationHandler } from '../../../generated/dashboard/server.js';
import { cardPage, setCardLimitsIn, updateCardLimitsIn } from '../../http/handlers/cards.js';
import { sessionOf, type DashboardContext } from '../context.js';

// The partner API's card list and limit rules (server/http/handlers/cards.ts, server/domain/card-limits.ts),
// for the operator's organization. A limit change locks the card in a transaction of its own.

export const listCards: OperationHandler<'listCards', DashboardContext> = async (input, ctx) =>
  cardPage(ctx.services, ctx.db, sessionOf(ctx).operator.organizationId, ctx.now, input.query);

export const setCardLimits: OperationHandler<'setCardLimits', DashboardContext> = async (input, ctx) => {
  const organizationId = sessionOf(ctx).operator.organizationId;
  return ctx.db.transaction().execute((tx) => setCardLimitsIn(tx, organizationId, input.path.id, ctx.now, input.body));
};

export const updateCardLimits: OperationHandler<'updateCardLimits', DashboardContext> = async (input, ctx) => {
  const organizationId = sessionOf(ctx).operator.organizationId;
  return ctx.db
    .transaction()
    .execute((tx) => updateCardLimitsIn(tx, organizationId, input.path.id, ctx.now, input.body));
};
