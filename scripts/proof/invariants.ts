import type { Kysely } from 'kysely';
import { TRANSFER_STATUSES, type DB, type TransferStatus } from '../../server/database/schema.js';

// The money and state invariants every proof ends with:
// - balance = start − Σ SUCCEEDED − Σ PROCESSING, never negative (no cents spent twice, no
//   refund given twice);
// - every transfer in exactly one state, its timestamps those of that state, the outcome the
//   sandbox network's rule (an account ending in 0002 fails); a REJECTED transfer was rejected by
//   an operator of its own organization, with a reason (only the dashboard rejects), and only a
//   decided transfer names an operator;
// - every idempotency key maps to at most one transfer, and every transfer has its key with the
//   stored response that created it (the change and its response commit together).

export interface OrganizationStart {
  readonly id: string;
  readonly startCents: number;
}

export interface InvariantReport {
  readonly violations: string[];
  readonly byStatus: Record<TransferStatus, number>;
  readonly transfers: number;
  /** Organizations' balances at the end. */
  readonly balances: Record<string, number>;
}

function storedBodyOf(value: unknown): Record<string, unknown> | undefined {
  let parsed: unknown = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
    ? (parsed as Record<string, unknown>)
    : undefined;
}

export async function checkInvariants(
  db: Kysely<DB>,
  organizations: readonly OrganizationStart[],
): Promise<InvariantReport> {
  const violations: string[] = [];
  const ids = organizations.map((organization) => organization.id);
  const transfers =
    ids.length === 0 ? [] : await db.selectFrom('transfers').selectAll().where('organization_id', 'in', ids).execute();
  const orgRows =
    ids.length === 0
      ? []
      : await db.selectFrom('organizations').select(['id', 'balance_cents']).where('id', 'in', ids).execute();
  const clientIds = [...new Set(transfers.map((transfer) => transfer.client_id))];
  const keys =
    clientIds.length === 0
      ? []
      : await db.selectFrom('idempotency_keys').selectAll().where('client_id', 'in', clientIds).execute();
  const operatorIds = [
    ...new Set(
      transfers.flatMap((transfer) =>
        transfer.reviewed_by_operator_id === null ? [] : [transfer.reviewed_by_operator_id],
      ),
    ),
  ];
  const operators =
    operatorIds.length === 0
      ? []
      : await db.selectFrom('operators').select(['id', 'organization_id']).where('id', 'in', operatorIds).execute();

  const byStatus = Object.fromEntries(TRANSFER_STATUSES.map((status) => [status, 0])) as Record<TransferStatus, number>;
  const balances: Record<string, number> = {};

  for (const organization of organizations) {
    const row = orgRows.find((candidate) => candidate.id === organization.id);
    if (row === undefined) {
      violations.push(`organization ${organization.id} is missing`);
      continue;
    }
    balances[organization.id] = row.balance_cents;
    const own = transfers.filter((transfer) => transfer.organization_id === organization.id);
    const sum = (status: TransferStatus): number =>
      own
        .filter((transfer) => transfer.status === status)
        .reduce((total, transfer) => total + transfer.amount_cents, 0);
    const expected = organization.startCents - sum('SUCCEEDED') - sum('PROCESSING');
    if (row.balance_cents !== expected) {
      violations.push(
        `organization ${organization.id}: balance ${row.balance_cents} ≠ start ${organization.startCents} − Σ SUCCEEDED ${sum('SUCCEEDED')} − Σ PROCESSING ${sum('PROCESSING')} = ${expected}`,
      );
    }
    if (row.balance_cents < 0)
      violations.push(`organization ${organization.id}: negative balance ${row.balance_cents}`);
  }

  const seenKeys = new Map<string, string>();
  for (const transfer of transfers) {
    const status = transfer.status;
    if (!(TRANSFER_STATUSES as readonly string[]).includes(status)) {
      violations.push(`transfer ${transfer.id}: unknown status ${String(status)}`);
      continue;
    }
    byStatus[status] += 1;
    const has = {
      reviewed: transfer.reviewed_at !== null,
      cancelled: transfer.cancelled_at !== null,
      settled: transfer.settled_at !== null,
    };
    const want: Record<TransferStatus, { reviewed: boolean; cancelled: boolean; settled: boolean }> = {
      PENDING: { reviewed: false, cancelled: false, settled: false },
      CANCELLED: { reviewed: false, cancelled: true, settled: false },
      REJECTED: { reviewed: true, cancelled: false, settled: false },
      PROCESSING: { reviewed: true, cancelled: false, settled: false },
      SUCCEEDED: { reviewed: true, cancelled: false, settled: true },
      FAILED: { reviewed: true, cancelled: false, settled: true },
    };
    const expected = want[status];
    if (
      has.reviewed !== expected.reviewed ||
      has.cancelled !== expected.cancelled ||
      has.settled !== expected.settled
    ) {
      violations.push(
        `transfer ${transfer.id}: ${status} with reviewedAt ${String(transfer.reviewed_at)}, cancelledAt ${String(transfer.cancelled_at)}, settledAt ${String(transfer.settled_at)}`,
      );
    }
    const reviewer = transfer.reviewed_by_operator_id;
    if (
      status === 'REJECTED' &&
      (reviewer === null || transfer.rejection_reason === null || transfer.rejection_reason === '')
    ) {
      violations.push(
        `transfer ${transfer.id}: REJECTED without an operator and a reason (only an operator rejects, with a reason)`,
      );
    }
    if (status !== 'REJECTED' && transfer.rejection_reason !== null)
      violations.push(`transfer ${transfer.id}: ${status} with a rejection reason`);
    if (reviewer !== null) {
      const owner = operators.find((operator) => operator.id === reviewer)?.organization_id;
      if (owner !== transfer.organization_id)
        violations.push(
          `transfer ${transfer.id}: decided by operator ${reviewer} of organization ${String(owner)}, not its own`,
        );
      if (status === 'PENDING' || status === 'CANCELLED')
        violations.push(`transfer ${transfer.id}: ${status} yet decided by operator ${reviewer}`);
    }
    if (status === 'PROCESSING' && transfer.settle_after === null)
      violations.push(`transfer ${transfer.id}: PROCESSING without settle_after`);
    if (
      (status === 'SUCCEEDED' || status === 'FAILED') &&
      (status === 'FAILED') !== transfer.account_number.endsWith('0002')
    ) {
      violations.push(
        `transfer ${transfer.id}: ${status} for account ${transfer.account_number} (0002 fails, every other succeeds)`,
      );
    }

    const scope = `${transfer.client_id}\u0000${transfer.idempotency_key}`;
    const other = seenKeys.get(scope);
    if (other !== undefined)
      violations.push(
        `idempotency key ${JSON.stringify(transfer.idempotency_key)} maps to two transfers: ${other} and ${transfer.id}`,
      );
    seenKeys.set(scope, transfer.id);

    const key = keys.find(
      (candidate) => candidate.client_id === transfer.client_id && candidate.key === transfer.idempotency_key,
    );
    const stored = storedBodyOf(key?.response_body);
    if (key === undefined || key.response_status !== 200 || stored?.['id'] !== transfer.id) {
      violations.push(
        `transfer ${transfer.id}: its idempotency key ${JSON.stringify(transfer.idempotency_key)} holds no stored 200 response naming it`,
      );
    }
  }

  for (const key of keys) {
    const stored = storedBodyOf(key.response_body);
    if ((key.response_status === null) !== (key.response_body === null)) {
      violations.push(`idempotency key ${JSON.stringify(key.key)}: status and body not stored together`);
    }
    const id = stored?.['id'];
    if (key.response_status === 200 && typeof id === 'string' && id.startsWith('trf_')) {
      const transfer = transfers.find((candidate) => candidate.id === id);
      if (transfer === undefined)
        violations.push(
          `idempotency key ${JSON.stringify(key.key)}: stored response names transfer ${id}, which does not exist`,
        );
      else if (stored?.['idempotencyKey'] === key.key && transfer.idempotency_key !== key.key) {
        violations.push(
          `idempotency key ${JSON.stringify(key.key)}: created ${id}, which carries key ${JSON.stringify(transfer.idempotency_key)}`,
        );
      }
    }
  }

  return { violations, byStatus, transfers: transfers.length, balances };
}

/** How many transfers are still PROCESSING (waiting for the payment network). */
export async function processingCount(db: Kysely<DB>, organizationIds: readonly string[]): Promise<number> {
  if (organizationIds.length === 0) return 0;
  const row = await db
    .selectFrom('transfers')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('organization_id', 'in', organizationIds)
    .where('status', '=', 'PROCESSING')
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Polls until no transfer of these organizations is PROCESSING; throws after `timeoutMs`. */
export async function waitForSettlement(
  db: Kysely<DB>,
  organizationIds: readonly string[],
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = await processingCount(db, organizationIds);
    if (left === 0) return;
    if (Date.now() > deadline)
      throw new Error(`${left} transfers still PROCESSING after ${timeoutMs} ms: is a settlement worker running?`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
