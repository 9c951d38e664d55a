import { describe, expect, it } from 'vitest';
import { BANKS, bankSortKey, findBank } from './banks.js';

describe('bank list', () => {
  it('has unique ids', () => {
    const ids = BANKS.map((b) => b.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('has unique names', () => {
    const names = BANKS.map((b) => b.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it('holds about 35 banks and the mobile wallets', () => {
    expect(BANKS.filter((b) => b.kind === 'bank').length).toBeGreaterThanOrEqual(30);
    expect(BANKS.filter((b) => b.kind === 'wallet').length).toBeGreaterThanOrEqual(4);
  });

  it.each(BANKS.map((b) => [b.id, b] as const))('%s is well formed', (_id, bank) => {
    expect(bank.id).toMatch(/^[a-z0-9-]{1,50}$/);
    expect(bank.id).not.toMatch(/^-|-$|--/);
    expect(bank.name.trim()).toBe(bank.name);
    expect(bank.name.length).toBeGreaterThan(0);
    expect(bank.shortName.trim()).toBe(bank.shortName);
    expect(bank.shortName.length).toBeGreaterThan(0);
    expect(['bank', 'wallet']).toContain(bank.kind);
  });

  it.each([
    ['nbe', 'bank'],
    ['banque-misr', 'bank'],
    ['cib', 'bank'],
    ['qnb-alahli', 'bank'],
    ['vodafone-cash', 'wallet'],
    ['orange-cash', 'wallet'],
    ['etisalat-cash', 'wallet'],
    ['we-pay', 'wallet'],
  ] as const)('findBank(%j) is a %s', (id, kind) => {
    expect(findBank(id)?.kind).toBe(kind);
  });

  it.each([['NBE'], [''], ['unknown-bank'], ['toString'], ['__proto__']])('findBank(%j) is undefined', (id) => {
    expect(findBank(id)).toBeUndefined();
  });

  it('is sorted by name, accents ignored', () => {
    const keys = BANKS.map((b) => bankSortKey(b.name));
    const sorted = [...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect(keys).toEqual(sorted);
  });

  it.each([
    ['Crédit Agricole Egypt', 'credit agricole egypt'],
    ['Société Arabe Internationale de Banque', 'societe arabe internationale de banque'],
    ['MIDBANK', 'midbank'],
  ] as const)('sort key of %j is %j', (name, key) => {
    expect(bankSortKey(name)).toBe(key);
  });

  it('cannot be changed at run time', () => {
    expect(Object.isFrozen(BANKS)).toBe(true);
    expect(BANKS.every((b) => Object.isFrozen(b))).toBe(true);
  });
});
