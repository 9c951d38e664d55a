import { describe, expect, it } from 'vitest';
import {
  LIMIT_MAXIMA,
  isApprovalBased,
  setLimits,
  updateLimits,
  type Limits,
  type LimitsDelta,
  type SetLimitsBody,
} from './card-limits.js';

const MAXED = { daily: 100_000_000, monthly: 300_000_000, atm: 300_000_000 };
const PLAIN: Limits = { daily: 50_000, monthly: 200_000, atm: 100_000, approvalBased: null };
const APPROVAL: Limits = { ...MAXED, approvalBased: 1_000_000 };

describe('setLimits (PUT: the whole limit state, plain or approval-based)', () => {
  it.each([
    ['plain limits', { daily: 1, monthly: 2, atm: 3 }, { daily: 1, monthly: 2, atm: 3, approvalBased: null }],
    [
      'plain limits, approvalBased null',
      { daily: 1, monthly: 2, atm: 3, approvalBased: null },
      { daily: 1, monthly: 2, atm: 3, approvalBased: null },
    ],
    ['all zero', { daily: 0, monthly: 0, atm: 0 }, { daily: 0, monthly: 0, atm: 0, approvalBased: null }],
    ['all at maxima', { ...MAXED }, { ...MAXED, approvalBased: null }],
    [
      'daily above monthly is allowed',
      { daily: 100_000, monthly: 10, atm: 0 },
      { daily: 100_000, monthly: 10, atm: 0, approvalBased: null },
    ],
    ['approval-based: others set to maxima', { approvalBased: 5_000 }, { ...MAXED, approvalBased: 5_000 }],
    ['approval-based 0', { approvalBased: 0 }, { ...MAXED, approvalBased: 0 }],
    ['approval-based at maximum', { approvalBased: 99_999_999_999 }, { ...MAXED, approvalBased: 99_999_999_999 }],
    [
      'undefined fields count as absent',
      { daily: undefined, monthly: undefined, atm: undefined, approvalBased: 7 },
      { ...MAXED, approvalBased: 7 },
    ],
  ] as const)('accepts %s', (_name, body: SetLimitsBody, want) => {
    expect(setLimits(body)).toEqual({ ok: true, limits: want });
  });

  it.each([
    [
      'both shapes at once',
      { daily: 1, monthly: 2, atm: 3, approvalBased: 4 },
      /either daily, monthly and atm .* or approvalBased alone.*daily, monthly, atm/,
    ],
    ['approvalBased with one other field', { atm: 3, approvalBased: 4 }, /not both; this request also has atm/],
    ['negative daily', { daily: -1, monthly: 2, atm: 3 }, /daily must be between 0 and 100000000 cents; got -1/],
    ['negative monthly', { daily: 1, monthly: -2, atm: 3 }, /monthly must be between 0 and 300000000 cents; got -2/],
    ['negative atm', { daily: 1, monthly: 2, atm: -3 }, /atm must be between 0 and 300000000 cents; got -3/],
    ['negative approvalBased', { approvalBased: -4 }, /approvalBased must be between 0 and 99999999999 cents; got -4/],
    ['daily above maximum', { daily: 100_000_001, monthly: 2, atm: 3 }, /daily must be between 0 and 100000000/],
    ['monthly above maximum', { daily: 1, monthly: 300_000_001, atm: 3 }, /monthly must be between 0 and 300000000/],
    [
      'approvalBased above maximum',
      { approvalBased: 100_000_000_000 },
      /approvalBased must be between 0 and 99999999999/,
    ],
    ['two fields wrong: both named', { daily: -1, monthly: -2, atm: 3 }, /daily must .* monthly must/],
    ['fractional cents', { daily: 1.5, monthly: 2, atm: 3 }, /daily must be a whole number of cents; got 1.5/],
    ['NaN', { daily: Number.NaN, monthly: 2, atm: 3 }, /daily must be a whole number/],
    ['missing atm', { daily: 1, monthly: 2 }, /missing atm/],
    ['empty body', {}, /missing daily, monthly, atm/],
    ['approvalBased null alone', { approvalBased: null }, /missing daily, monthly, atm/],
  ] as const)('rejects %s', (_name, body: SetLimitsBody, message) => {
    const result = setLimits(body);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(message);
  });
});

describe('updateLimits (PATCH: amounts added to the current limits)', () => {
  it.each([
    ['raise daily', PLAIN, { daily: 1_000 }, { ...PLAIN, daily: 51_000 }],
    ['lower monthly', PLAIN, { monthly: -200_000 }, { ...PLAIN, monthly: 0 }],
    ['several at once', PLAIN, { daily: -50_000, atm: 1 }, { ...PLAIN, daily: 0, atm: 100_001 }],
    ['zero change', PLAIN, { atm: 0 }, PLAIN],
    ['up to the maximum exactly', PLAIN, { daily: 99_950_000 }, { ...PLAIN, daily: 100_000_000 }],
    ['undefined fields ignored', PLAIN, { daily: 1, monthly: undefined }, { ...PLAIN, daily: 50_001 }],
    ['approval-based: raise', APPROVAL, { approvalBased: 500 }, { ...APPROVAL, approvalBased: 1_000_500 }],
    ['approval-based: lower to 0', APPROVAL, { approvalBased: -1_000_000 }, { ...APPROVAL, approvalBased: 0 }],
    [
      'approval-based: to the maximum',
      { ...APPROVAL, approvalBased: 0 },
      { approvalBased: 99_999_999_999 },
      { ...APPROVAL, approvalBased: 99_999_999_999 },
    ],
  ] as const)('%s', (_name, current: Limits, delta: LimitsDelta, want) => {
    expect(updateLimits(current, delta)).toEqual({ ok: true, limits: want });
  });

  it.each([
    [
      'daily below 0',
      PLAIN,
      { daily: -50_001 },
      /daily would become -1 \(current 50000 - 50001\); the result must be between 0 and 100000000 cents, so the change must be between -50000 and 99950000/,
    ],
    ['daily above maximum', PLAIN, { daily: 99_950_001 }, /daily would become 100000001 \(current 50000 \+ 99950001\)/],
    [
      'monthly below 0',
      PLAIN,
      { monthly: -300_000 },
      /monthly would become -100000 \(current 200000 - 300000\).*between 0 and 300000000/,
    ],
    ['atm above maximum', PLAIN, { atm: 299_900_001 }, /atm would become 300000001/],
    [
      'one good, one bad: nothing changes, the bad one named',
      PLAIN,
      { daily: 1, atm: -100_001 },
      /^atm would become -1/,
    ],
    ['two bad: both named', PLAIN, { daily: -50_001, atm: -100_001 }, /daily would become .* atm would become/],
    [
      'change outside its range',
      PLAIN,
      { daily: 100_000_001 },
      /daily change must be between -100000000 and 100000000 cents; got 100000001/,
    ],
    ['fractional change', PLAIN, { monthly: 0.5 }, /monthly change must be a whole number of cents/],
    [
      'approvalBased on a plain card',
      PLAIN,
      { approvalBased: 5 },
      /not approval-based.*Use PUT with approvalBased alone/,
    ],
    ['approvalBased null on a plain card', PLAIN, { approvalBased: null }, /not approval-based.*Use PUT/],
    ['approvalBased with plain fields on a plain card', PLAIN, { daily: 1, approvalBased: 5 }, /not approval-based/],
    [
      'daily on an approval-based card',
      APPROVAL,
      { daily: 1 },
      /approval-based: PATCH may change only approvalBased, not daily.*Use PUT/,
    ],
    [
      'several plain fields on an approval-based card',
      APPROVAL,
      { daily: 1, monthly: 1, approvalBased: 1 },
      /not daily, monthly/,
    ],
    [
      'approvalBased null on an approval-based card',
      APPROVAL,
      { approvalBased: null },
      /an amount to add, not null.*Use PUT/,
    ],
    [
      'approvalBased below 0',
      APPROVAL,
      { approvalBased: -1_000_001 },
      /approvalBased would become -1 \(current 1000000 - 1000001\); the result must be between 0 and 99999999999 cents, so the change must be between -1000000 and 99998999999/,
    ],
    [
      'approvalBased above maximum',
      APPROVAL,
      { approvalBased: 99_999_000_000 },
      /approvalBased would become 100000000000/,
    ],
    ['empty delta', PLAIN, {}, /at least one of daily, monthly, atm/],
    ['only undefined fields', PLAIN, { daily: undefined }, /at least one/],
  ] as const)('rejects %s', (_name, current: Limits, delta: LimitsDelta, message) => {
    const result = updateLimits(current, delta);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(message);
  });

  it('does not modify the current limits it is given', () => {
    const current: Limits = { ...PLAIN };
    updateLimits(current, { daily: 5 });
    expect(current).toEqual(PLAIN);
  });
});

describe('isApprovalBased', () => {
  it.each([
    [PLAIN, false],
    [APPROVAL, true],
    [{ ...APPROVAL, approvalBased: 0 }, true],
  ] as const)('%j -> %s', (limits, want) => {
    expect(isApprovalBased(limits)).toBe(want);
  });

  it('re-exports the maxima', () => {
    expect(LIMIT_MAXIMA.daily).toBe(100_000_000);
  });
});
