/**
 * How the pages show money and time: amounts are integer cents of EGP and times Unix milliseconds
 * (the document's "Conventions"), shown as EGP with two decimals and in Africa/Cairo time.
 */

/** The largest amount the API holds (a transfer's maximum, 99 999 999 999 cents), far below 2^53. */
const GROUPS = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0, useGrouping: true });

/**
 * `EGP 12,500.00` for 1250000. Integer arithmetic only: the whole pounds and the cents are split
 * with `%` and `Math.trunc` on a safe integer and formatted apart, so no binary fraction is ever
 * rounded (cents/100 as a float would be, for some amounts).
 */
export function formatMoney(cents: number): string {
  if (!Number.isSafeInteger(cents)) return 'EGP —';
  const sign = cents < 0 ? '−' : '';
  const magnitude = Math.abs(cents);
  const pounds = Math.trunc(magnitude / 100);
  const rest = magnitude % 100;
  return `${sign}EGP ${GROUPS.format(pounds)}.${String(rest).padStart(2, '0')}`;
}

/** Up to 999,999,999.99 pounds: more than any amount the API takes. */
const AMOUNT = /^(-?)(\d{1,9})(?:\.(\d{1,2}))?$/;

/**
 * Reads what an operator typed as pounds (`5000`, `5,000.5`, `-250.00`) into integer cents, from
 * the text (no float parsing), or undefined when it is not an amount. Negative only when allowed.
 */
export function parseMoney(text: string, { negative = false }: { negative?: boolean } = {}): number | undefined {
  const match = AMOUNT.exec(text.trim().replaceAll(',', ''));
  if (match === null) return undefined;
  const [, minus, pounds = '0', fraction = ''] = match;
  if (minus === '-' && !negative) return undefined;
  const cents = Number(pounds) * 100 + Number(fraction.padEnd(2, '0'));
  return minus === '-' ? -cents : cents;
}

/** Cents as the pounds an input shows: `5000.00`. */
export function centsToInput(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const magnitude = Math.abs(cents);
  return `${sign}${Math.trunc(magnitude / 100)}.${String(magnitude % 100).padStart(2, '0')}`;
}

export const CAIRO = 'Africa/Cairo';
const DATE_TIME = new Intl.DateTimeFormat('en-GB', { timeZone: CAIRO, dateStyle: 'medium', timeStyle: 'short' });
const PARTS = new Intl.DateTimeFormat('en-US', {
  timeZone: CAIRO,
  hourCycle: 'h23',
  year: 'numeric',
  month: 'numeric',
  day: 'numeric',
  hour: 'numeric',
  minute: 'numeric',
  second: 'numeric',
});

/** `25 Nov 2026, 14:03` in Cairo time. */
export function formatDateTime(ms: number): string {
  return DATE_TIME.format(ms);
}

/**
 * The wall-clock time the parts of a date say, as if it were UTC. Some engines write midnight as
 * hour 24 of the same day even with `hourCycle: 'h23'` (as the server's calendar in
 * server/domain/available-balance.ts also allows for): that is hour 0.
 */
export function wallClockOf(parts: readonly Intl.DateTimeFormatPart[]): number {
  const part = (type: string): number => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return Date.UTC(part('year'), part('month') - 1, part('day'), part('hour') % 24, part('minute'), part('second'));
}

/** How far Cairo's wall clock is ahead of UTC at `ms`, in milliseconds (2 or 3 hours). */
function cairoOffset(ms: number): number {
  return wallClockOf(PARTS.formatToParts(ms)) - Math.floor(ms / 1000) * 1000;
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * The first millisecond of a calendar day in Cairo (`2026-03-01` from an `<input type="date">`),
 * or undefined for text that is no date. Daylight saving moves the offset, so it is read twice:
 * at the UTC midnight and again at the instant found.
 */
export function cairoDayStart(day: string): number | undefined {
  const match = DAY.exec(day);
  if (match === null) return undefined;
  const utcMidnight = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  if (Number.isNaN(utcMidnight)) return undefined;
  const guess = utcMidnight - cairoOffset(utcMidnight);
  return utcMidnight - cairoOffset(guess);
}

/** The last millisecond of a calendar day in Cairo. */
export function cairoDayEnd(day: string): number | undefined {
  const match = DAY.exec(day);
  if (match === null) return undefined;
  const next = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]) + 1))
    .toISOString()
    .slice(0, 10);
  const start = cairoDayStart(next);
  return start === undefined ? undefined : start - 1;
}
