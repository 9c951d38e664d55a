/**
 * The transfer state machine (the document's "Transfer lifecycle" section).
 *
 * A transfer is created PENDING (maker-checker: it needs approval before it moves).
 * The partner may cancel it or execute it (execute = approve and submit) while it is PENDING;
 * the operator tooling may reject it while it is PENDING (never through the partner API); the
 * payment network settles a PROCESSING transfer to SUCCEEDED or FAILED. Everything else is
 * rejected: no cancel or execute of a transfer that is not PENDING.
 */

export const TRANSFER_STATUSES = ['PENDING', 'CANCELLED', 'REJECTED', 'PROCESSING', 'FAILED', 'SUCCEEDED'] as const;

export type TransferStatus = (typeof TRANSFER_STATUSES)[number];

/** What can happen to an existing transfer. */
export const TRANSFER_TRIGGERS = ['cancel', 'execute', 'reject', 'networkSuccess', 'networkFailure'] as const;

export type TransferTrigger = (typeof TRANSFER_TRIGGERS)[number];

export type TransferTransition = {
  readonly from: TransferStatus;
  readonly trigger: TransferTrigger;
  readonly to: TransferStatus;
  /** Who may cause it: the partner through the API, the operator tooling, or the payment network. */
  readonly by: 'partner' | 'operator' | 'network';
  /** The timestamp the transition sets (reviewedAt on approval or rejection). */
  readonly sets: 'cancelledAt' | 'reviewedAt' | null;
};

/** A new transfer starts here. */
export const INITIAL_TRANSFER_STATUS: TransferStatus = 'PENDING';

/** Every allowed transition; any (status, trigger) pair not listed is forbidden. */
export const TRANSFER_TRANSITIONS: readonly TransferTransition[] = Object.freeze([
  { from: 'PENDING', trigger: 'cancel', to: 'CANCELLED', by: 'partner', sets: 'cancelledAt' },
  { from: 'PENDING', trigger: 'execute', to: 'PROCESSING', by: 'partner', sets: 'reviewedAt' },
  { from: 'PENDING', trigger: 'reject', to: 'REJECTED', by: 'operator', sets: 'reviewedAt' },
  { from: 'PROCESSING', trigger: 'networkSuccess', to: 'SUCCEEDED', by: 'network', sets: null },
  { from: 'PROCESSING', trigger: 'networkFailure', to: 'FAILED', by: 'network', sets: null },
] as const);

/** The status a trigger leads to, or null when the trigger is not allowed in that status. */
export function nextTransferStatus(from: TransferStatus, trigger: TransferTrigger): TransferStatus | null {
  const transition = TRANSFER_TRANSITIONS.find((t) => t.from === from && t.trigger === trigger);
  return transition === undefined ? null : transition.to;
}

/** Only a PENDING transfer can be cancelled. */
export function canCancel(status: TransferStatus): boolean {
  return nextTransferStatus(status, 'cancel') !== null;
}

/** Only a PENDING transfer can be executed (funds are checked separately). */
export function canExecute(status: TransferStatus): boolean {
  return nextTransferStatus(status, 'execute') !== null;
}

/** Only a PENDING transfer can be rejected, and only by an operator (the dashboard). */
export function canReject(status: TransferStatus): boolean {
  return nextTransferStatus(status, 'reject') !== null;
}

/** A status no trigger leaves. */
export function isTerminalTransferStatus(status: TransferStatus): boolean {
  return !TRANSFER_TRANSITIONS.some((t) => t.from === status);
}

const STATUS_SET: ReadonlySet<string> = new Set(TRANSFER_STATUSES);

export function isTransferStatus(value: string): value is TransferStatus {
  return STATUS_SET.has(value);
}

/**
 * Sandbox payment network (as the executeTransfer operation describes it): an account number
 * ending in this suffix fails, so that partners can exercise the FAILED path on purpose; every
 * other one succeeds.
 */
export const FAILING_ACCOUNT_SUFFIX = '0002';

/** 2000 ms: the default of `PAYMENT_NETWORK_DELAY_MS` (README, "Configuration"). */
export const DEFAULT_PAYMENT_NETWORK_DELAY_MS = 2000;

export function settlementOutcome(accountNumber: string): 'SUCCEEDED' | 'FAILED' {
  return accountNumber.endsWith(FAILING_ACCOUNT_SUFFIX) ? 'FAILED' : 'SUCCEEDED';
}
