import { parse } from 'node:querystring';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { respellQuery } from './reserved-query.js';

describe('respellQuery', () => {
  it.each([
    ['a form-encoded space', 'merchant=uber+egypt', 'merchant=uber%20egypt'],
    ['an apostrophe', "merchant=O'Reilly", 'merchant=O%27Reilly'],
    ['a comma list', 'statuses=SUCCEEDED,DECLINED', 'statuses=SUCCEEDED%2CDECLINED'],
    ['an equals sign in a value', 'a=b=c', 'a=b%3Dc'],
    ['already encoded', 'merchant=caf%C3%A9%2B', 'merchant=caf%C3%A9%2B'],
    ['a plain cursor', 'cursor=eyJ2IjoxfQ.abc_-&limit=5', 'cursor=eyJ2IjoxfQ.abc_-&limit=5'],
    ['a name without a value', 'flag', 'flag'],
    ['nothing', '', ''],
  ])('%s: %s → %s', (_name, query, respelled) => {
    expect(respellQuery(query)).toBe(respelled);
  });

  it('never changes what the query means', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary-ascii', maxLength: 60 }), (query) => {
        const safe = query.replaceAll('#', '').replace(/%(?![0-9A-Fa-f]{2})/g, '%25');
        expect(parse(respellQuery(safe))).toEqual(parse(safe));
      }),
      { numRuns: 500 },
    );
  });
});
