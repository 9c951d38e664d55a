import { describe, expect, it } from 'vitest';
import {
  MAX_AVAILABLE_BALANCE,
  USAGE_FIGURES,
  REVIEW_STATUSES,
  TRANSACTION_METHODS,
  TRANSACTION_STATUSES,
  USAGE_RULES,
  availableBalance,
  cairoPeriods,
  countsFor,
  usageOf,
  type AvailableBalanceInput,
  type UsageAmountTransaction,
  type UsageFigure,
  type UsageTransaction,
} from './available-balance.js';
import { LIMIT_MAXIMA } from './card-limits.js';

const HOUR = 3_600_000;
const iso = (text: string): number => Date.parse(text);

// Independent oracle: the Cairo calendar date and UTC offset of an instant, straight from Intl.
const CAIRO_DATE = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'Africa/Cairo',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
});
const CAIRO_OFFSET = new Intl.DateTimeFormat('en-US', { timeZone: 'Africa/Cairo', timeZoneName: 'longOffset' });
const cairoDate = (ms: number): string => CAIRO_DATE.format(ms);
const cairoMonth = (ms: number): string => cairoDate(ms).slice(0, 7);
const cairoOffsetHours = (ms: number): number => {
  const name = CAIRO_OFFSET.formatToParts(ms).find((p) => p.type === 'timeZoneName')?.value ?? '';
  const match = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
  if (match === null) return 0;
  return (match[1] === '-' ? -1 : 1) * (Number(match[2]) + Number(match[3]) / 60);
};

describe('LIMIT_MAXIMA and MAX_AVAILABLE_BALANCE', () => {
  it('match the ranges of CardLimits and Card.availableBalance', () => {
    expect(LIMIT_MAXIMA).toEqual({
      daily: 100_000_000,
      monthly: 300_000_000,
      atm: 300_000_000,
      approvalBased: 99_999_999_999,
    });
    expect(MAX_AVAILABLE_BALANCE).toBe(99_999_999_999);
  });
});

describe('cairoPeriods at day and month boundaries', () => {
  // [name, now, Cairo offset at now (hours, checked against Intl), dayStart, dayEnd, monthStart, monthEnd]
  it.each([
    [
      'winter: last ms of 15 Jan',
      '2024-01-15T21:59:59.999Z',
      2,
      '2024-01-14T22:00:00.000Z',
      '2024-01-15T22:00:00.000Z',
      '2023-12-31T22:00:00.000Z',
      '2024-01-31T22:00:00.000Z',
    ],
    [
      'winter: first ms of 16 Jan',
      '2024-01-15T22:00:00.000Z',
      2,
      '2024-01-15T22:00:00.000Z',
      '2024-01-16T22:00:00.000Z',
      '2023-12-31T22:00:00.000Z',
      '2024-01-31T22:00:00.000Z',
    ],
    [
      'summer: last ms of 15 Jul',
      '2024-07-15T20:59:59.999Z',
      3,
      '2024-07-14T21:00:00.000Z',
      '2024-07-15T21:00:00.000Z',
      '2024-06-30T21:00:00.000Z',
      '2024-07-31T21:00:00.000Z',
    ],
    [
      'summer: first ms of 16 Jul',
      '2024-07-15T21:00:00.000Z',
      3,
      '2024-07-15T21:00:00.000Z',
      '2024-07-16T21:00:00.000Z',
      '2024-06-30T21:00:00.000Z',
      '2024-07-31T21:00:00.000Z',
    ],
    [
      'summer, 2025',
      '2025-08-10T12:00:00.000Z',
      3,
      '2025-08-09T21:00:00.000Z',
      '2025-08-10T21:00:00.000Z',
      '2025-07-31T21:00:00.000Z',
      '2025-08-31T21:00:00.000Z',
    ],
    [
      'month end: last ms of January',
      '2024-01-31T21:59:59.999Z',
      2,
      '2024-01-30T22:00:00.000Z',
      '2024-01-31T22:00:00.000Z',
      '2023-12-31T22:00:00.000Z',
      '2024-01-31T22:00:00.000Z',
    ],
    [
      'month end: first ms of February (leap year)',
      '2024-01-31T22:00:00.000Z',
      2,
      '2024-01-31T22:00:00.000Z',
      '2024-02-01T22:00:00.000Z',
      '2024-01-31T22:00:00.000Z',
      '2024-02-29T22:00:00.000Z',
    ],
    [
      '29 February',
      '2024-02-29T12:00:00.000Z',
      2,
      '2024-02-28T22:00:00.000Z',
      '2024-02-29T22:00:00.000Z',
      '2024-01-31T22:00:00.000Z',
      '2024-02-29T22:00:00.000Z',
    ],
    [
      'year end: last ms of 2024',
      '2024-12-31T21:59:59.999Z',
      2,
      '2024-12-30T22:00:00.000Z',
      '2024-12-31T22:00:00.000Z',
      '2024-11-30T22:00:00.000Z',
      '2024-12-31T22:00:00.000Z',
    ],
    [
      'year end: first ms of 2025',
      '2024-12-31T22:00:00.000Z',
      2,
      '2024-12-31T22:00:00.000Z',
      '2025-01-01T22:00:00.000Z',
      '2024-12-31T22:00:00.000Z',
      '2025-01-31T22:00:00.000Z',
    ],
    // Spring forward 2024: 26 Apr 00:00 (+2) became 01:00 (+3); the day has 23 hours, April 30 days less an hour.
    [
      'spring forward: last ms of 25 Apr',
      '2024-04-25T21:59:59.999Z',
      2,
      '2024-04-24T22:00:00.000Z',
      '2024-04-25T22:00:00.000Z',
      '2024-03-31T22:00:00.000Z',
      '2024-04-30T21:00:00.000Z',
    ],
    [
      'spring forward: 26 Apr begins at 01:00',
      '2024-04-25T22:00:00.000Z',
      3,
      '2024-04-25T22:00:00.000Z',
      '2024-04-26T21:00:00.000Z',
      '2024-03-31T22:00:00.000Z',
      '2024-04-30T21:00:00.000Z',
    ],
    // Fall back 2024: 31 Oct 24:00 (+3) became 23:00 (+2); the day has 25 hours and ends the month.
    [
      'fall back: 31 Oct, first 23:30 (+3)',
      '2024-10-31T20:30:00.000Z',
      3,
      '2024-10-30T21:00:00.000Z',
      '2024-10-31T22:00:00.000Z',
      '2024-09-30T21:00:00.000Z',
      '2024-10-31T22:00:00.000Z',
    ],
    [
      'fall back: 31 Oct, second 23:30 (+2)',
      '2024-10-31T21:30:00.000Z',
      2,
      '2024-10-30T21:00:00.000Z',
      '2024-10-31T22:00:00.000Z',
      '2024-09-30T21:00:00.000Z',
      '2024-10-31T22:00:00.000Z',
    ],
    [
      'fall back: first ms of November',
      '2024-10-31T22:00:00.000Z',
      2,
      '2024-10-31T22:00:00.000Z',
      '2024-11-01T22:00:00.000Z',
      '2024-10-31T22:00:00.000Z',
      '2024-11-30T22:00:00.000Z',
    ],
  ] as const)('%s', (_name, now, offset, dayStart, dayEnd, monthStart, monthEnd) => {
    expect(cairoOffsetHours(iso(now))).toBe(offset);
    expect(cairoPeriods(iso(now))).toEqual({
      dayStartMs: iso(dayStart),
      dayEndMs: iso(dayEnd),
      monthStartMs: iso(monthStart),
      monthEndMs: iso(monthEnd),
    });
  });

  // Which days Egypt changed its clocks on, read from Intl rather than assumed.
  const transitions: { at: number; before: number; after: number }[] = [];
  for (let t = iso('2023-01-01T00:00:00Z'); t < iso('2027-01-01T00:00:00Z'); t += HOUR) {
    const before = cairoOffsetHours(t - 1);
    const after = cairoOffsetHours(t);
    if (before !== after) transitions.push({ at: t, before, after });
  }

  it('finds clock changes in 2023-2026 (the DST cases below are not vacuous)', () => {
    expect(transitions.length).toBeGreaterThanOrEqual(2);
  });

  it.each(transitions.map((tr) => [new Date(tr.at).toISOString(), tr.before, tr.after, tr.at] as const))(
    'clock change at %s (UTC+%s -> UTC+%s): that Cairo day lasts 24 h minus the change, its neighbours 24 h',
    (_at, before, after, at) => {
      const day = cairoPeriods(at);
      expect((day.dayEndMs - day.dayStartMs) / HOUR).toBe(24 - (after - before));
      const previous = cairoPeriods(day.dayStartMs - 1);
      const next = cairoPeriods(day.dayEndMs);
      expect(previous.dayEndMs).toBe(day.dayStartMs);
      expect(next.dayStartMs).toBe(day.dayEndMs);
      expect((previous.dayEndMs - previous.dayStartMs) / HOUR).toBe(24);
      expect((next.dayEndMs - next.dayStartMs) / HOUR).toBe(24);
    },
  );

  it('gives each instant its own day however the calls follow one another (the last day is remembered)', () => {
    // The fall-back day of 2025 (25 hours), its neighbours, and back: each call right after one
    // for another day must not get that day's periods.
    const fallBack = cairoPeriods(Date.parse('2025-10-30T21:30:00Z'));
    expect(fallBack.dayEndMs - fallBack.dayStartMs).toBe(25 * 3_600_000);
    const before = cairoPeriods(fallBack.dayStartMs - 1);
    const last = cairoPeriods(fallBack.dayEndMs - 1);
    const after = cairoPeriods(fallBack.dayEndMs);
    expect(before.dayEndMs).toBe(fallBack.dayStartMs);
    expect(last).toEqual(fallBack);
    expect(after.dayStartMs).toBe(fallBack.dayEndMs);
    expect(after.monthStartMs).toBe(fallBack.monthStartMs); // 31 October: the same month
    expect(cairoPeriods(fallBack.dayStartMs)).toEqual(fallBack);
    // A caller changing its copy changes nothing remembered.
    const copy = cairoPeriods(fallBack.dayStartMs);
    copy.dayEndMs = 0;
    expect(cairoPeriods(fallBack.dayStartMs)).toEqual(fallBack);
  });

  it('satisfies the definition of a Cairo day and month from 2023 to 2026', () => {
    // Every 7 h 13 min: a step that walks through every hour of the day over the years.
    for (let t = iso('2023-01-01T00:00:00Z'); t < iso('2027-01-01T00:00:00Z'); t += 7 * HOUR + 13 * 60_000) {
      const p = cairoPeriods(t);
      const date = cairoDate(t);
      const month = cairoMonth(t);
      expect(p.dayStartMs <= t && t < p.dayEndMs).toBe(true);
      expect(cairoDate(p.dayStartMs)).toBe(date);
      expect(cairoDate(p.dayStartMs - 1)).not.toBe(date);
      expect(cairoDate(p.dayEndMs - 1)).toBe(date);
      expect(cairoDate(p.dayEndMs)).not.toBe(date);
      expect([23, 24, 25]).toContain((p.dayEndMs - p.dayStartMs) / HOUR);
      expect(p.monthStartMs <= p.dayStartMs && p.dayEndMs <= p.monthEndMs).toBe(true);
      expect(cairoMonth(p.monthStartMs)).toBe(month);
      expect(cairoMonth(p.monthStartMs - 1)).not.toBe(month);
      expect(cairoMonth(p.monthEndMs - 1)).toBe(month);
      expect(cairoMonth(p.monthEndMs)).not.toBe(month);
    }
  });

  it.each([[Number.NaN], [Number.POSITIVE_INFINITY]])('throws on %s', (now) => {
    expect(() => cairoPeriods(now)).toThrow(RangeError);
  });
});

describe('countsFor (USAGE_RULES)', () => {
  const NOW = iso('2024-07-15T10:00:00Z');
  const P = cairoPeriods(NOW);
  const base: UsageTransaction = {
    method: 'CARD',
    status: 'SUCCEEDED',
    refund: false,
    cleared: true,
    reviewStatus: null,
    authorizationDate: NOW,
  };
  const EARLIER_THIS_MONTH = iso('2024-07-02T09:00:00Z');
  const LAST_MONTH = iso('2024-06-20T09:00:00Z');

  it.each([
    ['card, cleared, today', {}, ['dayCardAndAtm', 'monthCardAndAtm', 'approvalSpent']],
    ['card, not cleared, today', { cleared: false }, ['dayCardAndAtm', 'monthCardAndAtm', 'approvalPending']],
    ['ATM, cleared, today', { method: 'ATM' }, ['dayCardAndAtm', 'monthCardAndAtm', 'monthAtm', 'approvalSpent']],
    [
      'ATM, not cleared, today',
      { method: 'ATM', cleared: false },
      ['dayCardAndAtm', 'monthCardAndAtm', 'monthAtm', 'approvalPending'],
    ],
    [
      'ATM earlier this month',
      { method: 'ATM', authorizationDate: EARLIER_THIS_MONTH },
      ['monthCardAndAtm', 'monthAtm', 'approvalSpent'],
    ],
    [
      'card at the first ms of today',
      { authorizationDate: P.dayStartMs },
      ['dayCardAndAtm', 'monthCardAndAtm', 'approvalSpent'],
    ],
    ['card at the last ms of yesterday', { authorizationDate: P.dayStartMs - 1 }, ['monthCardAndAtm', 'approvalSpent']],
    ['card at the first ms of tomorrow', { authorizationDate: P.dayEndMs }, ['monthCardAndAtm', 'approvalSpent']],
    ['card at the first ms of the month', { authorizationDate: P.monthStartMs }, ['monthCardAndAtm', 'approvalSpent']],
    ['card at the last ms of last month', { authorizationDate: P.monthStartMs - 1 }, []],
    ['card at the first ms of next month', { authorizationDate: P.monthEndMs }, []],
    ['card last month, still not cleared', { authorizationDate: LAST_MONTH, cleared: false }, []],
    ['card declined', { status: 'DECLINED' }, []],
    ['card reversed', { status: 'REVERSED' }, []],
    ['ATM declined', { method: 'ATM', status: 'DECLINED' }, []],
    ['ATM reversed, not cleared', { method: 'ATM', status: 'REVERSED', cleared: false }, []],
    ['card refund', { refund: true }, []],
    ['partner fees', { method: 'PARTNER_FEES' }, []],
    ['partner fees, not cleared', { method: 'PARTNER_FEES', cleared: false }, []],
    ['cash, review status null', { method: 'CASH' }, ['approvalOutstandingCash']],
    ['cash, not reviewed', { method: 'CASH', reviewStatus: 'NOT_REVIEWED' }, ['approvalOutstandingCash']],
    ['cash, under review', { method: 'CASH', reviewStatus: 'UNDER_REVIEW' }, ['approvalOutstandingCash']],
    ['cash, approved, not yet settled', { method: 'CASH', reviewStatus: 'APPROVED' }, ['approvalOutstandingCash']],
    ['cash, balance settled', { method: 'CASH', reviewStatus: 'BALANCE_SETTLED' }, []],
    ['cash, rejected', { method: 'CASH', reviewStatus: 'REJECTED' }, []],
    [
      'cash, not reviewed, last year',
      { method: 'CASH', reviewStatus: 'NOT_REVIEWED', authorizationDate: iso('2023-03-01T00:00:00Z') },
      ['approvalOutstandingCash'],
    ],
    ['cash, not cleared', { method: 'CASH', cleared: false }, ['approvalOutstandingCash']],
    ['cash, refund', { method: 'CASH', refund: true }, []],
    ['cash, declined', { method: 'CASH', status: 'DECLINED' }, []],
    ['cash, reversed', { method: 'CASH', status: 'REVERSED', reviewStatus: 'NOT_REVIEWED' }, []],
    ['card with a review status', { reviewStatus: 'REJECTED' }, ['dayCardAndAtm', 'monthCardAndAtm', 'approvalSpent']],
  ] as const)('%s counts for %j', (_name, overrides, want) => {
    const txn: UsageTransaction = { ...base, ...overrides };
    const got = USAGE_FIGURES.filter((figure) => countsFor(figure, txn, P));
    expect(got).toEqual(USAGE_FIGURES.filter((f) => (want as readonly UsageFigure[]).includes(f)));
  });

  it('scopes cash to the card holder and everything else to the card', () => {
    expect(Object.fromEntries(USAGE_FIGURES.map((f) => [f, USAGE_RULES[f].scope]))).toEqual({
      dayCardAndAtm: 'card',
      monthCardAndAtm: 'card',
      monthAtm: 'card',
      approvalSpent: 'card',
      approvalPending: 'card',
      approvalOutstandingCash: 'cardHolder',
    });
  });

  // Every combination of method, status, refund, cleared, review status and date position.
  const DATES = [
    P.monthStartMs - 1,
    P.monthStartMs,
    P.dayStartMs - 1,
    P.dayStartMs,
    NOW,
    P.dayEndMs - 1,
    P.dayEndMs,
    P.monthEndMs - 1,
    P.monthEndMs,
  ];
  const COMBINATIONS: UsageTransaction[] = TRANSACTION_METHODS.flatMap((method) =>
    TRANSACTION_STATUSES.flatMap((status) =>
      [false, true].flatMap((refund) =>
        [false, true].flatMap((cleared) =>
          [null, ...REVIEW_STATUSES].flatMap((reviewStatus) =>
            DATES.map((authorizationDate) => ({ method, status, refund, cleared, reviewStatus, authorizationDate })),
          ),
        ),
      ),
    ),
  );

  it.each(USAGE_FIGURES.map((f) => [f]))('countsFor(%s) agrees with USAGE_RULES on every combination', (figure) => {
    const rule = USAGE_RULES[figure];
    const fromRule = (txn: UsageTransaction): boolean => {
      const [start, end] =
        rule.period === 'day'
          ? [P.dayStartMs, P.dayEndMs]
          : rule.period === 'month'
            ? [P.monthStartMs, P.monthEndMs]
            : [-Infinity, Infinity];
      return (
        txn.status === 'SUCCEEDED' &&
        !txn.refund &&
        rule.methods.includes(txn.method) &&
        txn.authorizationDate >= start &&
        txn.authorizationDate < end &&
        (rule.cleared === null || txn.cleared === rule.cleared) &&
        (txn.reviewStatus === null || !rule.excludedReviewStatuses.includes(txn.reviewStatus))
      );
    };
    expect(COMBINATIONS.length).toBe(4 * 3 * 2 * 2 * 6 * 9);
    const disagreements = COMBINATIONS.filter((txn) => countsFor(figure, txn, P) !== fromRule(txn));
    expect(disagreements).toEqual([]);
  });
});

describe('availableBalance', () => {
  const NO_USAGE = { dayCardAndAtm: 0, monthCardAndAtm: 0, monthAtm: 0 };
  const NO_APPROVAL = { spent: 0, pending: 0, outstandingCash: 0 };
  const PLAIN = { daily: 100_000, monthly: 500_000, atm: 200_000, approvalBased: null };
  const APPROVAL = { ...LIMIT_MAXIMA, approvalBased: 1_000_000 };

  it.each([
    ['not activated', { activated: false, limits: PLAIN, usage: NO_USAGE, approval: NO_APPROVAL }, null],
    [
      'not activated, approval-based',
      { activated: false, limits: APPROVAL, usage: NO_USAGE, approval: NO_APPROVAL },
      null,
    ],
    [
      'plain, nothing spent: the daily limit binds',
      { activated: true, limits: PLAIN, usage: NO_USAGE, approval: NO_APPROVAL },
      100_000,
    ],
    [
      'plain, part of the day spent',
      {
        activated: true,
        limits: PLAIN,
        usage: { dayCardAndAtm: 30_000, monthCardAndAtm: 30_000, monthAtm: 0 },
        approval: NO_APPROVAL,
      },
      70_000,
    ],
    [
      'plain, the month binds',
      {
        activated: true,
        limits: PLAIN,
        usage: { dayCardAndAtm: 0, monthCardAndAtm: 450_000, monthAtm: 0 },
        approval: NO_APPROVAL,
      },
      50_000,
    ],
    [
      'plain, the ATM limit binds',
      {
        activated: true,
        limits: PLAIN,
        usage: { dayCardAndAtm: 0, monthCardAndAtm: 190_000, monthAtm: 190_000 },
        approval: NO_APPROVAL,
      },
      10_000,
    ],
    [
      'plain, ATM limit used up',
      {
        activated: true,
        limits: PLAIN,
        usage: { dayCardAndAtm: 0, monthCardAndAtm: 200_000, monthAtm: 200_000 },
        approval: NO_APPROVAL,
      },
      0,
    ],
    [
      'plain, day overspent: clamped at 0',
      {
        activated: true,
        limits: PLAIN,
        usage: { dayCardAndAtm: 150_000, monthCardAndAtm: 150_000, monthAtm: 0 },
        approval: NO_APPROVAL,
      },
      0,
    ],
    [
      'plain, limits lowered below usage: clamped at 0',
      {
        activated: true,
        limits: { daily: 0, monthly: 0, atm: 0, approvalBased: null },
        usage: { dayCardAndAtm: 5, monthCardAndAtm: 5, monthAtm: 5 },
        approval: NO_APPROVAL,
      },
      0,
    ],
    [
      'plain, all at maxima',
      { activated: true, limits: { ...LIMIT_MAXIMA, approvalBased: null }, usage: NO_USAGE, approval: NO_APPROVAL },
      100_000_000,
    ],
    [
      'plain, approval figures ignored',
      { activated: true, limits: PLAIN, usage: NO_USAGE, approval: { spent: 1e9, pending: 1e9, outstandingCash: 1e9 } },
      100_000,
    ],
    [
      'approval-based, nothing spent',
      { activated: true, limits: APPROVAL, usage: NO_USAGE, approval: NO_APPROVAL },
      1_000_000,
    ],
    [
      'approval-based, spent, pending and cash',
      {
        activated: true,
        limits: APPROVAL,
        usage: NO_USAGE,
        approval: { spent: 200_000, pending: 50_000, outstandingCash: 30_000 },
      },
      720_000,
    ],
    [
      'approval-based, plain usage ignored',
      {
        activated: true,
        limits: APPROVAL,
        usage: { dayCardAndAtm: 1e9, monthCardAndAtm: 1e9, monthAtm: 1e9 },
        approval: NO_APPROVAL,
      },
      1_000_000,
    ],
    [
      'approval-based, overspent: clamped at 0',
      {
        activated: true,
        limits: APPROVAL,
        usage: NO_USAGE,
        approval: { spent: 900_000, pending: 90_000, outstandingCash: 20_000 },
      },
      0,
    ],
    [
      'approval-based, approved 0',
      { activated: true, limits: { ...APPROVAL, approvalBased: 0 }, usage: NO_USAGE, approval: NO_APPROVAL },
      0,
    ],
    [
      'approval-based, the maximum',
      {
        activated: true,
        limits: { ...APPROVAL, approvalBased: 99_999_999_999 },
        usage: NO_USAGE,
        approval: NO_APPROVAL,
      },
      99_999_999_999,
    ],
    [
      'approval-based, above the maximum: clamped',
      {
        activated: true,
        limits: { ...APPROVAL, approvalBased: 99_999_999_999 },
        usage: NO_USAGE,
        approval: { spent: -1, pending: 0, outstandingCash: 0 },
      },
      99_999_999_999,
    ],
  ] as const)('%s -> %s', (_name, input, want) => {
    expect(availableBalance(input as AvailableBalanceInput)).toBe(want);
  });

  it('follows from the transactions through usageOf', () => {
    const now = iso('2024-10-31T21:30:00Z'); // 31 Oct 23:30 Cairo, second pass (+2), last day of the month.
    const periods = cairoPeriods(now);
    const txn = (amountCents: number, over: Partial<UsageAmountTransaction>): UsageAmountTransaction => ({
      method: 'CARD',
      status: 'SUCCEEDED',
      refund: false,
      cleared: true,
      reviewStatus: null,
      authorizationDate: now,
      amountCents,
      ...over,
    });
    const card = [
      txn(10_000, { authorizationDate: iso('2024-10-30T21:00:00Z') }), // 31 Oct 00:00 Cairo: today
      txn(20_000, { method: 'ATM', cleared: false }), // today, pending ATM
      txn(40_000, { authorizationDate: iso('2024-10-30T20:59:59.999Z') }), // 30 Oct: this month
      txn(80_000, { authorizationDate: iso('2024-10-31T22:00:00Z') }), // 1 Nov: next month
      txn(160_000, { status: 'DECLINED' }),
      txn(320_000, { status: 'REVERSED', method: 'ATM' }),
      txn(640_000, { refund: true }),
    ];
    const holder = [
      ...card,
      txn(1_000, { method: 'CASH', reviewStatus: 'UNDER_REVIEW', authorizationDate: iso('2024-01-01T00:00:00Z') }),
      txn(2_000, { method: 'CASH', reviewStatus: 'BALANCE_SETTLED' }),
      txn(4_000, { method: 'PARTNER_FEES' }),
    ];
    const { usage, approval } = usageOf(card, holder, periods);
    expect(usage).toEqual({ dayCardAndAtm: 30_000, monthCardAndAtm: 70_000, monthAtm: 20_000 });
    expect(approval).toEqual({ spent: 50_000, pending: 20_000, outstandingCash: 1_000 });
    expect(
      availableBalance({
        activated: true,
        limits: { daily: 100_000, monthly: 300_000, atm: 25_000, approvalBased: null },
        usage,
        approval,
      }),
    ).toBe(5_000);
    expect(
      availableBalance({ activated: true, limits: { ...LIMIT_MAXIMA, approvalBased: 100_000 }, usage, approval }),
    ).toBe(29_000);
  });
});
