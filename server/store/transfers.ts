import { sql, type Kysely, type SqlBool } from 'kysely';
import {
  type AtCommit,
  conditionHolds,
  type DB,
  inTransaction,
  inTransactionWithStatementAtCommit,
  insertRows,
  type SettlementOutcome,
  type TransferRow,
  type TransferStatus,
} from '../database/index.js';
import type { CursorPosition } from '../domain/cursor.js';
import { canCancel, canExecute, canReject } from '../domain/transfer-state.js';

// Transfers and the organization balance they move (README, "Design"). The balance is the
// available balance: execute reserves the amount (PENDING → PROCESSING), settlement keeps the
// debit on SUCCEEDED and gives it back on FAILED. Invariant, under any concurrency:
//   balance = start − sum(SUCCEEDED) − sum(PROCESSING) ≥ 0.
// Lock order, to stay free of deadlocks: a transfer row first, then its organization row.

export interface TransferRecord {
  id: string;
  organizationId: string;
  clientId: string;
  idempotencyKey: string;
  amountCents: number;
  currency: string;
  status: TransferStatus;
  category: string;
  submissionDate: number;
  reviewedAt: number | null;
  cancelledAt: number | null;
  settleAfter: number | null;
  settledAt: number | null;
  bankId: string;
  accountNumber: string;
  accountName: string;
  memo: string | null;
  note: string | null;
  /** The dashboard operator who approved or rejected it; null when undecided or executed through the API. */
  reviewedByOperatorId: string | null;
  /** Why it was rejected; set for REJECTED only. */
  rejectionReason: string | null;
}

/** A new transfer: PENDING unless told otherwise (other states are for seeding test data). */
export interface NewTransfer {
  id: string;
  organizationId: string;
  clientId: string;
  idempotencyKey: string;
  amountCents: number;
  currency: string;
  category: string;
  submissionDate: number;
  bankId: string;
  accountNumber: string;
  accountName: string;
  memo?: string | null | undefined;
  note?: string | null | undefined;
  status?: TransferStatus | undefined;
  reviewedAt?: number | null | undefined;
  cancelledAt?: number | null | undefined;
  settleAfter?: number | null | undefined;
  settledAt?: number | null | undefined;
  reviewedByOperatorId?: string | null | undefined;
  /** Required with status REJECTED, and only then. */
  rejectionReason?: string | null | undefined;
}

export interface ListTransfersOptions {
  status?: TransferStatus | undefined;
  /** Inclusive. */
  minAmountCents?: number | undefined;
  /** Inclusive. */
  maxAmountCents?: number | undefined;
  /** Continue after this position (from the cursor): the last transfer of the previous page. */
  after?: CursorPosition | undefined;
  limit: number;
}

/** Expected failures are values, not exceptions; `transfer` is its state as found. */
export type CancelTransferResult =
  | { kind: 'done'; transfer: TransferRecord }
  | { kind: 'not-found' }
  | { kind: 'not-pending'; transfer: TransferRecord };

export type ExecuteTransferResult =
  | { kind: 'done'; transfer: TransferRecord }
  | { kind: 'not-found' }
  | { kind: 'not-pending'; transfer: TransferRecord }
  /** The transfer stays PENDING; `availableCents` is the balance that fell short. */
  | { kind: 'insufficient-funds'; transfer: TransferRecord; availableCents: number };

/** The stored row of a new transfer, every column given. */
function newTransferRow(transfer: NewTransfer): TransferRow {
  return {
    id: transfer.id,
    organization_id: transfer.organizationId,
    client_id: transfer.clientId,
    idempotency_key: transfer.idempotencyKey,
    amount_cents: transfer.amountCents,
    currency: transfer.currency,
    status: transfer.status ?? 'PENDING',
    category: transfer.category,
    submission_date: transfer.submissionDate,
    reviewed_at: transfer.reviewedAt ?? null,
    cancelled_at: transfer.cancelledAt ?? null,
    settle_after: transfer.settleAfter ?? null,
    settled_at: transfer.settledAt ?? null,
    bank_id: transfer.bankId,
    account_number: transfer.accountNumber,
    account_name: transfer.accountName,
    memo: transfer.memo ?? null,
    note: transfer.note ?? null,
    reviewed_by_operator_id: transfer.reviewedByOperatorId ?? null,
    rejection_reason: transfer.rejectionReason ?? null,
  };
}

/**
 * Inserts a new transfer and returns it as stored. Given `atCommit`, the insert is the
 * transaction's last statement, sent with its commit (at-commit.ts): nothing the response holds
 * comes from the database, so a create is one round trip on PostgreSQL. It has no condition: when
 * it fails (a foreign key, a duplicate id) nothing of the transaction commits and the error is the
 * request's.
 */
export async function insertTransfer(
  db: Kysely<DB>,
  transfer: NewTransfer,
  atCommit?: AtCommit,
): Promise<TransferRecord> {
  const row = newTransferRow(transfer);
  const insert = insertRows('transfers', [row]);
  if (atCommit === undefined) await db.executeQuery(insert);
  else atCommit({ compile: () => insert });
  return toTransfer(row);
}

/** The organization's transfer; undefined when unknown or another organization's (404 either way). */
export async function getTransfer(
  db: Kysely<DB>,
  organizationId: string,
  id: string,
): Promise<TransferRecord | undefined> {
  const row = await db
    .selectFrom('transfers')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row === undefined ? undefined : toTransfer(row);
}

/**
 * One page, newest first by submission date, ties by id (both descending), by keyset:
 * transfers added between pages never shift a page, so none is skipped or repeated.
 * Returns up to `limit + 1` transfers: the extra one, when present, only says
 * that another page exists (no empty trailing page); the caller drops it.
 */
export async function listTransfers(
  db: Kysely<DB>,
  organizationId: string,
  options: ListTransfersOptions,
): Promise<TransferRecord[]> {
  const { status, minAmountCents, maxAmountCents, after, limit } = options;
  let query = db.selectFrom('transfers').selectAll().where('organization_id', '=', organizationId);
  if (status !== undefined) query = query.where('status', '=', status);
  if (minAmountCents !== undefined) query = query.where('amount_cents', '>=', minAmountCents);
  if (maxAmountCents !== undefined) query = query.where('amount_cents', '<=', maxAmountCents);
  if (after !== undefined) {
    query = query.where(({ eb, refTuple, tuple }) =>
      eb(refTuple('submission_date', 'id'), '<', tuple(after.sort, after.id)),
    );
  }
  const rows = await query
    .orderBy('submission_date', 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute();
  return rows.map(toTransfer);
}

/**
 * PENDING → CANCELLED, setting cancelledAt. Locks the transfer row, so a
 * concurrent execute or cancel waits and then sees the new state. Runs in the caller's
 * transaction when given one (to store the idempotent response with it), else in its own.
 */
export async function cancelTransfer(
  db: Kysely<DB>,
  organizationId: string,
  id: string,
  nowMs: number,
): Promise<CancelTransferResult> {
  return inTransaction(db, async (tx) => {
    const current = await lockTransfer(tx, organizationId, id);
    if (current === undefined) return { kind: 'not-found' };
    if (!canCancel(current.status)) return { kind: 'not-pending', transfer: toTransfer(current) };
    const row = await tx
      .updateTable('transfers')
      .set({ status: 'CANCELLED', cancelled_at: nowMs })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return { kind: 'done', transfer: toTransfer(row) };
  });
}

/**
 * PENDING → REJECTED, by a dashboard operator with a reason, setting reviewedAt; nothing is
 * reserved. Locks the transfer row like cancel and execute, so that of a reject racing an
 * execute or a cancel exactly one wins and the others find the transfer no longer PENDING.
 */
export async function rejectTransfer(
  db: Kysely<DB>,
  organizationId: string,
  id: string,
  decision: { nowMs: number; operatorId: string; reason: string },
): Promise<CancelTransferResult> {
  return inTransaction(db, async (tx) => {
    const current = await lockTransfer(tx, organizationId, id);
    if (current === undefined) return { kind: 'not-found' };
    if (!canReject(current.status)) return { kind: 'not-pending', transfer: toTransfer(current) };
    const row = await tx
      .updateTable('transfers')
      .set({
        status: 'REJECTED',
        reviewed_at: decision.nowMs,
        reviewed_by_operator_id: decision.operatorId,
        rejection_reason: decision.reason,
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return { kind: 'done', transfer: toTransfer(row) };
  });
}

/**
 * PENDING → PROCESSING: approves the transfer, reserves its amount from the
 * organization's balance, sets reviewedAt (nowMs) and the time the payment network settles it
 * (`settleAfter`, Unix ms: now + PAYMENT_NETWORK_DELAY_MS). Insufficient funds change nothing:
 * the transfer stays PENDING.
 *
 * Must run in a transaction (the caller's, so that the stored idempotent response commits with
 * it; otherwise one of its own): the transfer row is locked FOR UPDATE, then the balance is
 * taken with one conditional update (`balance_cents >= amount`), in the statement that moves
 * the transfer to PROCESSING, so that no two executes ever spend the same cents, on any number
 * of instances (README, "Design").
 *
 * That statement is the transaction's last, sent with its commit (at-commit.ts): in a transaction
 * of its own always, in the caller's when it gives `atCommit`. The result is then the transfer as
 * the statement makes it; when the balance falls short the statement fails with ConditionNotMet
 * and nothing commits, and this runs again with the statement in place to respond with insufficient
 * funds (in its own transaction by itself; in the caller's, the caller runs it again).
 */
export async function executeTransfer(
  db: Kysely<DB>,
  organizationId: string,
  id: string,
  nowMs: number,
  settleAfter: number,
  /** The dashboard operator who approves it; absent for the partner API's execute. */
  operatorId?: string,
  atCommit?: AtCommit,
): Promise<ExecuteTransferResult> {
  if (!db.isTransaction) {
    return inTransactionWithStatementAtCommit(db, (tx, deferTo) =>
      executeTransfer(tx, organizationId, id, nowMs, settleAfter, operatorId, deferTo),
    );
  }
  const current = await lockTransfer(db, organizationId, id);
  if (current === undefined) return { kind: 'not-found' };
  if (!canExecute(current.status)) return { kind: 'not-pending', transfer: toTransfer(current) };
  // The reservation and the transfer's new state are one statement: the organization's row,
  // which every execute of the organization needs, is locked by it and held until the commit. A
  // data-modifying CTE always runs to completion; the transfer changes only when the reservation
  // took the cents. Written as SQL, as the insert above and the lock below, for the same reason: it
  // runs with every execute, and building it node by node cost more CPU than running it.
  const reserved = sql`reserved as (
    update organizations set balance_cents = balance_cents - ${current.amount_cents}
    where id = ${organizationId} and balance_cents >= ${current.amount_cents}
    returning id)`;
  const changes = {
    status: 'PROCESSING',
    reviewed_at: nowMs,
    settle_after: settleAfter,
    reviewed_by_operator_id: operatorId ?? null,
  } as const;
  const moved = sql`update transfers
    set status = ${changes.status}, reviewed_at = ${changes.reviewed_at}, settle_after = ${changes.settle_after},
        reviewed_by_operator_id = ${changes.reviewed_by_operator_id}
    where id = ${id} and exists (select from reserved)`;
  if (atCommit !== undefined) {
    const statement = sql`with ${reserved}, moved as (${moved} returning id)
      select ${conditionHolds(sql<SqlBool>`exists (select from moved)`, 'insufficient funds')} as held`;
    atCommit({ compile: () => statement.compile(db) });
    return { kind: 'done', transfer: toTransfer({ ...current, ...changes }) };
  }
  const { rows } = await sql<TransferRow>`with ${reserved} ${moved} returning *`.execute(db);
  const row = rows[0];
  if (row === undefined) {
    const organization = await db
      .selectFrom('organizations')
      .select('balance_cents')
      .where('id', '=', organizationId)
      .executeTakeFirstOrThrow();
    return { kind: 'insufficient-funds', transfer: toTransfer(current), availableCents: organization.balance_cents };
  }
  return { kind: 'done', transfer: toTransfer(row) };
}

/**
 * The settlement worker's step: takes up to `batch` PROCESSING transfers that are due,
 * oldest due first, records the payment network's outcome for each and, on FAILED, gives the
 * amount back to the organization. All in one transaction (its own, or the caller's), so a
 * crash at any moment settles a transfer fully or not at all.
 *
 * Rows are locked FOR UPDATE SKIP LOCKED: workers of several instances take disjoint batches
 * and never settle a transfer twice (a settled row is no longer PROCESSING once they see it).
 * On PGlite there is one backend: transactions run one at a time and nothing is skipped.
 */
export async function claimDueSettlements(
  db: Kysely<DB>,
  nowMs: number,
  batch: number,
  outcome: (transfer: TransferRecord) => SettlementOutcome,
): Promise<TransferRecord[]> {
  return inTransaction(db, async (tx) => {
    const due = await tx
      .selectFrom('transfers')
      .selectAll()
      .where('status', '=', 'PROCESSING')
      .where('settle_after', '<=', nowMs)
      .orderBy('settle_after')
      .orderBy('id')
      .limit(batch)
      .forUpdate()
      .skipLocked()
      .execute();
    if (due.length === 0) return [];

    const outcomes = due.map((row) => ({ row, status: outcome(toTransfer(row)) }));
    const settled: TransferRecord[] = [];
    for (const status of ['SUCCEEDED', 'FAILED'] as const) {
      const ids = outcomes.filter((entry) => entry.status === status).map((entry) => entry.row.id);
      if (ids.length === 0) continue;
      const rows = await tx
        .updateTable('transfers')
        .set({ status, settled_at: nowMs })
        .where('id', 'in', ids)
        .where('status', '=', 'PROCESSING')
        .returningAll()
        .execute();
      settled.push(...rows.map(toTransfer));
    }

    // Refunds per organization, in id order: two workers touching the same organizations
    // then lock them in the same order and cannot deadlock.
    const refunds = new Map<string, number>();
    for (const transfer of settled) {
      if (transfer.status === 'FAILED') {
        refunds.set(transfer.organizationId, (refunds.get(transfer.organizationId) ?? 0) + transfer.amountCents);
      }
    }
    for (const organizationId of [...refunds.keys()].sort()) {
      const amount = refunds.get(organizationId) ?? 0;
      await tx
        .updateTable('organizations')
        .set((eb) => ({ balance_cents: eb('balance_cents', '+', amount) }))
        .where('id', '=', organizationId)
        .execute();
    }

    const order = new Map(due.map((row, index) => [row.id, index]));
    return settled.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
  });
}

/** The organization's transfer, locked until the commit (SQL text: it runs with every execute, cancel and reject). */
async function lockTransfer(db: Kysely<DB>, organizationId: string, id: string): Promise<TransferRow | undefined> {
  const { rows } =
    await sql<TransferRow>`select * from transfers where organization_id = ${organizationId} and id = ${id} for update`.execute(
      db,
    );
  return rows[0];
}

function toTransfer(row: TransferRow): TransferRecord {
  return {
    id: row.id,
    organizationId: row.organization_id,
    clientId: row.client_id,
    idempotencyKey: row.idempotency_key,
    amountCents: row.amount_cents,
    currency: row.currency,
    status: row.status,
    category: row.category,
    submissionDate: row.submission_date,
    reviewedAt: row.reviewed_at,
    cancelledAt: row.cancelled_at,
    settleAfter: row.settle_after,
    settledAt: row.settled_at,
    bankId: row.bank_id,
    accountNumber: row.account_number,
    accountName: row.account_name,
    memo: row.memo,
    note: row.note,
    reviewedByOperatorId: row.reviewed_by_operator_id,
    rejectionReason: row.rejection_reason,
  };
}

// The dashboard's list: every PENDING transfer first, then the others; within each group newest
// submission date first, ties by id (the dashboard document's listTransfers). The two groups are
// one keyset: a PENDING transfer's sort key is its submission date raised by 2^52, above any
// date (Unix milliseconds stay below 2^52 for some 140,000 years) and still a safe integer, so
// one (key, id) position, descending, pages through both groups without skipping or repeating.
const PENDING_FIRST_OFFSET = 2 ** 52;

/** The sort key of a transfer in the dashboard's list (pendingFirstKeySql is the same in SQL). */
export function pendingFirstKey(transfer: Pick<TransferRecord, 'status' | 'submissionDate'>): number {
  return transfer.status === 'PENDING' ? transfer.submissionDate + PENDING_FIRST_OFFSET : transfer.submissionDate;
}

/**
 * The key in SQL, the offset written as a literal: transfers_pending_first_idx (server/database/migrations/001-baseline.ts)
 * indexes this very expression, which a parameter in its place would not match.
 */
const pendingFirstKeySql = sql<number>`(case when t.status = 'PENDING' then t.submission_date + ${sql.lit(PENDING_FIRST_OFFSET)}::bigint else t.submission_date end)`;

/** A transfer with the username of the operator who decided it (null when none did). */
export interface ReviewedTransferRecord extends TransferRecord {
  readonly reviewerUsername: string | null;
}

/** The dashboard list's statement, unexecuted (a test checks its plan): see listTransfersPendingFirst. */
export function transfersPendingFirstQuery(db: Kysely<DB>, organizationId: string, options: ListTransfersOptions) {
  const { status, minAmountCents, maxAmountCents, after, limit } = options;
  let query = db
    .selectFrom('transfers as t')
    .leftJoin('operators as o', 'o.id', 't.reviewed_by_operator_id')
    .selectAll('t')
    .select('o.username as reviewer_username')
    .where('t.organization_id', '=', organizationId);
  if (status !== undefined) query = query.where('t.status', '=', status);
  if (minAmountCents !== undefined) query = query.where('t.amount_cents', '>=', minAmountCents);
  if (maxAmountCents !== undefined) query = query.where('t.amount_cents', '<=', maxAmountCents);
  if (after !== undefined) {
    query = query.where(sql<boolean>`(${pendingFirstKeySql}, t.id) < (${after.sort}::bigint, ${after.id})`);
  }
  return query
    .orderBy(pendingFirstKeySql, 'desc')
    .orderBy('t.id', 'desc')
    .limit(limit + 1);
}

/**
 * One page of the dashboard's list (pending first, see pendingFirstKey), with the filters of the
 * partner API's list and the reviewer's username. Returns up to `limit + 1` transfers, as
 * listTransfers does; a walk of transfers_pending_first_idx from the cursor.
 */
export async function listTransfersPendingFirst(
  db: Kysely<DB>,
  organizationId: string,
  options: ListTransfersOptions,
): Promise<ReviewedTransferRecord[]> {
  const rows = await transfersPendingFirstQuery(db, organizationId, options).execute();
  return rows.map((row) => ({ ...toTransfer(row), reviewerUsername: row.reviewer_username }));
}

/**
 * The organization's money at one moment (one statement): the available balance, and the sums
 * of its PROCESSING and PENDING transfers. Undefined for an unknown organization.
 */
export async function getBalanceSummary(
  db: Kysely<DB>,
  organizationId: string,
): Promise<{ availableCents: number; processingCents: number; pendingCents: number } | undefined> {
  const sumOf = (status: TransferStatus) =>
    sql<number>`(select coalesce(sum(t.amount_cents), 0)::bigint from transfers t where t.organization_id = ${organizationId} and t.status = ${status})`;
  const row = await db
    .selectFrom('organizations')
    .select(['balance_cents', sumOf('PROCESSING').as('processing_cents'), sumOf('PENDING').as('pending_cents')])
    .where('id', '=', organizationId)
    .executeTakeFirst();
  return row === undefined
    ? undefined
    : { availableCents: row.balance_cents, processingCents: row.processing_cents, pendingCents: row.pending_cents };
}
