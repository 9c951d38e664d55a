import type { components } from '../../../generated/openapi-types.js';
import type { OperationHandler } from '../../../generated/server.js';
import { availableBalance, cairoPeriods } from '../../domain/available-balance.js';
import { setLimits, updateLimits, type Limits } from '../../domain/card-limits.js';
import {
  NO_USAGE,
  cardUsages,
  findCard,
  listCards as listStoredCards,
  lockCard,
  saveCardLimits,
  type CardHolderRecord,
  type CardRecord,
} from '../../store/cards.js';
import { organizationOf, type OperationContext } from '../invoke.js';
import { pageOf, pageRequest } from '../pagination.js';

type Card = components['schemas']['Card'];
type CardHolder = components['schemas']['CardHolder'];
type ErrorBody = components['schemas']['Error'];

/** The API's view of a holder: external ids that are not set are left out (spec §2.2). */
export function toCardHolder(holder: CardHolderRecord): CardHolder {
  return {
    id: holder.id,
    fullName: holder.fullName,
    ...(holder.userExternalIdOne !== null ? { userExternalIdOne: holder.userExternalIdOne } : {}),
    ...(holder.userExternalIdTwo !== null ? { userExternalIdTwo: holder.userExternalIdTwo } : {}),
    ...(holder.userExternalIdThree !== null ? { userExternalIdThree: holder.userExternalIdThree } : {}),
    department: holder.department === null ? null : { id: holder.department.id, name: holder.department.name },
  };
}

/**
 * Cards as the API shows them, each with its availableBalance at `now` (decisions §7): the usage
 * of the whole page comes from one aggregate query, the balance from the domain rule.
 */
async function toCards(ctx: OperationContext, organizationId: string, cards: readonly CardRecord[]): Promise<Card[]> {
  const activated = cards.filter((card) => card.last4 !== null);
  const usages = await cardUsages(ctx.db, {
    organizationId,
    cardIds: activated.map((card) => card.id),
    periods: cairoPeriods(ctx.now),
  });
  return cards.map((card) => {
    const figures = usages.get(card.id) ?? NO_USAGE;
    return {
      id: card.id,
      last4: card.last4,
      nickname: card.nickname,
      cardHolder: toCardHolder(card.holder),
      limits: { ...card.limits },
      availableBalance: availableBalance({ activated: card.last4 !== null, limits: card.limits, ...figures }),
    };
  });
}

async function toCard(ctx: OperationContext, organizationId: string, card: CardRecord): Promise<Card> {
  const [view] = await toCards(ctx, organizationId, [card]);
  if (view === undefined) throw new Error('toCards returned no card');
  return view;
}

/** Another organization's card gets the same answer as an unknown id (decisions §4). */
const notFound = (id: string): { status: 404; body: ErrorBody } => ({
  status: 404,
  body: { message: `No card with id ${id} was found.`, type: 'NotFound' },
});

const invalidLimits = (message: string): { status: 400; body: ErrorBody } => ({
  status: 400,
  body: { message, type: 'InvalidRequest', details: 'No limit was changed.' },
});

export const listCards: OperationHandler<'listCards', OperationContext> = async (input, ctx) => {
  const organizationId = organizationOf(ctx);
  // The list's name is part of the binding, so a cursor of another list is refused here.
  const page = pageRequest(ctx.services.cursors, input.query, { list: 'cards' });
  const rows = await listStoredCards(ctx.db, { organizationId, after: page.after, take: page.limit + 1 });
  const { items, nextCursor } = pageOf(ctx.services.cursors, page, rows, (card) => ({ sort: card.createdAt, id: card.id }));
  return {
    status: 200,
    body: { cards: await toCards(ctx, organizationId, items), ...(nextCursor !== undefined ? { nextCursor } : {}) },
  };
};

export const getCard: OperationHandler<'getCard', OperationContext> = async (input, ctx) => {
  const organizationId = organizationOf(ctx);
  const card = await findCard(ctx.db, organizationId, input.path.id);
  return card === undefined ? notFound(input.path.id) : { status: 200, body: await toCard(ctx, organizationId, card) };
};

/**
 * Both limit operations run in the write transaction that also stores the idempotent answer: the
 * card row is locked first, so concurrent changes of one card apply one after the other and none
 * is lost (decisions §7); every check runs before the only write.
 */
async function changeLimits(
  ctx: OperationContext,
  cardId: string,
  change: (current: Limits) => { ok: true; limits: Limits } | { ok: false; message: string },
): Promise<{ status: 200; body: Card } | { status: 400 | 404; body: ErrorBody }> {
  const organizationId = organizationOf(ctx);
  const card = await lockCard(ctx.db, organizationId, cardId);
  if (card === undefined) return notFound(cardId);
  const result = change(card.limits);
  if (!result.ok) return invalidLimits(result.message);
  await saveCardLimits(ctx.db, organizationId, card.id, result.limits);
  return { status: 200, body: await toCard(ctx, organizationId, { ...card, limits: result.limits }) };
}

/** PUT: the whole limit state (decisions §7). */
export const setCardLimits: OperationHandler<'setCardLimits', OperationContext> = async (input, ctx) => {
  const result = setLimits(input.body);
  // The body alone decides: refuse it before touching the card.
  if (!result.ok) return invalidLimits(result.message);
  return changeLimits(ctx, input.path.id, () => result);
};

/** PATCH: amounts added to the current limits (decisions §7), computed on the locked row. */
export const updateCardLimits: OperationHandler<'updateCardLimits', OperationContext> = async (input, ctx) =>
  changeLimits(ctx, input.path.id, (current) => updateLimits(current, input.body));
