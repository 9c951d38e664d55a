import type { components } from '../../../generated/openapi-types.js';
import { checkAccountNumber } from '../../domain/account-number.js';
import { findBank } from '../../domain/banks.js';
import {
  cancelTransfer as cancelStoredTransfer,
  executeTransfer as executeStoredTransfer,
  getTransfer as getStoredTransfer,
  insertTransfer,
  listTransfers as listStoredTransfers,
  type NewTransfer,
  type TransferRecord as TransferRow,
} from '../../store/transfers.js';
import { idempotentWrite, operation, organizationOf } from '../handler-kinds.js';
import { pageOf, pageRequest } from '../pagination.js';

type Transfer = components['schemas']['Transfer'];
type ErrorBody = components['schemas']['Error'];

/** The API's view of a stored transfer; the payee's bank is looked up in the bank list. */
export function toTransfer(row: TransferRow): Transfer {
  const bank = findBank(row.bankId);
  return {
    id: row.id,
    idempotencyKey: row.idempotencyKey,
    amountCents: row.amountCents,
    currency: row.currency as Transfer['currency'],
    status: row.status as Transfer['status'],
    category: row.category as Transfer['category'],
    submissionDate: row.submissionDate,
    reviewedAt: row.reviewedAt,
    cancelledAt: row.cancelledAt,
    payee: {
      accountNumber: row.accountNumber,
      accountName: row.accountName,
      bank: { id: row.bankId, name: bank?.name ?? row.bankId, shortName: bank?.shortName ?? row.bankId },
    },
    ...(row.memo !== null ? { memo: row.memo } : {}),
    ...(row.note !== null ? { note: row.note } : {}),
  };
}

const notFound = (id: string): { status: 404; body: ErrorBody } => ({
  status: 404,
  body: { message: `No transfer ${id} exists for your organization.`, type: 'NotFound' },
});

const notPending = (action: string, transfer: TransferRow): { status: 400; body: ErrorBody } => ({
  status: 400,
  body: {
    message: `Only a PENDING transfer can be ${action}; this one is ${transfer.status}.`,
    type: 'InvalidRequest',
    details: 'A transfer leaves PENDING once it is cancelled or executed.',
  },
});

export const createTransfer = idempotentWrite<'createTransfer'>(async function createTransfer(input, ctx) {
  const body = input.body;
  const bank = findBank(body.bankId);
  if (bank === undefined) {
    return {
      status: 400,
      body: {
        message: `Unknown bankId ${body.bankId}.`,
        type: 'InvalidBankAccount',
        details: 'Use an id from GET /v1/bank.',
      },
    };
  }
  const account = checkAccountNumber(bank, body.accountNumber);
  if (!account.ok) {
    return {
      status: 400,
      body: {
        message: 'The account number is not valid for this bank.',
        type: 'InvalidBankAccount',
        details: account.reason,
      },
    };
  }
  const principal = ctx.principal;
  const transfer: NewTransfer = {
    id: ctx.services.ids.next('trf'),
    organizationId: principal.organizationId,
    clientId: principal.clientId,
    idempotencyKey: input.headers['Idempotency-Key'],
    amountCents: body.amountCents,
    currency: body.currency,
    status: 'PENDING',
    category: body.category,
    submissionDate: ctx.now,
    bankId: bank.id,
    accountNumber: body.accountNumber,
    accountName: body.accountName,
    memo: body.memo ?? null,
    note: body.note ?? null,
  };
  return { status: 200, body: toTransfer(await insertTransfer(ctx.tx, transfer, ctx.atCommit)) };
});

export const getTransfer = operation<'getTransfer'>(async function getTransfer(input, ctx) {
  const row = await getStoredTransfer(ctx.db, organizationOf(ctx), input.path.id);
  return row === undefined ? notFound(input.path.id) : { status: 200, body: toTransfer(row) };
});

export const listTransfers = operation<'listTransfers'>(async function listTransfers(input, ctx) {
  const { status, minAmountCents, maxAmountCents } = input.query;
  if (minAmountCents !== undefined && maxAmountCents !== undefined && minAmountCents > maxAmountCents) {
    return {
      status: 400,
      body: {
        message: 'minAmountCents is greater than maxAmountCents.',
        type: 'InvalidRequest',
        details: 'Both bounds are inclusive; swap them.',
      },
    };
  }
  const page = pageRequest(ctx.services.cursors, input.query, { status, minAmountCents, maxAmountCents });
  const rows = await listStoredTransfers(ctx.db, organizationOf(ctx), {
    status,
    minAmountCents,
    maxAmountCents,
    after: page.after,
    limit: page.limit,
  });
  const { items, nextCursor } = pageOf(ctx.services.cursors, page, rows, (row) => ({
    sort: row.submissionDate,
    id: row.id,
  }));
  return {
    status: 200,
    body: { transfers: items.map(toTransfer), ...(nextCursor !== undefined ? { nextCursor } : {}) },
  };
});

export const cancelTransfer = idempotentWrite<'cancelTransfer'>(async function cancelTransfer(input, ctx) {
  const outcome = await cancelStoredTransfer(ctx.tx, organizationOf(ctx), input.path.id, ctx.now);
  switch (outcome.kind) {
    case 'not-found':
      return notFound(input.path.id);
    case 'not-pending':
      return notPending('cancelled', outcome.transfer);
    case 'done':
      return { status: 200, body: toTransfer(outcome.transfer) };
  }
});

export const executeTransfer = idempotentWrite<'executeTransfer'>(async function executeTransfer(input, ctx) {
  const outcome = await executeStoredTransfer(
    ctx.tx,
    organizationOf(ctx),
    input.path.id,
    ctx.now,
    ctx.now + ctx.services.paymentNetworkDelayMs,
    undefined,
    // The organization's balance is taken by the last statement, with the commit.
    ctx.atCommit,
  );
  switch (outcome.kind) {
    case 'not-found':
      return notFound(input.path.id);
    case 'not-pending':
      return notPending('executed', outcome.transfer);
    case 'insufficient-funds':
      return {
        status: 400,
        body: {
          message: 'The organization balance does not cover this transfer.',
          type: 'InsufficientFunds',
          details: `Needed ${outcome.transfer.amountCents} cents; available ${outcome.availableCents} cents. The transfer stays PENDING.`,
        },
      };
    case 'done':
      return { status: 200, body: toTransfer(outcome.transfer) };
  }
});
