import { describe, expect, it } from 'vitest';
import {
  DEFAULT_PAYMENT_NETWORK_DELAY_MS,
  INITIAL_TRANSFER_STATUS,
  TRANSFER_STATUSES,
  TRANSFER_TRANSITIONS,
  TRANSFER_TRIGGERS,
  canCancel,
  canExecute,
  isTerminalTransferStatus,
  isTransferStatus,
  nextTransferStatus,
  settlementOutcome,
  type TransferStatus,
  type TransferTrigger,
} from './transfer-state.js';

// The expected machine, written out independently of the table under test (the document's
// "Transfer lifecycle" section).
const ALLOWED: Readonly<Partial<Record<`${TransferStatus}:${TransferTrigger}`, TransferStatus>>> = {
  'PENDING:cancel': 'CANCELLED',
  'PENDING:execute': 'PROCESSING',
  'PENDING:reject': 'REJECTED',
  'PROCESSING:networkSuccess': 'SUCCEEDED',
  'PROCESSING:networkFailure': 'FAILED',
};

const EVERY_PAIR = TRANSFER_STATUSES.flatMap((status) =>
  TRANSFER_TRIGGERS.map((trigger) => [status, trigger, ALLOWED[`${status}:${trigger}`] ?? null] as const),
);

describe('transfer state machine', () => {
  it('starts PENDING', () => {
    expect(INITIAL_TRANSFER_STATUS).toBe('PENDING');
  });

  it('covers all 30 (status, trigger) pairs', () => {
    expect(EVERY_PAIR).toHaveLength(30);
  });

  it.each(EVERY_PAIR)('%s --%s--> %s', (status, trigger, want) => {
    expect(nextTransferStatus(status, trigger)).toBe(want);
  });

  it('has no duplicate (status, trigger) rows', () => {
    const keys = TRANSFER_TRANSITIONS.map((t) => `${t.from}:${t.trigger}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it.each([
    ['PENDING', true, true, false],
    ['CANCELLED', false, false, true],
    ['REJECTED', false, false, true],
    ['PROCESSING', false, false, false],
    ['FAILED', false, false, true],
    ['SUCCEEDED', false, false, true],
  ] as const)('%s: canCancel %s, canExecute %s, terminal %s', (status, cancel, execute, terminal) => {
    expect(canCancel(status)).toBe(cancel);
    expect(canExecute(status)).toBe(execute);
    expect(isTerminalTransferStatus(status)).toBe(terminal);
  });

  it.each([
    ['PENDING:cancel', 'partner', 'cancelledAt'],
    ['PENDING:execute', 'partner', 'reviewedAt'],
    ['PENDING:reject', 'operator', 'reviewedAt'],
    ['PROCESSING:networkSuccess', 'network', null],
    ['PROCESSING:networkFailure', 'network', null],
  ] as const)('%s is done by the %s and sets %s', (key, by, sets) => {
    const row = TRANSFER_TRANSITIONS.find((t) => `${t.from}:${t.trigger}` === key);
    expect(row?.by).toBe(by);
    expect(row?.sets).toBe(sets);
  });

  it.each([
    ['PENDING', true],
    ['SUCCEEDED', true],
    ['pending', false],
    ['APPROVED', false],
    ['', false],
  ] as const)('isTransferStatus(%j) is %s', (value, want) => {
    expect(isTransferStatus(value)).toBe(want);
  });
});

describe('sandbox settlement', () => {
  it.each([
    ['EG380019000500000000263180002', 'FAILED'],
    ['1234560002', 'FAILED'],
    ['01000000002', 'FAILED'],
    ['EG380019000500000000263180003', 'SUCCEEDED'],
    ['1234500020', 'SUCCEEDED'],
    ['0002000', 'SUCCEEDED'],
    ['01012345678', 'SUCCEEDED'],
  ] as const)('%s settles %s', (accountNumber, want) => {
    expect(settlementOutcome(accountNumber)).toBe(want);
  });

  it('waits 2000 ms by default', () => {
    expect(DEFAULT_PAYMENT_NETWORK_DELAY_MS).toBe(2000);
  });
});
