import type { Kysely } from 'kysely';
import type { components } from '../../../generated/openapi-types.js';
import type { OperationInput } from '../../../generated/server.js';
import type { CursorCodec } from '../../domain/cursor.js';
import type { DB } from '../../database/index.js';
import {
  findTransaction,
  listTransactions as listStoredTransactions,
  positionOfRecord,
  type TransactionFilters,
} from '../../store/transactions.js';
import { jsonText } from 'contract-first/runtime';
import { operation, organizationOf } from '../handler-kinds.js';
import { pageOf, pageRequest } from '../pagination.js';

type Transaction = components['schemas']['Transaction'];
type ErrorBody = components['schemas']['Error'];

/**
 * A list filter as a set: sorted and without repeats, so that `SUCCEEDED,DECLINED` and
 * `DECLINED,SUCCEEDED` are one request (and one cursor binding).
 */
function asSet<T extends string>(values: readonly T[] | undefined): T[] | undefined {
  return values === undefined ? undefined : [...new Set(values)].sort();
}

type TransactionsQuery = OperationInput<'listTransactions'>['query'];

type TransactionPage = { transactions: Transaction[]; nextCursor?: string };
type TransactionPageResponse = { status: 200; body: TransactionPage } | { status: 400; body: ErrorBody };

/** A page of the organization's ledger with the partner API's filters: its listTransactions, and the dashboard's. */
export async function transactionPage(
  services: { readonly cursors: CursorCodec },
  db: Kysely<DB>,
  organizationId: string,
  query: TransactionsQuery,
): Promise<TransactionPageResponse> {
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
  // The list's name is part of the binding, so a cursor of another list is rejected here.
  const page = pageRequest(services.cursors, query, { list: 'transactions', ...filters });
  const rows = await listStoredTransactions(db, {
    organizationId,
    filters,
    after: page.after,
    take: page.limit + 1,
  });
  const { items, nextCursor } = pageOf(services.cursors, page, rows, positionOfRecord);
  // The stored records' texts, as they are: the page is never parsed or printed again.
  const records = items.join(',');
  const cursor = nextCursor === undefined ? '' : `,"nextCursor":${JSON.stringify(nextCursor)}`;
  return { status: 200, body: jsonText<TransactionPage>(`{"transactions":[${records}]${cursor}}`) };
}

export const listTransactions = operation<'listTransactions'>(async function listTransactions(input, ctx) {
  return transactionPage(ctx.services, ctx.db, organizationOf(ctx), input.query);
});

export const getTransaction = operation<'getTransaction'>(async function getTransaction(input, ctx) {
  const record = await findTransaction(ctx.db, organizationOf(ctx), input.path.id);
  if (record === undefined) {
    // Unknown, and another organization's, ids are both 404 NotFound: a foreign id is never confirmed.
    const body: ErrorBody = { message: `No transaction with id ${input.path.id} was found.`, type: 'NotFound' };
    return { status: 404, body };
  }
  return { status: 200, body: jsonText<Transaction>(record) };
});
