/**
 * Card limits: PUT (whole state) and PATCH (add a signed amount to each present limit), as the
 * setCardLimits and updateCardLimits operations describe. Expected failures come back as values
 * (`ok: false`) with a message the partner can act on; the HTTP layer responds to them with 400
 * `InvalidRequest` and changes nothing.
 */
/** The upper end of each limit's range, in cents (the CardLimits schema). */
export const LIMIT_MAXIMA = Object.freeze({
  daily: 100_000_000,
  monthly: 300_000_000,
  atm: 300_000_000,
  approvalBased: 99_999_999_999,
} as const);

export type Limits = { daily: number; monthly: number; atm: number; approvalBased: number | null };

export type LimitsResult = { ok: true; limits: Limits } | { ok: false; message: string };

/** PUT body: `{ daily, monthly, atm, approvalBased?: null }` or `{ approvalBased }` alone. */
export type SetLimitsBody = {
  daily?: number | undefined;
  monthly?: number | undefined;
  atm?: number | undefined;
  approvalBased?: number | null | undefined;
};

/** PATCH body: signed amounts to add, each optional. */
export type LimitsDelta = {
  daily?: number | undefined;
  monthly?: number | undefined;
  atm?: number | undefined;
  approvalBased?: number | null | undefined;
};

type LimitField = keyof typeof LIMIT_MAXIMA;
const PLAIN_FIELDS = ['daily', 'monthly', 'atm'] as const;

export function isApprovalBased(limits: Limits): boolean {
  return limits.approvalBased !== null;
}

function fail(message: string): LimitsResult {
  return { ok: false, message };
}

/** Null when the value is a whole number of cents in 0..maximum, otherwise the message. */
function rangeProblem(field: LimitField, value: number): string | null {
  const max = LIMIT_MAXIMA[field];
  if (!Number.isSafeInteger(value)) return `${field} must be a whole number of cents; got ${value}.`;
  if (value < 0 || value > max) return `${field} must be between 0 and ${max} cents; got ${value}.`;
  return null;
}

export function setLimits(body: SetLimitsBody): LimitsResult {
  const present = PLAIN_FIELDS.filter((f) => body[f] !== undefined);
  const approvalBased = body.approvalBased;

  if (approvalBased !== undefined && approvalBased !== null) {
    if (present.length > 0) {
      return fail(
        `Send either daily, monthly and atm (a card with spending limits) or approvalBased alone ` +
          `(an approval-based card), not both; this request also has ${present.join(', ')}.`,
      );
    }
    const problem = rangeProblem('approvalBased', approvalBased);
    if (problem !== null) return fail(problem);
    // An approval-based card carries the other three at their maxima.
    return {
      ok: true,
      limits: { daily: LIMIT_MAXIMA.daily, monthly: LIMIT_MAXIMA.monthly, atm: LIMIT_MAXIMA.atm, approvalBased },
    };
  }

  const missing = PLAIN_FIELDS.filter((f) => body[f] === undefined);
  if (missing.length > 0) {
    return fail(
      `PUT sets the whole limit state: send daily, monthly and atm, or approvalBased alone; ` +
        `missing ${missing.join(', ')}.`,
    );
  }
  const limits: Limits = { daily: 0, monthly: 0, atm: 0, approvalBased: null };
  const problems: string[] = [];
  for (const field of PLAIN_FIELDS) {
    const value = body[field] ?? 0;
    const problem = rangeProblem(field, value);
    if (problem !== null) problems.push(problem);
    limits[field] = value;
  }
  return problems.length > 0 ? fail(problems.join(' ')) : { ok: true, limits };
}

export function updateLimits(current: Limits, delta: LimitsDelta): LimitsResult {
  const plainPresent = PLAIN_FIELDS.filter((f) => delta[f] !== undefined);
  const approvalPresent = delta.approvalBased !== undefined;

  if (plainPresent.length === 0 && !approvalPresent) {
    return fail('Send at least one of daily, monthly, atm (or approvalBased for an approval-based card).');
  }

  if (current.approvalBased !== null) {
    if (plainPresent.length > 0) {
      return fail(
        `This card is approval-based: PATCH may change only approvalBased, not ${plainPresent.join(', ')}. ` +
          `Use PUT with daily, monthly and atm to turn it into a card with spending limits.`,
      );
    }
    if (delta.approvalBased === null) {
      return fail(
        'approvalBased in PATCH is an amount to add, not null. Use PUT with daily, monthly and atm ' +
          'to turn this card into a card with spending limits.',
      );
    }
    const result = addDelta('approvalBased', current.approvalBased, delta.approvalBased ?? 0);
    return typeof result === 'string' ? fail(result) : { ok: true, limits: { ...current, approvalBased: result } };
  }

  if (approvalPresent) {
    return fail(
      'This card is not approval-based: PATCH may not send approvalBased. ' +
        'Use PUT with approvalBased alone to make it approval-based.',
    );
  }
  const limits: Limits = { ...current };
  const problems: string[] = [];
  for (const field of plainPresent) {
    const result = addDelta(field, current[field], delta[field] ?? 0);
    if (typeof result === 'string') problems.push(result);
    else limits[field] = result;
  }
  return problems.length > 0 ? fail(problems.join(' ')) : { ok: true, limits };
}

/** The new limit, or the message saying why the change is rejected. */
function addDelta(field: LimitField, currentValue: number, change: number): number | string {
  const max = LIMIT_MAXIMA[field];
  if (!Number.isSafeInteger(change)) return `${field} change must be a whole number of cents; got ${change}.`;
  // A change is itself within -max..max (the UpdateCardLimitsRequest schema).
  if (change < -max || change > max) {
    return `${field} change must be between -${max} and ${max} cents; got ${change}.`;
  }
  const result = currentValue + change;
  if (result < 0 || result > max) {
    return (
      `${field} would become ${result} (current ${currentValue} ${change < 0 ? '-' : '+'} ${Math.abs(change)}); ` +
      `the result must be between 0 and ${max} cents, so the change must be between ${-currentValue} and ${max - currentValue}.`
    );
  }
  return result;
}
