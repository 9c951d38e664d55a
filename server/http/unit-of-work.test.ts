import { describe, expect, it } from 'vitest';
import { requestFingerprint } from './unit-of-work.js';

describe('requestFingerprint', () => {
  it('is the SHA-256 of "METHOD path", a newline and the hex SHA-256 of the body: keys stored before a deploy still match their retries after it', () => {
    expect(requestFingerprint('post', '/v1/transfer', Buffer.from('{"a":1}'))).toBe(
      'ae379d080944b7d9c384cc68bc37cf3982e5f60ced63d743c72f8625f6f93f4b',
    );
    expect(requestFingerprint('POST', '/v1/transfer', new Uint8Array())).toBe(
      requestFingerprint('POST', '/v1/transfer', Buffer.alloc(0)),
    );
    expect(requestFingerprint('POST', '/v1/transfer', Buffer.from('{"a":2}'))).not.toBe(
      requestFingerprint('POST', '/v1/transfer', Buffer.from('{"a":1}')),
    );
    expect(requestFingerprint('POST', '/v1/transfers', Buffer.from('{"a":1}'))).not.toBe(
      requestFingerprint('POST', '/v1/transfer', Buffer.from('{"a":1}')),
    );
  });
});
