import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { HIDDEN } from './auth.js';
import type { OutgoingRequest } from './cases.js';
import type { SecuritySchemeSpec } from './document.js';
import {
  changeCount,
  credentialAt,
  EXPIRED_AT,
  oneCharacterChanged,
  withChange,
  withCredentialAt,
  wrongCredentialChanges,
} from './wrong-credentials.js';

const SCHEMES: Readonly<Record<string, SecuritySchemeSpec>> = {
  bearer: { type: 'http', scheme: 'bearer' },
  basic: { type: 'http', scheme: 'basic' },
  oauth: { type: 'oauth2' },
  headerKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
  queryKey: { type: 'apiKey', in: 'query', name: 'api_key' },
  cookieKey: { type: 'apiKey', in: 'cookie', name: 'session' },
  tls: { type: 'mutualTLS' },
};

const before: OutgoingRequest = {
  method: 'GET',
  url: 'http://h/pets?limit=1&tag=a%20b',
  headers: { Accept: 'application/json', Cookie: 'theme=dark' },
  body: null,
};
const withHeaders = (headers: Record<string, string>, url = before.url): OutgoingRequest => ({
  ...before,
  url,
  headers: { ...before.headers, ...headers },
});

const base64url = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
function jwt(claims: Record<string, unknown>): string {
  const signed = `${base64url({ alg: 'HS256', typ: 'JWT' })}.${base64url(claims)}`;
  return `${signed}.${createHmac('sha256', 'k').update(signed).digest('base64url')}`;
}
const claimsOf = (authorization: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(authorization.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;

describe('one character changed', () => {
  it.each<[string, string]>([
    ['abcdef', 'abddef'],
    ['key-9', 'kez-9'],
    ['AZ', 'BZ'],
    ['a', 'b'],
    ['---', '-x-'],
    ['', 'x'],
  ])('%s → %s', (text, changed) => {
    expect(oneCharacterChanged(text)).toBe(changed);
  });

  it('changes exactly one character, keeping the length', () => {
    for (const text of ['library-key-1', 'eyJhbGciOiJIUzI1NiJ9', 'c2VjcmV0', 'z', '9z9']) {
      const changed = oneCharacterChanged(text);
      expect(changed).toHaveLength(text.length);
      expect([...changed].filter((char, i) => char !== text[i])).toHaveLength(1);
    }
  });
});

describe('where a credential travels', () => {
  it('reads and writes a header, a query parameter and a cookie, leaving the rest as written', () => {
    const request = withHeaders({ 'x-api-key': 'k1', Cookie: 'theme=dark; session=s1' }, `${before.url}&api_key=q%2B1`);
    expect(credentialAt(request, { in: 'header', name: 'X-Api-Key' })).toBe('k1');
    expect(credentialAt(request, { in: 'query', name: 'api_key' })).toBe('q+1');
    expect(credentialAt(request, { in: 'cookie', name: 'session' })).toBe('s1');
    expect(credentialAt(request, { in: 'cookie', name: 'theme' })).toBe('dark');
    expect(credentialAt(before, { in: 'query', name: 'api_key' })).toBeUndefined();

    expect(withCredentialAt(request, { in: 'header', name: 'X-Api-Key' }, 'k2').headers).toEqual({
      ...request.headers,
      'x-api-key': 'k2',
    });
    expect(withCredentialAt(request, { in: 'query', name: 'api_key' }, 'q 2').url).toBe(
      'http://h/pets?limit=1&tag=a%20b&api_key=q%202',
    );
    expect(withCredentialAt(request, { in: 'cookie', name: 'session' }, 's2').headers['Cookie']).toBe(
      'theme=dark; session=s2',
    );
  });

  it('counts the ways each kind of scheme can be made wrong', () => {
    expect(Object.fromEntries(Object.entries(SCHEMES).map(([name, scheme]) => [name, changeCount(scheme)]))).toEqual({
      bearer: 2,
      basic: 2,
      oauth: 2,
      headerKey: 1,
      queryKey: 1,
      cookieKey: 1,
      tls: 0,
    });
  });
});

describe('wrong credentials', () => {
  const changes = (sent: OutgoingRequest, security: Record<string, string[]>[]) =>
    wrongCredentialChanges(before, sent, security, SCHEMES);

  it('changes an opaque bearer token by one character', () => {
    const found = changes(withHeaders({ Authorization: 'Bearer opaque-token-1' }), [{ bearer: [] }]);
    expect(found.map((change) => [change.change, change.value])).toEqual([
      ['token with one character changed', 'Bearer opaque-uoken-1'],
    ]);
  });

  it('changes a JWT in its signature, and makes one expired', () => {
    const token = jwt({ sub: 'u1', exp: 4_102_444_800 });
    const found = changes(withHeaders({ Authorization: `Bearer ${token}` }), [{ oauth: ['read'] }]);
    expect(found.map((change) => change.change)).toEqual([
      'token with one character of its signature changed',
      'token whose exp is in the past',
    ]);
    const [signature, expired] = found.map((change) => change.value);
    expect(signature?.split('.').slice(0, 2)).toEqual(`Bearer ${token}`.split('.').slice(0, 2));
    expect(signature).not.toBe(`Bearer ${token}`);
    expect(claimsOf(expired ?? '')).toEqual({ sub: 'u1', exp: EXPIRED_AT });
    expect(EXPIRED_AT * 1000).toBeLessThan(Date.now());
  });

  it('changes a Basic password, and names an unknown user', () => {
    const authorization = `Basic ${Buffer.from('ana:s3cret:x').toString('base64')}`;
    const found = changes(withHeaders({ authorization }), [{ basic: [] }]);
    const decoded = found.map((change) => Buffer.from(change.value.slice('Basic '.length), 'base64').toString());
    expect(found.map((change) => change.change)).toEqual(['password with one character changed', 'unknown user name']);
    expect(decoded).toEqual(['ana:s3cset:x', 'unknown-ana:s3cret:x']);
  });

  it('changes an API key in a header, a query parameter or a cookie', () => {
    expect(changes(withHeaders({ 'X-Api-Key': 'key-1' }), [{ headerKey: [] }]).map((c) => c.value)).toEqual(['kez-1']);
    expect(changes(withHeaders({}, `${before.url}&api_key=abc`), [{ queryKey: [] }]).map((c) => c.value)).toEqual([
      'acc',
    ]);
    expect(
      changes(withHeaders({ Cookie: 'theme=dark; session=s1' }), [{ cookieKey: [] }]).map((c) => [c.place, c.value]),
    ).toEqual([[{ in: 'cookie', name: 'session' }, 't1']]);
  });

  it('changes only what the run gave, of the scheme the header names', () => {
    // The checker's own cookie, not a credential given.
    expect(changes(withHeaders({}), [{ cookieKey: [] }])).toEqual([]);
    expect(
      wrongCredentialChanges(
        withHeaders({ Cookie: 'session=mine' }),
        withHeaders({ Cookie: 'session=mine' }),
        [{ cookieKey: [] }],
        SCHEMES,
      ),
    ).toEqual([]);
    // A Bearer header is no Basic credential.
    expect(changes(withHeaders({ Authorization: 'Bearer t' }), [{ basic: [] }])).toEqual([]);
    expect(changes(withHeaders({}), [{ tls: [] }])).toEqual([]);
  });

  it('leaves alone a credential whose alternative another credential still satisfies', () => {
    const sent = withHeaders({ Authorization: 'Bearer token-1', 'X-Api-Key': 'key-1' });
    // Either one lets the request through: changing one of them proves nothing.
    expect(changes(sent, [{ bearer: [] }, { headerKey: [] }])).toEqual([]);
    // Both are needed: changing either one must be rejected.
    expect(changes(sent, [{ bearer: [], headerKey: [] }]).map((change) => change.scheme)).toEqual([
      'bearer',
      'headerKey',
    ]);
    // The other alternative's credential was not given.
    expect(changes(withHeaders({ Authorization: 'Bearer token-1' }), [{ bearer: [] }, { headerKey: [] }])).toHaveLength(
      1,
    );
  });

  it('shows the changed credential where it shows the credential as given, and hides it where it hides it', () => {
    const [change] = changes(withHeaders({ 'X-Api-Key': 'key-1' }), [{ headerKey: [] }]);
    if (change === undefined) throw new Error('a change');
    const typed = withHeaders({ 'X-Api-Key': 'key-1' });
    expect(withChange({ sent: typed, shown: typed }, change).shown.headers['X-Api-Key']).toBe('kez-1');
    const hidden = withHeaders({ 'X-Api-Key': HIDDEN });
    const prepared = withChange({ sent: typed, shown: hidden }, change);
    expect(prepared.sent.headers['X-Api-Key']).toBe('kez-1');
    expect(prepared.shown.headers['X-Api-Key']).toBe(HIDDEN);
  });
});
