/**
 * A card's `availableBalance` (as the Card schema describes it): what the card can still spend,
 * in cents, clamped to 0..99 999 999 999, null when the card is not activated.
 *
 * Periods are the calendar day and the calendar month in Africa/Cairo time, half-open
 * [start, end) in Unix milliseconds. Egypt moves its clocks (summer time from the last Friday
 * of April at 00:00 to the last Thursday of October at 24:00 in recent years), so a Cairo day
 * is 23, 24 or 25 hours long; the periods are computed from the time-zone database through
 * `Intl.DateTimeFormat`, never from a fixed offset.
 *
 * Which transactions count for each usage figure is `USAGE_RULES` below (declarative, for the
 * store's SQL in server/store/cards.ts and the outstanding cash the database keeps,
 * `outstanding_cash_of` in server/database/migrations/001-baseline.ts) and `countsFor` (the same
 * rules as a predicate, for checking both).
 */
import type { Limits } from './card-limits.js';

/** availableBalance is 0 to 99 999 999 999 cents (the Card schema). */
export const MAX_AVAILABLE_BALANCE = 99_999_999_999;

export const CAIRO_TIME_ZONE = 'Africa/Cairo';

export const TRANSACTION_METHODS = ['CARD', 'ATM', 'CASH', 'PARTNER_FEES'] as const;
export type TransactionMethod = (typeof TRANSACTION_METHODS)[number];
export const TRANSACTION_STATUSES = ['SUCCEEDED', 'DECLINED', 'REVERSED'] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];
export const REVIEW_STATUSES = ['NOT_REVIEWED', 'UNDER_REVIEW', 'BALANCE_SETTLED', 'APPROVED', 'REJECTED'] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

export type CairoPeriods = {
  dayStartMs: number;
  dayEndMs: number;
  monthStartMs: number;
  monthEndMs: number;
};

// ---------------------------------------------------------------------------------------------
// Cairo calendar periods

const HOUR_MS = 3_600_000;

/** Built once: constructing a DateTimeFormat is far costlier than using one. */
const CAIRO_CLOCK = new Intl.DateTimeFormat('en-US', {
  timeZone: CAIRO_TIME_ZONE,
  year: 'numeric',
  month: 'numeric',
  day: 'numeric',
  hour: 'numeric',
  minute: 'numeric',
  second: 'numeric',
  hourCycle: 'h23',
});

type WallClock = { year: number; month: number; day: number; hour: number; minute: number; second: number };

function wallClock(ms: number): WallClock {
  const clock: WallClock = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 };
  for (const part of CAIRO_CLOCK.formatToParts(ms)) {
    if (part.type in clock) clock[part.type as keyof WallClock] = Number(part.value);
  }
  // Some ICU versions write midnight as hour 24 of the same day.
  if (clock.hour === 24) clock.hour = 0;
  return clock;
}

function dateKey(ms: number): number {
  const c = wallClock(ms);
  return c.year * 10_000 + c.month * 100 + c.day;
}

/** Cairo's offset from UTC at an instant, in ms (positive east of Greenwich). */
function offsetAt(ms: number): number {
  const c = wallClock(ms);
  const wholeSecond = Math.floor(ms / 1000) * 1000;
  return Date.UTC(c.year, c.month - 1, c.day, c.hour, c.minute, c.second) - wholeSecond;
}

/**
 * The first instant whose Cairo date is the given date. Usually local midnight; on a day whose
 * midnight is skipped by a clock change (spring forward at 00:00), the instant of the change.
 * Month and day may overflow (day 32, month 13): they are normalised as Date.UTC does.
 */
function startOfCairoDay(year: number, month: number, day: number): number {
  const wall = Date.UTC(year, month - 1, day);
  const normal = new Date(wall);
  const target = normal.getUTCFullYear() * 10_000 + (normal.getUTCMonth() + 1) * 100 + normal.getUTCDate();
  const isStart = (t: number): boolean => dateKey(t) >= target && dateKey(t - 1) < target;
  // Fast path: midnight minus the offset in force just after, at, or just before it.
  for (const probe of [wall, wall - 24 * HOUR_MS, wall + 24 * HOUR_MS]) {
    const candidate = wall - offsetAt(probe);
    if (isStart(candidate)) return candidate;
  }
  // Anything else (a change at an unusual minute): search the first instant of the date.
  // No zone is more than 14 h ahead of or 12 h behind UTC, so lo is on an earlier date and
  // hi on this date or later.
  let lo = wall - 15 * HOUR_MS;
  let hi = wall + 15 * HOUR_MS;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (dateKey(mid) >= target) hi = mid;
    else lo = mid;
  }
  return hi;
}

/**
 * The last response of `cairoPeriods`: every instant of its day has the same periods, and a card
 * read asks for the current day's again and again (the time-zone arithmetic costs some 80 µs).
 */
let lastPeriods: CairoPeriods | undefined;

/** The Cairo calendar day and month that contain `nowMs`, as half-open [start, end) ranges. */
export function cairoPeriods(nowMs: number): CairoPeriods {
  if (!Number.isFinite(nowMs)) throw new RangeError('cairoPeriods: nowMs must be a finite number');
  if (lastPeriods !== undefined && nowMs >= lastPeriods.dayStartMs && nowMs < lastPeriods.dayEndMs)
    return { ...lastPeriods };
  const { year, month, day } = wallClock(nowMs);
  const periods = {
    dayStartMs: startOfCairoDay(year, month, day),
    dayEndMs: startOfCairoDay(year, month, day + 1),
    monthStartMs: startOfCairoDay(year, month, 1),
    monthEndMs: startOfCairoDay(year, month + 1, 1),
  };
  lastPeriods = periods;
  return { ...periods };
}

// ---------------------------------------------------------------------------------------------
// Usage rules

export const USAGE_FIGURES = [
  'dayCardAndAtm',
  'monthCardAndAtm',
  'monthAtm',
  'approvalSpent',
  'approvalPending',
  'approvalOutstandingCash',
] as const;

export type UsageFigure = (typeof USAGE_FIGURES)[number];

/** Review statuses that end a cash item's outstanding life (see USAGE_RULES). */
export const SETTLED_CASH_REVIEW_STATUSES: readonly ReviewStatus[] = Object.freeze([
  'BALANCE_SETTLED',
  'REJECTED',
] as const);

export type UsageRule = {
  /** Whose transactions: the card's (`transactions.card_id`) or its holder's (`transactions.person_id`). */
  readonly scope: 'card' | 'cardHolder';
  readonly methods: readonly TransactionMethod[];
  /** authorizationDate in the current Cairo day or month, half-open [start, end); `any`: no date condition. */
  readonly period: 'day' | 'month' | 'any';
  /** Required value of `cleared`; null: either. */
  readonly cleared: boolean | null;
  /** Review statuses that exclude a transaction (a null reviewStatus is never excluded). */
  readonly excludedReviewStatuses: readonly ReviewStatus[];
};

/**
 * USAGE_RULES: which transactions count for each usage figure (as Card.availableBalance describes).
 * Every figure counts only status SUCCEEDED (DECLINED and REVERSED never spent anything) and
 * `refund` false, and sums `amountCents`. PARTNER_FEES never count.
 *
 * Plain card (`limits.approvalBased` null), transactions of the card itself:
 * - `dayCardAndAtm`:   CARD or ATM, authorizationDate in today's Cairo day.
 * - `monthCardAndAtm`: CARD or ATM, authorizationDate in this Cairo month.
 * - `monthAtm`:        ATM, authorizationDate in this Cairo month (the ATM limit is a monthly
 *                      ATM withdrawal limit).
 * availableBalance = min(daily - dayCardAndAtm, monthly - monthCardAndAtm, atm - monthAtm).
 *
 * Approval-based card (`limits.approvalBased` a number). The approved amount is a monthly
 * budget on the same Cairo calendar month as the monthly limit, and availableBalance =
 * approvalBased - spent - pending - outstandingCash, where
 * - `approvalSpent` ("current spending"): the card's CARD and ATM transactions, cleared,
 *   authorizationDate in this Cairo month.
 * - `approvalPending` ("pending transactions"): the card's CARD and ATM transactions, not yet
 *   cleared, authorizationDate in this Cairo month. Spent and pending together are exactly the
 *   month's card and ATM usage, so when a transaction clears it moves from one figure to the
 *   other and the balance does not jump; an uncleared transaction of an earlier month belongs
 *   to that month, as it will once it clears.
 * - `approvalOutstandingCash` ("outstanding cash"): the holder's CASH transactions of any date
 *   whose review is not finished: reviewStatus null, NOT_REVIEWED, UNDER_REVIEW or APPROVED
 *   (approved but not yet settled against the balance). BALANCE_SETTLED (settled) and REJECTED
 *   (will not be paid) are no longer outstanding. Cash is a ledger entry of the person, not of
 *   a card, hence the holder scope; a holder with several approval-based cards has it counted
 *   against each of them.
 */
export const USAGE_RULES: Readonly<Record<UsageFigure, UsageRule>> = Object.freeze({
  dayCardAndAtm: { scope: 'card', methods: ['CARD', 'ATM'], period: 'day', cleared: null, excludedReviewStatuses: [] },
  monthCardAndAtm: {
    scope: 'card',
    methods: ['CARD', 'ATM'],
    period: 'month',
    cleared: null,
    excludedReviewStatuses: [],
  },
  monthAtm: { scope: 'card', methods: ['ATM'], period: 'month', cleared: null, excludedReviewStatuses: [] },
  approvalSpent: {
    scope: 'card',
    methods: ['CARD', 'ATM'],
    period: 'month',
    cleared: true,
    excludedReviewStatuses: [],
  },
  approvalPending: {
    scope: 'card',
    methods: ['CARD', 'ATM'],
    period: 'month',
    cleared: false,
    excludedReviewStatuses: [],
  },
  approvalOutstandingCash: {
    scope: 'cardHolder',
    methods: ['CASH'],
    period: 'any',
    cleared: null,
    excludedReviewStatuses: SETTLED_CASH_REVIEW_STATUSES,
  },
});

export type UsageTransaction = {
  method: TransactionMethod;
  status: TransactionStatus;
  refund: boolean;
  cleared: boolean;
  reviewStatus: ReviewStatus | null;
  authorizationDate: number;
};

function within(ms: number, startMs: number, endMs: number): boolean {
  return ms >= startMs && ms < endMs;
}

/**
 * Whether a transaction (already in the figure's scope, `USAGE_RULES[figure].scope`) counts for
 * the figure. Written out by hand rather than read from USAGE_RULES, so that a test can hold
 * the two against each other.
 */
export function countsFor(figure: UsageFigure, txn: UsageTransaction, periods: CairoPeriods): boolean {
  if (txn.status !== 'SUCCEEDED' || txn.refund) return false;
  const cardOrAtm = txn.method === 'CARD' || txn.method === 'ATM';
  const inDay = within(txn.authorizationDate, periods.dayStartMs, periods.dayEndMs);
  const inMonth = within(txn.authorizationDate, periods.monthStartMs, periods.monthEndMs);
  switch (figure) {
    case 'dayCardAndAtm':
      return cardOrAtm && inDay;
    case 'monthCardAndAtm':
      return cardOrAtm && inMonth;
    case 'monthAtm':
      return txn.method === 'ATM' && inMonth;
    case 'approvalSpent':
      return cardOrAtm && inMonth && txn.cleared;
    case 'approvalPending':
      return cardOrAtm && inMonth && !txn.cleared;
    case 'approvalOutstandingCash':
      return txn.method === 'CASH' && txn.reviewStatus !== 'BALANCE_SETTLED' && txn.reviewStatus !== 'REJECTED';
  }
}

export type CardUsage = { dayCardAndAtm: number; monthCardAndAtm: number; monthAtm: number };
export type ApprovalUsage = { spent: number; pending: number; outstandingCash: number };

export type UsageAmountTransaction = UsageTransaction & { amountCents: number };

function sum(figure: UsageFigure, txns: readonly UsageAmountTransaction[], periods: CairoPeriods): number {
  let total = 0;
  for (const txn of txns) if (countsFor(figure, txn, periods)) total += txn.amountCents;
  return total;
}

/**
 * The usage figures from transaction lists, by the rules above: a reference for the store's
 * aggregate queries (and for tests). `cardTransactions` are the card's own transactions,
 * `holderTransactions` those of its holder.
 */
export function usageOf(
  cardTransactions: readonly UsageAmountTransaction[],
  holderTransactions: readonly UsageAmountTransaction[],
  periods: CairoPeriods,
): { usage: CardUsage; approval: ApprovalUsage } {
  return {
    usage: {
      dayCardAndAtm: sum('dayCardAndAtm', cardTransactions, periods),
      monthCardAndAtm: sum('monthCardAndAtm', cardTransactions, periods),
      monthAtm: sum('monthAtm', cardTransactions, periods),
    },
    approval: {
      spent: sum('approvalSpent', cardTransactions, periods),
      pending: sum('approvalPending', cardTransactions, periods),
      outstandingCash: sum('approvalOutstandingCash', holderTransactions, periods),
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Available balance

export type AvailableBalanceInput = {
  activated: boolean;
  limits: Limits;
  usage: CardUsage;
  approval: ApprovalUsage;
};

function clamp(amount: number): number {
  return Math.max(0, Math.min(MAX_AVAILABLE_BALANCE, amount));
}

export function availableBalance(input: AvailableBalanceInput): number | null {
  if (!input.activated) return null;
  const { limits, usage, approval } = input;
  if (limits.approvalBased !== null) {
    return clamp(limits.approvalBased - approval.spent - approval.pending - approval.outstandingCash);
  }
  return clamp(
    Math.min(limits.daily - usage.dayCardAndAtm, limits.monthly - usage.monthCardAndAtm, limits.atm - usage.monthAtm),
  );
}
