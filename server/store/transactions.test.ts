import { describe, expect, it } from 'vitest';
import { containsPattern } from './transactions.js';

describe('containsPattern', () => {
  it.each([
    ['talabat', '%talabat%'],
    ['50%', '%50\\%%'],
    ['a_b', '%a\\_b%'],
    ['back\\slash', '%back\\\\slash%'],
    ['%_\\', '%\\%\\_\\\\%'],
  ])('matches %j literally anywhere', (text, pattern) => {
    expect(containsPattern(text)).toBe(pattern);
  });
});
