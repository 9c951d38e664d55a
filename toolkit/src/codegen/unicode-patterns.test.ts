import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { unicodePattern } from './unicode-patterns.js';

describe('unicodePattern', () => {
  it.each([
    ['^[a-z]{2,}$', '^[a-z]{2,}$'],
    ['^\\p{L}+$', '^\\p{L}+$'],
    ['^[\\w-.]+$', '^[\\w\\-.]+$'],
    ['^[.-\\d]$', '^[.\\-\\d]$'],
    ['^\\d{3}\\-\\d{4}$', '^\\d{3}-\\d{4}$'],
    ['^\\_\\@\\ \\"\\\'\\#$', '^_@ "\'#$'],
    ['^[\\_\\-\\@]+$', '^[_\\-@]+$'],
    ['^a{$', '^a\\{$'],
    ['^{x}$', '^\\{x\\}$'],
    ['^a]$', '^a\\]$'],
    ['^a{1,2}}$', '^a{1,2}\\}$'],
    ['^\\e$', '^e$'],
    ['^[^\\]]\\.\\/$', '^[^\\]]\\.\\/$'],
  ])('%s compiles with the u flag as %s', (pattern, read) => {
    expect(unicodePattern(pattern)).toBe(read);
    expect(() => new RegExp(read, 'u')).not.toThrow();
  });

  it.each([
    ['what compiles in neither mode', '^(a$'],
    ['a quantified lookahead, which the u flag rejects', '^(?=a)*$'],
    ['a letter escape that means something else under the u flag', '^\\p{L$'],
  ])('gives none for %s', (_name, pattern) => {
    expect(unicodePattern(pattern)).toBeUndefined();
  });

  it('matches what the pattern matches without the flag', () => {
    const patterns = [
      '^[\\w-.]+$',
      '^\\d{3}\\-\\d{4}$',
      '^[\\_\\-\\@]+$',
      '^a{$',
      '^{x}$',
      '^a]$',
      '^[.-\\d]+x{1,2}}?$',
    ];
    const text = fc.string({ unit: fc.constantFrom(...'ax_-.@{}]3 \\'), maxLength: 10 });
    for (const pattern of patterns) {
      const read = new RegExp(unicodePattern(pattern) ?? '(?!)', 'u');
      const written = new RegExp(pattern);
      fc.assert(
        fc.property(text, (value) => read.test(value) === written.test(value)),
        { examples: [['a{'], ['{x}'], ['a]'], ['123-4567'], ['_-@'], ['.3-x}']] },
      );
    }
  });
});
