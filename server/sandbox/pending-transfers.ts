/**
 * The demo organization's waiting transfers: on its first start the service gives it a few
 * PENDING transfers, so that an operator who logs in to the dashboard has something to approve
 * and to reject at once (README, "Run the service"). Each shows one outcome of a decision:
 *
 * - `covered`: the balance covers it; approved, the sandbox network settles it SUCCEEDED;
 * - `rejectedByNetwork`: covered too, but its wallet number ends in 0002, which the sandbox
 *   network fails (transfer-state.ts, FAILING_ACCOUNT_SUFFIX): approved, it ends FAILED and the
 *   amount goes back to the balance;
 * - `nearBalance`: close to the limit an approval can take, the available balance: it leaves
 *   a fiftieth of it, so that after it only small transfers still fit;
 * - `notCovered`: more than the balance; approving it responds with InsufficientFunds and it stays
 *   PENDING until it is rejected.
 *
 * They are stored as the createTransfer operation stores a transfer (handlers/transfers.ts): the
 * bank must be in the bank list, the account number must pass its bank's check, the amount must
 * be within the CreateTransferRequest bounds, and the store's insertTransfer writes it PENDING.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { IdGenerator } from '../clock-and-ids.js';
import { checkAccountNumber } from '../domain/account-number.js';
import { findBank } from '../domain/banks.js';
import { type DB, inTransaction } from '../database/index.js';
import { getBalance } from '../store/organizations.js';
import { insertTransfer, type TransferRecord } from '../store/transfers.js';

export type PendingTransferKind = 'covered' | 'rejectedByNetwork' | 'nearBalance' | 'notCovered';

export interface PendingTransferSpec {
  readonly kind: PendingTransferKind;
  readonly bankId: string;
  readonly accountNumber: string;
  readonly accountName: string;
  readonly category: string;
  readonly memo: string;
  /** How long before the seeding it was submitted: the list shows them newest first. */
  readonly submittedAgoMs: number;
}

const MINUTE_MS = 60_000;
/** CreateTransferRequest.amountCents: 1 to 99 999 999 999 cents. */
const MIN_AMOUNT_CENTS = 1;
const MAX_AMOUNT_CENTS = 99_999_999_999;
/** The fixed amounts: small beside any demo balance (npm start gives EGP 50,000,000.00). */
const COVERED_CENTS = 12_500_00;
const REFUSED_CENTS = 3_200_00;
/** nearBalance leaves this share of the balance: 2 %, EGP 1,000,000.00 of the demo's. */
const NEAR_BALANCE_LEFT = 0.02;
/** notCovered asks this much more than the balance. */
const NOT_COVERED_EXCESS_CENTS = 2_500_000_00;

/** The transfers, newest first as the dashboard lists pending ones. */
export const DEMO_PENDING_TRANSFERS: readonly PendingTransferSpec[] = [
  {
    kind: 'covered',
    bankId: 'nbe',
    accountNumber: 'EG650019000500000000263180001',
    accountName: 'Nile Supplies',
    category: 'LOGISTICS',
    memo: 'Invoice 1187',
    submittedAgoMs: 12 * MINUTE_MS,
  },
  {
    kind: 'rejectedByNetwork',
    bankId: 'vodafone-cash',
    accountNumber: '01012340002',
    accountName: 'Karim Hassan',
    category: 'OTHER',
    memo: 'Field expenses, March',
    submittedAgoMs: 47 * MINUTE_MS,
  },
  {
    kind: 'nearBalance',
    bankId: 'cib',
    accountNumber: '100020003000',
    accountName: 'Delta Cement Works',
    category: 'CONSTRUCTION',
    memo: 'New warehouse, phase 2',
    submittedAgoMs: 2 * 60 * MINUTE_MS,
  },
  {
    kind: 'notCovered',
    bankId: 'banque-misr',
    accountNumber: '200345678901',
    accountName: 'Red Sea Logistics Hub',
    category: 'REAL_ESTATE',
    memo: 'Terminal lease, 5 years upfront',
    submittedAgoMs: 5 * 60 * MINUTE_MS,
  },
];

/** The amount of each kind for an organization holding `balanceCents`. */
export function pendingAmountCents(kind: PendingTransferKind, balanceCents: number): number {
  const amount = ((): number => {
    switch (kind) {
      case 'covered':
        return COVERED_CENTS;
      case 'rejectedByNetwork':
        return REFUSED_CENTS;
      case 'nearBalance':
        // Whole pounds, as a person would write it.
        return Math.floor((balanceCents * (1 - NEAR_BALANCE_LEFT)) / 100) * 100;
      case 'notCovered':
        return balanceCents + NOT_COVERED_EXCESS_CENTS;
    }
  })();
  return Math.min(MAX_AMOUNT_CENTS, Math.max(MIN_AMOUNT_CENTS, amount));
}

export interface PendingTransfersOptions {
  readonly organizationId: string;
  /** The API client the transfers are made by, as a partner's maker would. */
  readonly clientId: string;
  /** Unix milliseconds: the transfers were submitted shortly before. */
  readonly now: number;
  readonly ids: IdGenerator;
}

/**
 * Adds DEMO_PENDING_TRANSFERS to an organization, in one transaction, with amounts taken from
 * its balance now. An organization whose balance cannot cover the small ones (below four times
 * what covered and rejectedByNetwork take together) is rejected: the kinds would not hold.
 */
export async function seedPendingTransfers(
  db: Kysely<DB>,
  options: PendingTransfersOptions,
): Promise<TransferRecord[]> {
  const balance = await getBalance(db, options.organizationId);
  if (balance === undefined) throw new Error(`seedPendingTransfers: no organization ${options.organizationId}`);
  if (balance < 4 * (COVERED_CENTS + REFUSED_CENTS)) {
    throw new RangeError(
      `seedPendingTransfers: a balance of ${balance} cents is too small for the demo's pending transfers`,
    );
  }
  return inTransaction(db, async (tx) => {
    const stored: TransferRecord[] = [];
    for (const spec of DEMO_PENDING_TRANSFERS) {
      const bank = findBank(spec.bankId);
      if (bank === undefined) throw new Error(`seedPendingTransfers: ${spec.bankId} is not in the bank list`);
      const account = checkAccountNumber(bank, spec.accountNumber);
      if (!account.ok)
        throw new Error(`seedPendingTransfers: ${spec.accountNumber} (${spec.bankId}): ${account.reason}`);
      stored.push(
        await insertTransfer(tx, {
          id: options.ids.next('trf'),
          organizationId: options.organizationId,
          clientId: options.clientId,
          idempotencyKey: randomUUID(),
          amountCents: pendingAmountCents(spec.kind, balance),
          currency: 'EGP',
          status: 'PENDING',
          category: spec.category,
          submissionDate: options.now - spec.submittedAgoMs,
          bankId: bank.id,
          accountNumber: spec.accountNumber,
          accountName: spec.accountName,
          memo: spec.memo,
        }),
      );
    }
    return stored;
  });
}
