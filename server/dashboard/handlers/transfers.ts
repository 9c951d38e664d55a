import type { components } from '../../../generated/dashboard/openapi-types.js';
import type { OperationHandler } from '../../../generated/dashboard/server.js';
import { toTransfer } from '../../http/handlers/transfers.js';
import { pageOf, pageRequest } from '../../http/pagination.js';
import { listOperators } from '../../store/operators.js';
import {
  executeTransfer,
  getTransfer as getStoredTransfer,
  listTransfersPendingFirst,
  pendingFirstKey,
  rejectTransfer as rejectStoredTransfer,
  type TransferRecord,
} from '../../store/transfers.js';
import { sessionOf, type DashboardContext } from '../context.js';

type DashboardTransfer = components['schemas']['DashboardTransfer'];
type TransferReview = components['schemas']['TransferReview'];
type ErrorBody = components['schemas']['Error'];

const APPROVED_STATUSES: ReadonlySet<string> = new Set(['PROCESSING', 'SUCCEEDED', 'FAILED']);

/**
 * The decision on a transfer (the TransferReview schema): approved once it left PENDING for
 * PROCESSING (by an operator, or by the partner API's execute: no operator), rejected with the
 * operator and the reason; none while PENDING or once CANCELLED.
 */
function reviewOf(transfer: TransferRecord, reviewerUsername: string | null): TransferReview | null {
  if (transfer.reviewedAt === null) return null;
  const operator =
    transfer.reviewedByOperatorId !== null && reviewerUsername !== null
      ? { id: transfer.reviewedByOperatorId, username: reviewerUsername }
      : null;
  if (transfer.status === 'REJECTED') {
    return {
      decision: 'REJECTED',
      decidedAt: transfer.reviewedAt,
      operator,
      ...(transfer.rejectionReason !== null ? { reason: transfer.rejectionReason } : {}),
    };
  }
  return APPROVED_STATUSES.has(transfer.status)
    ? { decision: 'APPROVED', decidedAt: transfer.reviewedAt, operator }
    : null;
}

function toDashboardTransfer(transfer: TransferRecord, reviewerUsername: string | null): DashboardTransfer {
  return { transfer: toTransfer(transfer), review: reviewOf(transfer, reviewerUsername) };
}

/** Cents as the document writes amounts to people: EGP 12,500.00. */
function egp(cents: number): string {
  return `EGP ${Math.floor(cents / 100).toLocaleString('en-US')}.${String(cents % 100).padStart(2, '0')}`;
}

const notFound = (id: string): { status: 404; body: ErrorBody } => ({
  status: 404,
  body: { message: `No transfer ${id} exists for your organization.`, type: 'NotFound' },
});

const notPending = (transfer: TransferRecord): { status: 400; body: ErrorBody } => ({
  status: 400,
  body: {
    message: `Only PENDING transfers can be decided; this one is ${transfer.status}.`,
    type: 'InvalidRequest',
    details: 'It was cancelled, executed or decided since the list was read.',
  },
});

/** Pending first, then the others, each newest first (store: listTransfersPendingFirst), with the partner API's filters. */
export const listTransfers: OperationHandler<'listTransfers', DashboardContext> = async (input, ctx) => {
  const { status, minAmountCents, maxAmountCents } = input.query;
  if (minAmountCents !== undefined && maxAmountCents !== undefined && minAmountCents > maxAmountCents) {
    return {
      status: 400,
      body: {
        message: 'minAmountCents must not be greater than maxAmountCents.',
        type: 'InvalidRequest',
        details: `minAmountCents=${minAmountCents}, maxAmountCents=${maxAmountCents}`,
      },
    };
  }
  // Its own list name in the binding: a cursor of the partner API's list (another order) is rejected.
  const page = pageRequest(ctx.services.cursors, input.query, {
    list: 'dashboard-transfers',
    status,
    minAmountCents,
    maxAmountCents,
  });
  const rows = await listTransfersPendingFirst(ctx.db, sessionOf(ctx).operator.organizationId, {
    status,
    minAmountCents,
    maxAmountCents,
    after: page.after,
    limit: page.limit,
  });
  const { items, nextCursor } = pageOf(ctx.services.cursors, page, rows, (row) => ({
    sort: pendingFirstKey(row),
    id: row.id,
  }));
  return {
    status: 200,
    body: {
      transfers: items.map((row) => toDashboardTransfer(row, row.reviewerUsername)),
      ...(nextCursor !== undefined ? { nextCursor } : {}),
    },
  };
};

/**
 * One transfer of the operator's organization (the store's getTransfer: another organization's id
 * is not found, as an unknown one is), with its review. The reviewer's username comes from the
 * session when the operator reads their own decision, else from the organization's operators.
 */
export const getTransfer: OperationHandler<'getTransfer', DashboardContext> = async (input, ctx) => {
  const { operator } = sessionOf(ctx);
  const transfer = await getStoredTransfer(ctx.db, operator.organizationId, input.path.id);
  if (transfer === undefined) return notFound(input.path.id);
  const reviewerId = transfer.reviewedByOperatorId;
  let reviewerUsername: string | null = null;
  if (reviewerId === operator.id) reviewerUsername = operator.username;
  else if (reviewerId !== null) {
    const reviewer = (await listOperators(ctx.db, operator.organizationId)).find(
      (candidate) => candidate.id === reviewerId,
    );
    reviewerUsername = reviewer?.username ?? null;
  }
  return { status: 200, body: toDashboardTransfer(transfer, reviewerUsername) };
};

/** Approve: the partner API's execute (the store's executeTransfer), recording the operator. */
export const approveTransfer: OperationHandler<'approveTransfer', DashboardContext> = async (input, ctx) => {
  const { operator } = sessionOf(ctx);
  const outcome = await executeTransfer(
    ctx.db,
    operator.organizationId,
    input.path.id,
    ctx.now,
    ctx.now + ctx.services.paymentNetworkDelayMs,
    operator.id,
  );
  switch (outcome.kind) {
    case 'not-found':
      return notFound(input.path.id);
    case 'not-pending':
      return notPending(outcome.transfer);
    case 'insufficient-funds':
      return {
        status: 400,
        body: {
          message: `The balance of ${egp(outcome.availableCents)} does not cover this transfer of ${egp(outcome.transfer.amountCents)}. The transfer stays PENDING.`,
          type: 'InsufficientFunds',
          details: `balanceCents: ${outcome.availableCents}, amountCents: ${outcome.transfer.amountCents}`,
        },
      };
    case 'done':
      return { status: 200, body: toDashboardTransfer(outcome.transfer, operator.username) };
  }
};

/** Reject with a reason: PENDING → REJECTED, nothing reserved (the store's rejectTransfer). */
export const rejectTransfer: OperationHandler<'rejectTransfer', DashboardContext> = async (input, ctx) => {
  const { operator } = sessionOf(ctx);
  const outcome = await rejectStoredTransfer(ctx.db, operator.organizationId, input.path.id, {
    nowMs: ctx.now,
    operatorId: operator.id,
    reason: input.body.reason,
  });
  switch (outcome.kind) {
    case 'not-found':
      return notFound(input.path.id);
    case 'not-pending':
      return notPending(outcome.transfer);
    case 'done':
      return { status: 200, body: toDashboardTransfer(outcome.transfer, operator.username) };
  }
};
