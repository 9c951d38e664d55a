import { describe, expect, it } from 'vitest';
import { checkAccountNumber, ibanIsValid } from './account-number.js';
import { findBank, type Bank } from './banks.js';

function bank(id: string): Bank {
  const found = findBank(id);
  if (found === undefined) throw new Error(`no bank ${id}`);
  return found;
}

const NBE = bank('nbe');
const VODAFONE = bank('vodafone-cash');

describe('ibanIsValid', () => {
  it.each([
    ['EG380019000500000000263180002', true],
    ['EG790003000100000000000012345', true],
    ['EG380002000100000000123456789', true],
    ['DE89370400440532013000', true],
    ['GB82WEST12345698765432', true],
    ['FR1420041010050500013M02606', true],
    ['NO9386011117947', true],
    // One digit changed, two digits swapped, check digits changed.
    ['EG380019000500000000263180003', false],
    ['EG380019000500000000263180020', false],
    ['EG390019000500000000263180002', false],
    ['DE89370400440532013001', false],
    ['GB82WEST12345698765423', false],
    // Same remainder, but check digits MOD 97-10 never produces (38 + 97 is not two digits; 02 - 1 = 01, 98 + 1 = 99).
    ['EG010019000500000000263180002', false],
    ['EG990019000500000000263180002', false],
    // EG must be 29 characters and all digits after EG.
    ['EG38001900050000000026318000', false],
    ['EG3800190005000000002631800021', false],
    ['EG38001900050000000026318000A', false],
    // Case, separators, length.
    ['eg380019000500000000263180002', false],
    ['EG38 0019 0005 0000 0000 2631 8000 2', false],
    ['DE89', false],
    ['', false],
  ] as const)('%j -> %s', (iban, want) => {
    expect(ibanIsValid(iban)).toBe(want);
  });
});

describe('checkAccountNumber', () => {
  it.each([
    ['Egyptian IBAN', NBE, 'EG380019000500000000263180002'],
    ['Egyptian IBAN, another', NBE, 'EG790003000100000000000012345'],
    ['German IBAN', NBE, 'DE89370400440532013000'],
    ['British IBAN', NBE, 'GB82WEST12345698765432'],
    ['6 digits', NBE, '123456'],
    ['30 digits', NBE, '1'.repeat(30)],
    ['an 11-digit number at a bank', NBE, '01012345678'],
    ['wallet 010', VODAFONE, '01012345678'],
    ['wallet 011', bank('etisalat-cash'), '01112345678'],
    ['wallet 012', bank('orange-cash'), '01298765432'],
    ['wallet 015', bank('we-pay'), '01512345678'],
  ] as const)('accepts %s', (_name, payeeBank, accountNumber) => {
    expect(checkAccountNumber(payeeBank, accountNumber)).toEqual({ ok: true });
  });

  it.each([
    ['wrong EG checksum', NBE, 'EG380019000500000000263180003', /check digits do not match/],
    ['EG too short', NBE, 'EG38001900050000000026318000', /exactly 29 characters; this one has 28/],
    ['EG too long', NBE, 'EG3800190005000000002631800021', /exactly 29 characters; this one has 30/],
    ['EG with a letter', NBE, 'EG38001900050000000026318000A', /EG followed by 27 digits/],
    ['wrong foreign checksum', NBE, 'DE89370400440532013001', /check digits do not match/],
    ['foreign IBAN too short', NBE, 'DE8937040044', /15 to 34 characters; this one has 12/],
    ['lower-case IBAN (rejected, not normalised)', NBE, 'eg380019000500000000263180002', /capital letters/],
    ['lower-case foreign IBAN', NBE, 'gb82west12345698765432', /capital letters/],
    ['IBAN with spaces', NBE, 'EG38 0019 0005 0000 0000 2631 8000 2', /without spaces/],
    ['IBAN without check digits', NBE, 'EGAB0019000500000000263180002', /two check digits/],
    ['5 digits', NBE, '12345', /6 to 30 digits.*it has 5 digits/],
    ['31 digits', NBE, '1'.repeat(31), /6 to 30 digits.*it has 31 digits/],
    ['digits with a dash', NBE, '123-456-789', /characters other than digits/],
    ['digits with a space', NBE, '123456 789', /characters other than digits/],
    ['empty', NBE, '', /empty/],
    ['wallet: 10 digits', VODAFONE, '0101234567', /11 digits starting with 01/],
    ['wallet: 12 digits', VODAFONE, '010123456789', /11 digits starting with 01/],
    ['wallet: not 01', VODAFONE, '02012345678', /11 digits starting with 01/],
    ['wallet: +20 form', VODAFONE, '+201012345678', /national form 01012345678, without \+20 or 0020/],
    ['wallet: 0020 form', VODAFONE, '00201012345678', /national form 01012345678/],
    ['wallet: spaces', VODAFONE, '010 1234 5678', /national form 01012345678/],
    ['wallet: an IBAN', VODAFONE, 'EG380019000500000000263180002', /Vodafone Cash is a mobile wallet/],
    ['wallet: letters', VODAFONE, 'abc', /international forms/],
  ] as const)('rejects %s', (_name, payeeBank, accountNumber, reason) => {
    const result = checkAccountNumber(payeeBank, accountNumber);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(reason);
  });
});
