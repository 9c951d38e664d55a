import { describe, expect, it } from 'vitest';
import { credentialsSetParameter, HIDDEN, parseHeader, withCredentials, type AuthContext } from './auth.js';

const context: AuthContext = {
  operation: 'listPets',
  method: 'GET',
  path: '/pets',
  security: [{ key: [] }],
  securitySchemes: { key: { type: 'apiKey', in: 'query', name: 'key' } },
};
const request = { method: 'GET', url: 'http://h/pets?limit=1', headers: { Accept: 'application/json' }, body: null };

describe('credentials', () => {
  it('reads --header as typed', () => {
    expect(parseHeader('Authorization: Bearer a:b')).toEqual(['Authorization', 'Bearer a:b']);
    expect(parseHeader('no colon')).toBeUndefined();
    expect(parseHeader(': value')).toBeUndefined();
  });

  it('shows --header values as they were given', async () => {
    const prepared = await withCredentials(
      request,
      { headers: [['X-Api-Key', 'typed-key']], auth: undefined },
      context,
    );
    expect(prepared.sent.headers['X-Api-Key']).toBe('typed-key');
    expect(prepared.shown).toEqual(prepared.sent);
  });

  it('hides what an --auth module adds, in headers and in the query', async () => {
    const auth = {
      prepare: (outgoing: typeof request, given: AuthContext) => ({
        ...outgoing,
        url: `${outgoing.url}&key=secret-${given.operation}`,
        headers: { ...outgoing.headers, Authorization: 'Bearer secret' },
      }),
    };
    const prepared = await withCredentials(request, { headers: [], auth }, context);
    expect(prepared.sent.url).toBe('http://h/pets?limit=1&key=secret-listPets');
    expect(prepared.shown.url).toBe(`http://h/pets?limit=1&key=${HIDDEN}`);
    expect(prepared.shown.headers).toEqual({ Accept: 'application/json', Authorization: HIDDEN });
  });

  it('tells when the credentials set a parameter the checker broke, whatever the letter case', () => {
    const broken = { ...request, headers: { 'X-Timestamp': 'not-a-number' } };
    const header = { in: 'header', name: 'x-timestamp' };
    expect(credentialsSetParameter(broken, { ...broken, headers: { 'x-timestamp': '1700000000' } }, header)).toBe(true);
    expect(
      credentialsSetParameter(
        broken,
        { ...broken, headers: { 'X-Timestamp': 'not-a-number', Authorization: 'Bearer t' } },
        header,
      ),
    ).toBe(false);
    const query = { in: 'query', name: 'limit' };
    expect(credentialsSetParameter(request, { ...request, url: 'http://h/pets?limit=1&key=k' }, query)).toBe(false);
    expect(credentialsSetParameter(request, { ...request, url: 'http://h/pets?limit=5' }, query)).toBe(true);
  });
});
