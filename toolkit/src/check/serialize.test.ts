import { describe, expect, it } from 'vitest';
import type { ParameterSpec } from './document.js';
import { clientEncode, clientWireText, cookiePair, formBody, headerText, pathText, queryPairs } from './serialize.js';

/** The OpenAPI specification's own style examples: `color` as a string, a list and an object. */
const parameter = (location: ParameterSpec['in'], style: string, explode: boolean): ParameterSpec => ({
  name: 'color',
  in: location,
  required: true,
  style,
  explode,
  allowReserved: false,
  allowEmptyValue: false,
  schemaPointer: undefined,
  contentType: undefined,
  examples: [],
  pointer: '#',
});
const primitive = 'blue';
const list = ['blue', 'black', 'brown'];
const object = { R: 100, G: 200, B: 150 };

describe('parameter styles (OpenAPI 3.1, Style Examples)', () => {
  it.each<[string, boolean, unknown, string]>([
    ['simple', false, primitive, 'blue'],
    ['simple', false, list, 'blue,black,brown'],
    ['simple', false, object, 'R,100,G,200,B,150'],
    ['simple', true, object, 'R=100,G=200,B=150'],
    ['label', false, primitive, '.blue'],
    ['label', false, list, '.blue,black,brown'],
    ['label', true, list, '.blue.black.brown'],
    ['label', true, object, '.R=100.G=200.B=150'],
    ['matrix', false, primitive, ';color=blue'],
    ['matrix', false, list, ';color=blue,black,brown'],
    ['matrix', true, list, ';color=blue;color=black;color=brown'],
    ['matrix', false, object, ';color=R,100,G,200,B,150'],
    ['matrix', true, object, ';R=100;G=200;B=150'],
  ])('path %s explode=%s %j', (style, explode, value, want) => {
    expect(pathText(parameter('path', style, explode), value)).toBe(want);
  });

  it.each<[string, boolean, unknown, string[]]>([
    ['form', true, primitive, ['color=blue']],
    ['form', false, list, ['color=blue,black,brown']],
    ['form', true, list, ['color=blue', 'color=black', 'color=brown']],
    ['form', false, object, ['color=R,100,G,200,B,150']],
    ['form', true, object, ['R=100', 'G=200', 'B=150']],
    ['spaceDelimited', false, list, ['color=blue%20black%20brown']],
    ['pipeDelimited', false, list, ['color=blue|black|brown']],
    ['deepObject', true, object, ['color[R]=100', 'color[G]=200', 'color[B]=150']],
  ])('query %s explode=%s %j', (style, explode, value, want) => {
    expect(queryPairs(parameter('query', style, explode), value)).toEqual(want);
  });

  it('percent-encodes what a value holds', () => {
    expect(pathText(parameter('path', 'simple', false), 'a/b c')).toBe('a%2Fb%20c');
    expect(queryPairs(parameter('query', 'form', true), 'x&y=z')).toEqual(['color=x%26y%3Dz']);
  });

  it('writes headers, cookies and form bodies', () => {
    expect(headerText(parameter('header', 'simple', false), list)).toBe('blue,black,brown');
    expect(headerText(parameter('header', 'simple', true), object)).toBe('R=100,G=200,B=150');
    expect(cookiePair(parameter('cookie', 'form', false), 'a b;c')).toBe('color=a%20b%3Bc');
    expect(formBody({ name: 'a b', tags: ['x', 'y'], meta: { k: 1 } })).toBe(
      'name=a%20b&tags=x&tags=y&meta=%7B%22k%22%3A1%7D',
    );
  });

  it('writes a parameter with JSON content as JSON', () => {
    const json = { ...parameter('query', 'form', true), contentType: 'application/json' };
    expect(queryPairs(json, { a: [1] })).toEqual(['color=%7B%22a%22%3A%5B1%5D%7D']);
  });
});

describe('clientWireText', () => {
  it('percent-encodes as encodeURIComponent does, lists comma-joined', () => {
    expect(clientWireText("McDonald's (Zamalek)!")).toBe("McDonald's%20(Zamalek)!");
    expect(clientWireText(['a,b', 'é'])).toBe('a%2Cb,%C3%A9');
    expect(clientWireText(12)).toBe('12');
  });
  it('sends a lone surrogate as U+FFFD', () => {
    expect(clientEncode('\ud800x')).toBe('%EF%BF%BDx');
  });
});
