import type { Kysely, Transaction } from 'kysely';
import type { components } from '../../../generated/openapi-types.js';
import { availableBalance, cairoPeriods } from '../../domain/available-balance.js';
import { setLimits, updateLimits, type Limits } from '../../domain/card-limits.js';
import type { CursorCodec } from '../../domain/cursor.js';
import {
  findCardWithUsage,
  listCards as listStoredCards,
  lockCard,
  saveCardLimits,
  type CardWithUsage,
} from '../../store/cards.js';
import type { DB } from '../../database/index.js';
import { idempotentWrite, operation, organizationOf } from '../handler-kinds.js';
import { pageOf, pageRequest } from '../pagination.js';

type Card = components['schemas']['Card'];
type ErrorBody = components['schemas']['Error'];

/** A card as the API shows it: the stored card, with its availableBalance from the domain rule (server/domain/available-balance.ts). */
export function toCard({ card, figures }: CardWithUsage): Card {
  return {
    ...card,
    availableBalance: availableBalance({ activated: card.last4 !== null, limits: card.limits, ...figures }),
  };
}

/** Another organization's card gets the same response as an unknown id: a foreign id is never confirmed. */
const notFound = (id: string): { status: 404; body: ErrorBody } => ({
  status: 404,
  body: { message: `No card with id ${id} was found.`, type: 'NotFound' },
});

const invalidLimits = (message: string): { status: 400; body: ErrorBody } => ({
  status: 400,
  body: { message, type: 'InvalidRequest', details: 'No limit was changed.' },
});

type CardsQuery = { readonly cursor?: string | undefined; readonly limit?: number | undefined };
type SetLimitsBody = Parameters<typeof setLimits>[0];
type UpdateLimitsBody = Parameters<typeof updateLimits>[1];
type LimitsResponse = { status: 200; body: Card } | { status: 400 | 404; body: ErrorBody };

/** A page of the organization's cards: the partner API's listCards, and the dashboard's. */
export async function cardPage(
  services: { readonly cursors: CursorCodec },
  db: Kysely<DB>,
  organizationId: string,
  nowMs: number,
  query: CardsQuery,
): Promise<CardPageResponse> {
  // The list's name is part of the binding, so a cursor of another list is rejected here.
  const page = pageRequest(services.cursors, query, { list: 'cards' });
  const rows = await listStoredCards(db, {
    organizationId,
    periods: cairoPeriods(nowMs),
    after: page.after,
    take: page.limit + 1,
  });
  const { items, nextCursor } = pageOf(services.cursors, page, rows, ({ card, createdAt }) => ({
    sort: createdAt,
    id: card.id,
  }));
  return {
    status: 200,
    body: { cards: items.map(toCard), ...(nextCursor !== undefined ? { nextCursor } : {}) },
  };
}

type CardPageResponse = { status: 200; body: { cards: Card[]; nextCursor?: string } };

export const listCards = operation<'listCards'>(async function listCards(input, ctx) {
  return cardPage(ctx.services, ctx.db, organizationOf(ctx), ctx.now, input.query);
});

export const getCard = operation<'getCard'>(async function getCard(input, ctx) {
  const found = await ctx.services.readCard(organizationOf(ctx), input.path.id, cairoPeriods(ctx.now));
  return found === undefined ? notFound(input.path.id) : { status: 200 as const, body: toCard(found) };
});

/**
 * Both limit operations run in a transaction (for the partner API, the write transaction that also
 * stores the idempotent response): the card row is locked first, so concurrent changes of one card
 * apply one after the other and none is lost; every check runs before the only write.
 */
async function changeLimits(
  tx: Transaction<DB>,
  organizationId: string,
  cardId: string,
  nowMs: number,
  change: (current: Limits) => { ok: true; limits: Limits } | { ok: false; message: string },
): Promise<LimitsResponse> {
  const card = await lockCard(tx, organizationId, cardId);
  if (card === undefined) return notFound(cardId);
  const result = change(card.limits);
  if (!result.ok) return invalidLimits(result.message);
  await saveCardLimits(tx, organizationId, card.id, result.limits);
  // Read back in the same transaction: the saved limits, and the balance they leave.
  const saved = await findCardWithUsage(tx, organizationId, card.id, cairoPeriods(nowMs));
  if (saved === undefined) throw new Error(`card ${card.id} vanished inside its own transaction`);
  return { status: 200, body: toCard(saved) };
}

/** PUT: the whole limit state (the setCardLimits description in the document), in the caller's transaction. */
export async function setCardLimitsIn(
  tx: Transaction<DB>,
  organizationId: string,
  cardId: string,
  nowMs: number,
  body: SetLimitsBody,
): Promise<LimitsResponse> {
  const result = setLimits(body);
  // The body alone decides: reject it before touching the card.
  if (!result.ok) return invalidLimits(result.message);
  return changeLimits(tx, organizationId, cardId, nowMs, () => result);
}

/** PATCH: amounts added to the current limits (the updateCardLimits description), computed on the locked row. */
export async function updateCardLimitsIn(
  tx: Transaction<DB>,
  organizationId: string,
  cardId: string,
  nowMs: number,
  body: UpdateLimitsBody,
): Promise<LimitsResponse> {
  return changeLimits(tx, organizationId, cardId, nowMs, (current) => updateLimits(current, body));
}

export const setCardLimits = idempotentWrite<'setCardLimits'>(async function setCardLimits(input, ctx) {
  return setCardLimitsIn(ctx.tx, organizationOf(ctx), input.path.id, ctx.now, input.body);
});

export const updateCardLimits = idempotentWrite<'updateCardLimits'>(async function updateCardLimits(input, ctx) {
  return updateCardLimitsIn(ctx.tx, organizationOf(ctx), input.path.id, ctx.now, input.body);
});
