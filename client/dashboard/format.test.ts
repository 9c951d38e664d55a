import { describe, expect, it } from 'vitest';
import {
  cairoDayEnd,
  cairoDayStart,
  centsToInput,
  formatDateTime,
  formatMoney,
  parseMoney,
  wallClockOf,
} from './format.js';

// Money from integer cents without float rounding, amounts typed in pounds, and Cairo's calendar.

describe('formatMoney', () => {
  it.each([
    [0, 'EGP 0.00'],
    [1, 'EGP 0.01'],
    [10, 'EGP 0.10'],
    [1_250_000, 'EGP 12,500.00'],
    // cents / 100 is no exact binary fraction for these (10.0500000000000007…): the digits come from integers.
    [1_005, 'EGP 10.05'],
    [100_000_001, 'EGP 1,000,000.01'],
    [99_999_999_999, 'EGP 999,999,999.99'],
    [-25_000, '−EGP 250.00'],
  ])('%i cents is %s', (cents, shown) => {
    expect(formatMoney(cents)).toBe(shown);
  });

  it('every cent up to the largest amount keeps its last two digits', () => {
    for (let cents = 99_999_999_000; cents <= 99_999_999_999; cents += 1) {
      expect(formatMoney(cents).slice(-2)).toBe(String(cents % 100).padStart(2, '0'));
    }
  });

  it('a value that is no safe integer is shown as missing, not as a wrong number', () => {
    expect(formatMoney(1.5)).toBe('EGP —');
    expect(formatMoney(2 ** 53)).toBe('EGP —');
  });
});

describe('parseMoney and centsToInput', () => {
  it.each([
    ['5000', 500_000],
    ['5,000.5', 500_050],
    ['0.07', 7],
    [' 12.34 ', 1_234],
    ['999999999.99', 99_999_999_999],
  ])('%s is %i cents', (text, cents) => {
    expect(parseMoney(text)).toBe(cents);
    expect(parseMoney(centsToInput(cents))).toBe(cents);
  });

  it.each(['', 'abc', '1.234', '1e3', '-5', '1000000000', '.5', '12.'])('%j is no amount', (text) => {
    expect(parseMoney(text)).toBeUndefined();
  });

  it('a negative amount only where allowed', () => {
    expect(parseMoney('-250.00', { negative: true })).toBe(-25_000);
    expect(centsToInput(-25_000)).toBe('-250.00');
  });
});

describe('Cairo time', () => {
  it('shows a time in Africa/Cairo, not the machine zone', () => {
    // 2026-01-15T10:30:00Z is 12:30 in Cairo (UTC+2 in winter).
    expect(formatDateTime(Date.UTC(2026, 0, 15, 10, 30))).toBe('15 Jan 2026, 12:30');
  });

  it.each([
    // Winter: midnight in Cairo is 22:00 UTC the day before.
    ['2026-01-15', Date.UTC(2026, 0, 14, 22), Date.UTC(2026, 0, 15, 22) - 1],
    // Summer time (UTC+3): 21:00 UTC the day before.
    ['2026-07-15', Date.UTC(2026, 6, 14, 21), Date.UTC(2026, 6, 15, 21) - 1],
  ])('the Cairo day %s runs from %i to %i', (day, start, end) => {
    expect(cairoDayStart(day)).toBe(start);
    expect(cairoDayEnd(day)).toBe(end);
  });

  it('text that is no date gives nothing', () => {
    expect(cairoDayStart('15/01/2026')).toBeUndefined();
    expect(cairoDayEnd('')).toBeUndefined();
  });
});

describe('wallClockOf', () => {
  const parts = (hour: string): Intl.DateTimeFormatPart[] => [
    { type: 'month', value: '3' },
    { type: 'literal', value: '/' },
    { type: 'day', value: '1' },
    { type: 'literal', value: '/' },
    { type: 'year', value: '2026' },
    { type: 'literal', value: ', ' },
    { type: 'hour', value: hour },
    { type: 'literal', value: ':' },
    { type: 'minute', value: '05' },
    { type: 'literal', value: ':' },
    { type: 'second', value: '09' },
  ];

  it('reads the parts as a UTC time', () => {
    expect(wallClockOf(parts('13'))).toBe(Date.UTC(2026, 2, 1, 13, 5, 9));
  });

  it('reads midnight written as hour 24 as hour 0 of the same day', () => {
    expect(wallClockOf(parts('24'))).toBe(Date.UTC(2026, 2, 1, 0, 5, 9));
    expect(wallClockOf(parts('00'))).toBe(Date.UTC(2026, 2, 1, 0, 5, 9));
  });
});
