import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createRequestSigner, signatureMessage, unixSeconds } from './signing.js';

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const privateKeyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
// The public key the service would hold, derived from the private key as onboarding does.
const publicKey = createPublicKey(privateKeyPem);

function verifies(message: string, signature: string): boolean {
  return verify('sha256', Buffer.from(message), publicKey, Buffer.from(signature, 'base64'));
}

describe('signatureMessage', () => {
  it.each([
    ['create', 'POST', '/v1/transfer', '1717000000', 'POST/v1/transfer1717000000'],
    [
      'cancel carries the id',
      'post',
      '/v1/transfer/trf_abc/cancel',
      '1717000000',
      'POST/v1/transfer/trf_abc/cancel1717000000',
    ],
    ['limits PATCH', 'patch', '/v1/card/crd_1/limits', '42', 'PATCH/v1/card/crd_1/limits42'],
  ])('%s', (_name, method, path, timestamp, want) => {
    expect(signatureMessage(method, path, timestamp)).toBe(want);
  });
});

describe('createRequestSigner', () => {
  const signer = createRequestSigner(privateKeyPem);

  it('signs METHOD + path + timestamp, verifiable with the public key (RSASSA-PKCS1-v1_5, SHA-256)', () => {
    const signature = signer.sign('post', '/v1/transfer/trf_1/execute', '1717000000');
    expect(signature).toMatch(/^[A-Za-z0-9+/]+={0,2}$/); // standard Base64, not base64url
    expect(Buffer.from(signature, 'base64')).toHaveLength(256);
    expect(verifies('POST/v1/transfer/trf_1/execute1717000000', signature)).toBe(true);
  });

  it('is deterministic (PKCS#1 v1.5) and bound to every part of the message', () => {
    const signature = signer.sign('POST', '/v1/transfer', '1717000000');
    expect(signer.sign('POST', '/v1/transfer', '1717000000')).toBe(signature);
    expect(verifies('POST/v1/transfer1717000001', signature)).toBe(false);
    expect(verifies('PUT/v1/transfer1717000000', signature)).toBe(false);
    expect(verifies('POST/v1/transfers1717000000', signature)).toBe(false);
  });

  it('accepts a PKCS#1 ("BEGIN RSA PRIVATE KEY") PEM too', () => {
    const pkcs1 = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
    expect(verifies('GET/x1', createRequestSigner(pkcs1).sign('GET', '/x', '1'))).toBe(true);
  });

  it.each([
    ['not a PEM', 'hello', /not a readable private key/],
    ['a public key', publicKey.export({ type: 'spki', format: 'pem' }).toString(), /private key|RSA key/],
    [
      'an EC key',
      generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      /RSA key of at least 2048 bits; this one is ec/,
    ],
    [
      'a short RSA key',
      generateKeyPairSync('rsa', { modulusLength: 1024 })
        .privateKey.export({ type: 'pkcs8', format: 'pem' })
        .toString(),
      /1024 bits/,
    ],
  ])('rejects %s when the client is built', (_name, pem, message) => {
    expect(() => createRequestSigner(pem)).toThrow(message);
  });
});

describe('unixSeconds', () => {
  it.each([
    [0, '0'],
    [1_717_000_000_999, '1717000000'],
    [1_717_000_001_000, '1717000001'],
  ])('%i ms is %s s', (ms, want) => {
    expect(unixSeconds(ms)).toBe(want);
  });
});
