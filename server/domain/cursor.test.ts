import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MAX_CURSOR_LENGTH, bindingOf, createCursorCodec, type CursorPosition } from './cursor.js';

const SECRET = 'cursor-test-secret-0123456789abcdef';
const codec = createCursorCodec(SECRET);
const BINDING = bindingOf({ status: 'PENDING', minAmountCents: 100 }, 10);
const POSITION: CursorPosition = { sort: 1_717_000_000_123, id: 'trf_0123456789abcdefghijklmn' };
const CURSOR = codec.encode(POSITION, BINDING);

function b64url(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}

/** A cursor signed with the right secret, around an arbitrary payload text. */
function forge(json: string, secret: string = SECRET): string {
  const payload = b64url(json);
  return `${payload}.${createHmac('sha256', secret).update(payload).digest('base64url')}`;
}

function flip(text: string, index: number): string {
  const c = text[index];
  return text.slice(0, index) + (c === 'A' ? 'B' : 'A') + text.slice(index + 1);
}

const [PAYLOAD = '', MAC = ''] = CURSOR.split('.');
const BINDING_HASH = JSON.parse(Buffer.from(PAYLOAD, 'base64url').toString('utf8')).b as string;

describe('cursor round trip', () => {
  it.each([
    [{ sort: 0, id: 'a' }],
    [{ sort: 1_717_000_000_123, id: 'crd_abc' }],
    [{ sort: -5, id: 'txn_x' }],
    [{ sort: Number.MAX_SAFE_INTEGER, id: 'x'.repeat(64) }],
    [{ sort: 99_999_999_999, id: 'trf_A-b_C' }],
  ] as const)('decodes what it encoded: %j', (position) => {
    const cursor = codec.encode(position, BINDING);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(cursor.length).toBeLessThanOrEqual(MAX_CURSOR_LENGTH);
    expect(codec.decode(cursor, BINDING)).toEqual(position);
  });

  it('works with a byte secret too', () => {
    const bytes = new Uint8Array(32).fill(7);
    const c = createCursorCodec(bytes);
    expect(c.decode(c.encode(POSITION, BINDING), BINDING)).toEqual(POSITION);
  });

  it.each([
    ['a non-integer sort', { sort: 1.5, id: 'a' }],
    ['an unsafe sort', { sort: 2 ** 53, id: 'a' }],
    ['an empty id', { sort: 1, id: '' }],
    ['an id with a slash', { sort: 1, id: 'a/b' }],
    ['a long id', { sort: 1, id: 'x'.repeat(65) }],
  ] as const)('refuses to encode %s', (_name, position) => {
    expect(() => codec.encode(position, BINDING)).toThrow(RangeError);
  });

  it.each([[''], ['short'], [new Uint8Array(15)]])('rejects a weak secret %#', (secret) => {
    expect(() => createCursorCodec(secret)).toThrow(/at least 16 bytes/);
  });
});

describe('cursor tampering', () => {
  it.each([
    ['empty', ''],
    ['payload only', PAYLOAD],
    ['no payload', `.${MAC}`],
    ['no MAC', `${PAYLOAD}.`],
    ['three parts', `${CURSOR}.${MAC}`],
    ['one payload character flipped (first)', `${flip(PAYLOAD, 0)}.${MAC}`],
    ['one payload character flipped (middle)', `${flip(PAYLOAD, 20)}.${MAC}`],
    ['one payload character flipped (last)', `${flip(PAYLOAD, PAYLOAD.length - 1)}.${MAC}`],
    ['one MAC character flipped (first)', `${PAYLOAD}.${flip(MAC, 0)}`],
    ['one MAC character flipped (last)', `${PAYLOAD}.${flip(MAC, MAC.length - 1)}`],
    ['MAC truncated', `${PAYLOAD}.${MAC.slice(0, -1)}`],
    ['MAC truncated to 16 bytes', `${PAYLOAD}.${MAC.slice(0, 22)}`],
    ['payload truncated', `${PAYLOAD.slice(0, -4)}.${MAC}`],
    ['whole cursor truncated', CURSOR.slice(0, -1)],
    ['padding added', `${PAYLOAD}==.${MAC}`],
    ['standard base64 characters', `${PAYLOAD}+/.${MAC}`],
    ['not base64 at all', '!!!!.????'],
    ['spaces', ` ${CURSOR}`],
    ['oversize', `${'A'.repeat(MAX_CURSOR_LENGTH)}.${MAC}`],
    ['payload and MAC swapped', `${MAC}.${PAYLOAD}`],
    ['signed with another secret', createCursorCodec('another-secret-0123456789abcdef').encode(POSITION, BINDING)],
  ] as const)('rejects %s', (_name, cursor) => {
    expect(codec.decode(cursor, BINDING)).toBeNull();
  });

  it.each([
    ['another filter value', bindingOf({ status: 'SUCCEEDED', minAmountCents: 100 }, 10)],
    ['a filter removed', bindingOf({ status: 'PENDING' }, 10)],
    ['a filter added', bindingOf({ status: 'PENDING', minAmountCents: 100, maxAmountCents: 500 }, 10)],
    ['another limit', bindingOf({ status: 'PENDING', minAmountCents: 100 }, 11)],
    ['a number sent as a string', bindingOf({ status: 'PENDING', minAmountCents: '100' }, 10)],
  ] as const)('rejects a valid cursor sent with %s', (_name, binding) => {
    expect(codec.decode(CURSOR, binding)).toBeNull();
  });

  it.each([
    ['version 2', `{"v":2,"s":1,"i":"a","b":"${BINDING_HASH}"}`],
    ['version as text', `{"v":"1","s":1,"i":"a","b":"${BINDING_HASH}"}`],
    ['no version', `{"s":1,"i":"a","b":"${BINDING_HASH}"}`],
    ['fractional sort', `{"v":1,"s":1.5,"i":"a","b":"${BINDING_HASH}"}`],
    ['sort as text', `{"v":1,"s":"1","i":"a","b":"${BINDING_HASH}"}`],
    ['bad id', `{"v":1,"s":1,"i":"a b","b":"${BINDING_HASH}"}`],
    ['extra field', `{"v":1,"s":1,"i":"a","b":"${BINDING_HASH}","x":1}`],
    ['raw binding instead of its hash', `{"v":1,"s":1,"i":"a","b":"${BINDING}"}`],
    ['an array', '[1,1,"a"]'],
    ['not JSON', 'v=1&s=1'],
  ] as const)('rejects a correctly signed payload with %s', (_name, json) => {
    expect(codec.decode(forge(json), BINDING)).toBeNull();
  });

  it('accepts a correctly signed well-formed payload (the forge helper is sound)', () => {
    expect(codec.decode(forge(`{"v":1,"s":1,"i":"a","b":"${BINDING_HASH}"}`), BINDING)).toEqual({ sort: 1, id: 'a' });
  });
});

describe('bindingOf', () => {
  it.each([
    ['key order', { a: 1, b: 'x' }, { b: 'x', a: 1 }, 10, 10, true],
    ['undefined dropped', { a: 1, b: undefined }, { a: 1 }, 10, 10, true],
    ['null kept', { a: 1, b: null }, { a: 1 }, 10, 10, false],
    ['array order kept', { s: ['A', 'B'] }, { s: ['B', 'A'] }, 10, 10, false],
    ['limit counts', { a: 1 }, { a: 1 }, 10, 20, false],
    ['number vs string', { a: 1 }, { a: '1' }, 10, 10, false],
    ['empty', {}, {}, 10, 10, true],
  ] as const)('%s', (_name, f1, f2, l1, l2, same) => {
    expect(bindingOf(f1, l1) === bindingOf(f2, l2)).toBe(same);
  });

  it('is SHA-256 in base64url', () => {
    expect(bindingOf({ a: 1 }, 10)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it.each([
    ['a bigint', { a: 1n }],
    ['NaN', { a: Number.NaN }],
    ['a function', { a: () => 1 }],
  ] as const)('throws on %s', (_name, filters) => {
    expect(() => bindingOf(filters, 10)).toThrow(TypeError);
  });
});
