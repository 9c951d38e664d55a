import type { Kysely } from 'kysely';
import type { components } from '../../../generated/openapi-types.js';
import type { OperationInput } from '../../../generated/server.js';
import { categoryLabel } from '../../domain/categories.js';
import type { CursorCodec } from '../../domain/cursor.js';
import type { DB } from '../../store/schema.js';
import {
  findTransaction,
  listTransactions as listStoredTransactions,
  type TransactionFilters,
  type TransactionRecord,
} from '../../store/transactions.js';
import { operation, organizationOf } from '../handler-kinds.js';
import { pageOf, pageRequest } from '../pagination.js';
import { toCardHolder } from './cards.js';

type Transaction = components['schemas']['Transaction'];
type ErrorBody = components['schemas']['Error'];

/** The API's view of a ledger record (the Transaction schema): optional texts are left out when not set. */
export function toTransaction(record: TransactionRecord): Transaction {
  return {
    id: record.id,
    authorizationDate: record.authorizationDate,
    merchant: record.merchant,
    person: toCardHolder(record.person),
    department: record.person.department?.name ?? null,
    method: record.method,
    category: record.category,
    categoryLabel: categoryLabel(record.category),
    reviewStatus: record.reviewStatus,
    status: record.status,
    currency: record.currency,
    amountCents: record.amountCents,
    tags: record.tags.map((tag) => ({ id: tag.id, name: tag.name })),
    ...(record.note !== null ? { note: record.note } : {}),
    ...(record.description !== null ? { description: record.description } : {}),
    refund: record.refund,
    ...(record.authorizationCode !== null ? { authorizationCode: record.authorizationCode } : {}),
    last4: record.last4,
    cleared: record.cleared,
  };
}

/**
 * A list filter as a set: sorted and without repeats, so that `SUCCEEDED,DECLINED` and
 * `DECLINED,SUCCEEDED` are one request (and one cursor binding).
 */
function asSet<T extends string>(values: readonly T[] | undefined): T[] | undefined {
  return values === undefined ? undefined : [...new Set(values)].sort();
}

type TransactionsQuery = OperationInput<'listTransactions'>['query'];

type TransactionPageAnswer = { status: 200; body: { transactions: Transaction[]; nextCursor?: string } } | { status: 400; body: ErrorBody };

/** A page of the organization's ledger with the partner API's filters: its listTransactions, and the dashboard's. */
export async function transactionPage(
  services: { readonly cursors: CursorCodec },
  db: Kysely<DB>,
  organizationId: string,
  query: TransactionsQuery,
): Promise<TransactionPageAnswer> {
  const { fromDate, toDate } = query;
  if (fromDate !== undefined && toDate !== undefined && fromDate > toDate) {
    return {
      status: 400,
      body: {
        message: 'fromDate must not be after toDate.',
        type: 'InvalidRequest',
        details: `fromDate=${fromDate}, toDate=${toDate}; both bounds are inclusive Unix milliseconds.`,
      },
    };
  }
  const filters: TransactionFilters = {
    fromDate,
    toDate,
    statuses: asSet(query.statuses),
    categories: asSet(query.categories),
    reviewStatuses: asSet(query.reviewStatuses),
    merchant: query.merchant,
    departmentIds: asSet(query.departmentIds),
  };
  // The list's name is part of the binding, so a cursor of another list is refused here.
  const page = pageRequest(services.cursors, query, { list: 'transactions', ...filters });
  const rows = await listStoredTransactions(db, {
    organizationId,
    filters,
    after: page.after,
    take: page.limit + 1,
  });
  const { items, nextCursor } = pageOf(services.cursors, page, rows, (row) => ({ sort: row.authorizationDate, id: row.id }));
  return {
    status: 200,
    body: { transactions: items.map(toTransaction), ...(nextCursor !== undefined ? { nextCursor } : {}) },
  };
}

export const listTransactions = operation<'listTransactions'>(async (input, ctx) =>
  transactionPage(ctx.services, ctx.db, organizationOf(ctx), input.query),
);

export const getTransaction = operation<'getTransaction'>(async (input, ctx) => {
  const record = await findTransaction(ctx.db, organizationOf(ctx), input.path.id);
  if (record === undefined) {
    // Unknown, and another organization's, ids are both 404 NotFound: a foreign id is never confirmed.
    const body: ErrorBody = { message: `No transaction with id ${input.path.id} was found.`, type: 'NotFound' };
    return { status: 404, body };
  }
  return { status: 200, body: toTransaction(record) };
});
