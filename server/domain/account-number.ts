/**
 * Checks a transfer's payee account number against its bank (CreateTransferRequest.accountNumber;
 * failure is 400 `InvalidBankAccount`). Three shapes:
 *
 * 1. IBAN: starts with two letters. Capital letters A–Z and digits only, written without
 *    spaces or separators: a lower-case or spaced IBAN is rejected rather than silently
 *    rewritten, because the stored account number is exactly what the partner sent and what
 *    the payment network receives. It must pass the ISO 13616 / ISO 7064 MOD 97-10 check
 *    (check digits 02–98), be 15 to 34 characters long, and an Egyptian IBAN (`EG`) is 29
 *    characters: `EG`, 2 check digits, 25 digits.
 * 2. Mobile wallet (a bank whose kind is `wallet`): an Egyptian mobile number written in the
 *    national form `01` + 9 digits (`01012345678`). The international forms `+201…` and
 *    `00201…` are rejected, and the reason says which form to send, so that one number has
 *    one spelling (and one idempotency fingerprint).
 * 3. Anything else: 6 to 30 digits (a domestic account number).
 */
import type { Bank } from './banks.js';

export type AccountNumberCheck = { ok: true } | { ok: false; reason: string };

/** ISO 13616: the shortest IBAN in use (Norway) has 15 characters, the standard allows 34. */
const IBAN_MIN_LENGTH = 15;
const IBAN_MAX_LENGTH = 34;
/** Egypt's IBAN: EG + 2 check digits + 4 bank + 4 branch + 17 account digits. */
const EG_IBAN_LENGTH = 29;
/** A domestic account number is 6 to 30 digits. */
const DOMESTIC_MIN_DIGITS = 6;
const DOMESTIC_MAX_DIGITS = 30;

const IBAN_SHAPE = /^[A-Z]{2}[0-9]{2}[A-Z0-9]+$/;
const EG_IBAN_SHAPE = /^EG[0-9]{27}$/;
const EGYPTIAN_MOBILE = /^01[0-9]{9}$/;
const DIGITS = /^[0-9]+$/;

/**
 * ISO 7064 MOD 97-10 over the IBAN: move the first four characters to the end, replace each
 * letter by two digits (A = 10 … Z = 35), and the resulting number mod 97 must be 1. Computed
 * digit by digit, so no number grows beyond 97 × 100. Check digits outside 02–98 are refused
 * too: MOD 97-10 never produces them, though 00, 01 and 99 can satisfy the remainder test.
 */
export function ibanIsValid(iban: string): boolean {
  if (iban.length < IBAN_MIN_LENGTH || iban.length > IBAN_MAX_LENGTH) return false;
  if (!IBAN_SHAPE.test(iban)) return false;
  const checkDigits = Number(iban.slice(2, 4));
  if (checkDigits < 2 || checkDigits > 98) return false;
  if (iban.startsWith('EG') && (iban.length !== EG_IBAN_LENGTH || !EG_IBAN_SHAPE.test(iban))) return false;
  return ibanRemainder(iban) === 1;
}

function ibanRemainder(iban: string): number {
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const char of rearranged) {
    const code = char.charCodeAt(0);
    if (code >= 48 && code <= 57) {
      remainder = (remainder * 10 + (code - 48)) % 97;
    } else {
      remainder = (remainder * 100 + (code - 55)) % 97;
    }
  }
  return remainder;
}

function fail(reason: string): AccountNumberCheck {
  return { ok: false, reason };
}

function checkIban(iban: string): AccountNumberCheck {
  if (!/^[A-Z0-9]+$/.test(iban)) {
    return fail(
      'An IBAN must be written in capital letters A-Z and digits 0-9 only, without spaces or separators ' +
        '(for example EG380019000500000000263180002).',
    );
  }
  if (!/^[A-Z]{2}[0-9]{2}/.test(iban)) {
    return fail('An IBAN starts with a two-letter country code followed by two check digits (for example EG38...).');
  }
  if (iban.startsWith('EG')) {
    if (iban.length !== EG_IBAN_LENGTH) {
      return fail(`An Egyptian IBAN (EG) has exactly ${EG_IBAN_LENGTH} characters; this one has ${iban.length}.`);
    }
    if (!EG_IBAN_SHAPE.test(iban)) {
      return fail('An Egyptian IBAN is EG followed by 27 digits; this one contains letters after EG.');
    }
  } else if (iban.length < IBAN_MIN_LENGTH || iban.length > IBAN_MAX_LENGTH) {
    return fail(`An IBAN has ${IBAN_MIN_LENGTH} to ${IBAN_MAX_LENGTH} characters; this one has ${iban.length}.`);
  }
  if (!ibanIsValid(iban)) {
    return fail(
      'The IBAN check digits do not match the rest of the IBAN (ISO 13616 mod-97 check): ' +
        'look for a mistyped or swapped character.',
    );
  }
  return { ok: true };
}

/** The `01XXXXXXXXX` spelling of a number the partner wrote another way, for the hint; null if none. */
function nationalForm(accountNumber: string): string | null {
  const compact = accountNumber.replace(/[\s-]/g, '');
  if (EGYPTIAN_MOBILE.test(compact)) return compact;
  const international = /^(?:\+|00)?20(1[0-9]{9})$/.exec(compact);
  return international === null ? null : `0${international[1] ?? ''}`;
}

function checkWalletNumber(bank: Bank, accountNumber: string): AccountNumberCheck {
  if (EGYPTIAN_MOBILE.test(accountNumber)) return { ok: true };
  const national = nationalForm(accountNumber);
  const hint =
    national === null
      ? ' The international forms +201... and 00201... are not accepted, nor spaces or dashes.'
      : ` Send it in the national form ${national}, without +20 or 0020, spaces or dashes.`;
  return fail(
    `${bank.name} is a mobile wallet: the account number must be the Egyptian mobile number of the wallet, ` +
      `11 digits starting with 01 (for example 01012345678).${hint}`,
  );
}

function checkDomestic(accountNumber: string): AccountNumberCheck {
  if (
    DIGITS.test(accountNumber) &&
    accountNumber.length >= DOMESTIC_MIN_DIGITS &&
    accountNumber.length <= DOMESTIC_MAX_DIGITS
  ) {
    return { ok: true };
  }
  const what = DIGITS.test(accountNumber)
    ? `it has ${accountNumber.length} digits`
    : 'it contains characters other than digits';
  return fail(
    `The account number must be an IBAN (two capital letters, then check digits, for example ` +
      `EG380019000500000000263180002) or ${DOMESTIC_MIN_DIGITS} to ${DOMESTIC_MAX_DIGITS} digits with no spaces; ${what}.`,
  );
}

export function checkAccountNumber(bank: Bank, accountNumber: string): AccountNumberCheck {
  if (accountNumber.length === 0) return fail('The account number is empty.');
  if (bank.kind === 'wallet') return checkWalletNumber(bank, accountNumber);
  // Two letters first, in either case: a lower-case IBAN is still recognised as an IBAN, so
  // that the reason talks about IBANs rather than about digits.
  if (/^[A-Za-z]{2}/.test(accountNumber)) return checkIban(accountNumber);
  return checkDomestic(accountNumber);
}
