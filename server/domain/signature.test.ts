import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  REQUEST_TIMESTAMP_WINDOW_SECONDS,
  createSignatureVerifier,
  decodeStrictBase64,
  parsePublicKey,
  signatureMessage,
  timestampWithinWindow,
  verifySignature,
} from './signature.js';

function rsaPair(bits: number) {
  return generateKeyPairSync('rsa', { modulusLength: bits });
}

const first = rsaPair(2048);
const second = rsaPair(2048);
const stranger = rsaPair(2048);

function pem(key: KeyObject, type: 'spki' | 'pkcs1' = 'spki'): string {
  return key.export({ type, format: 'pem' }).toString();
}

function parsed(key: KeyObject): KeyObject {
  const result = parsePublicKey(pem(key));
  if (!result.ok) throw new Error(result.reason);
  return result.key;
}

const FIRST = parsed(first.publicKey);
const SECOND = parsed(second.publicKey);
const MESSAGE = signatureMessage('post', '/v1/transfer/trf_abc/cancel?x=1', '1717000000');

function signWith(privateKey: KeyObject, message: string = MESSAGE): string {
  return sign('sha256', Buffer.from(message, 'utf8'), privateKey).toString('base64');
}

const GOOD = signWith(first.privateKey);

function flipByte(b64: string, index: number): string {
  const bytes = Buffer.from(b64, 'base64');
  bytes[index] = (bytes[index] ?? 0) ^ 0x01;
  return bytes.toString('base64');
}

describe('signatureMessage', () => {
  it.each([
    ['POST', '/v1/transfer', '1717000000', 'POST/v1/transfer1717000000'],
    ['post', '/v1/transfer/trf_1/cancel', '1717000000', 'POST/v1/transfer/trf_1/cancel1717000000'],
    ['Put', '/v1/card/crd_1/limits?x=1&y=2', '17', 'PUT/v1/card/crd_1/limits17'],
    ['PATCH', '/v1/card/crd_1/limits?', '0017', 'PATCH/v1/card/crd_1/limits0017'],
  ] as const)('%s %s %s -> %s', (method, path, ts, want) => {
    expect(signatureMessage(method, path, ts)).toBe(want);
  });
});

describe('verifySignature', () => {
  it.each([
    ['a good signature', [FIRST], MESSAGE, GOOD, true],
    ['the second active key', [FIRST, SECOND], MESSAGE, signWith(second.privateKey), true],
    ['the first of two active keys', [SECOND, FIRST], MESSAGE, GOOD, true],
    ['one byte off (first)', [FIRST], MESSAGE, flipByte(GOOD, 0), false],
    ['one byte off (last)', [FIRST], MESSAGE, flipByte(GOOD, 255), false],
    ['another message', [FIRST], `${MESSAGE}1`, GOOD, false],
    ['another key', [FIRST, SECOND], MESSAGE, signWith(stranger.privateKey), false],
    ['no active keys', [], MESSAGE, GOOD, false],
    ['truncated', [FIRST], MESSAGE, GOOD.slice(0, -4), false],
    ['empty', [FIRST], MESSAGE, '', false],
    ['URL-safe alphabet', [FIRST], MESSAGE, GOOD.replace(/\+/g, '-').replace(/\//g, '_'), false],
    ['padding removed', [FIRST], MESSAGE, GOOD.replace(/=+$/, ''), false],
    ['whitespace inside', [FIRST], MESSAGE, `${GOOD.slice(0, 10)} ${GOOD.slice(10)}`, false],
    ['trailing newline', [FIRST], MESSAGE, `${GOOD}\n`, false],
    ['garbage appended', [FIRST], MESSAGE, `${GOOD}!!`, false],
    ['hex instead of Base64', [FIRST], MESSAGE, Buffer.from(GOOD, 'base64').toString('hex'), false],
    [
      'a SHA-1 signature',
      [FIRST],
      MESSAGE,
      sign('sha1', Buffer.from(MESSAGE), first.privateKey).toString('base64'),
      false,
    ],
  ] as const)('%s -> %s', (_name, keys, message, signature, want) => {
    expect(verifySignature(keys, message, signature)).toBe(want);
  });

  it('ignores a key that is not RSA', () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    expect(verifySignature([ec.publicKey, FIRST], MESSAGE, GOOD)).toBe(true);
    expect(verifySignature([ec.publicKey], MESSAGE, GOOD)).toBe(false);
  });
});

describe('decodeStrictBase64', () => {
  it.each([
    ['QQ==', 'A'],
    ['QUI=', 'AB'],
    ['QUJD', 'ABC'],
    ['QR==', null],
    ['QUJ=', null],
    ['QQ', null],
    ['Q===', null],
    ['QQ==QQ==', null],
    ['QU JD', null],
    ['', null],
  ] as const)('%j -> %j', (text, want) => {
    const bytes = decodeStrictBase64(text);
    expect(bytes === null ? null : bytes.toString('latin1')).toBe(want);
  });
});

describe('parsePublicKey', () => {
  it.each([
    ['SPKI 2048', (): string => pem(first.publicKey, 'spki'), true, null],
    ['PKCS#1 2048', (): string => pem(first.publicKey, 'pkcs1'), true, null],
    ['RSA 3072', (): string => pem(rsaPair(3072).publicKey), true, null],
    ['RSA 1024', (): string => pem(rsaPair(1024).publicKey), false, /1024 bits; at least 2048/],
    [
      'EC P-256',
      (): string => pem(generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey),
      false,
      /type ec; an RSA key/,
    ],
    ['Ed25519', (): string => pem(generateKeyPairSync('ed25519').publicKey), false, /type ed25519/],
    [
      'RSA-PSS',
      (): string => pem(generateKeyPairSync('rsa-pss', { modulusLength: 2048 }).publicKey),
      false,
      /type rsa-pss/,
    ],
    [
      'a private key',
      (): string => first.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      false,
      /private key/,
    ],
    [
      'a PKCS#1 private key',
      (): string => first.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
      false,
      /private key/,
    ],
    ['garbage', (): string => 'not a key', false, /not a readable PEM/],
    ['empty', (): string => '', false, /not a readable PEM/],
  ] as const)('%s', (_name, make, ok, reason) => {
    const result = parsePublicKey(make());
    expect(result.ok).toBe(ok);
    if (!result.ok && reason !== null) expect(result.reason).toMatch(reason);
  });

  it('gives a key that verifies', () => {
    expect(verifySignature([parsed(first.publicKey)], MESSAGE, GOOD)).toBe(true);
  });
});

describe('timestampWithinWindow', () => {
  const NOW_S = 1_717_000_000;
  const NOW_MS = NOW_S * 1000;

  it('is 300 seconds', () => {
    expect(REQUEST_TIMESTAMP_WINDOW_SECONDS).toBe(300);
  });

  it.each([
    ['now', NOW_S, NOW_MS, true],
    ['300 s old', NOW_S - 300, NOW_MS, true],
    ['300 s ahead', NOW_S + 300, NOW_MS, true],
    ['301 s old', NOW_S - 301, NOW_MS, false],
    ['301 s ahead', NOW_S + 301, NOW_MS, false],
    ['300.001 s old (clock in ms)', NOW_S - 300, NOW_MS + 1, false],
    ['299.999 s ahead', NOW_S + 300, NOW_MS + 1, true],
    ['zero', 0, NOW_MS, false],
    ['milliseconds sent by mistake', NOW_MS, NOW_MS, false],
    ['fractional seconds', NOW_S + 0.5, NOW_MS, false],
    ['NaN', Number.NaN, NOW_MS, false],
    ['Infinity', Number.POSITIVE_INFINITY, NOW_MS, false],
  ] as const)('%s -> %s', (_name, ts, now, want) => {
    expect(timestampWithinWindow(ts, now)).toBe(want);
  });

  it.each([
    [60, NOW_S - 60, true],
    [60, NOW_S - 61, false],
  ] as const)('honours a window of %i s (%i -> %s)', (window, ts, want) => {
    expect(timestampWithinWindow(ts, NOW_MS, window)).toBe(want);
  });
});

describe('createSignatureVerifier', () => {
  const counting = () => {
    let calls = 0;
    const verify = (keys: readonly KeyObject[], message: string, signature: string): boolean => {
      calls += 1;
      return verifySignature(keys, message, signature);
    };
    return { verify, calls: () => calls };
  };

  it('verifies a repeated signature once per key set, and never remembers a rejection', () => {
    const once = counting();
    const verify = createSignatureVerifier(once.verify);
    const keys = [FIRST];
    expect(verify(keys, MESSAGE, GOOD)).toBe(true);
    expect(verify(keys, MESSAGE, GOOD)).toBe(true);
    expect(once.calls()).toBe(1);
    // The same keys loaded again (a new array) are verified again.
    expect(verify([FIRST], MESSAGE, GOOD)).toBe(true);
    expect(once.calls()).toBe(2);
    // A key set without the signing key rejects it, however often the signature verified before.
    expect(verify([SECOND], MESSAGE, GOOD)).toBe(false);
    // Another message, or a signature one byte off, is verified (and rejected) each time.
    const other = signatureMessage('POST', '/v1/transfer', '1717000001');
    expect(verify(keys, other, GOOD)).toBe(false);
    expect(verify(keys, other, GOOD)).toBe(false);
    expect(verify(keys, MESSAGE, flipByte(GOOD, 5))).toBe(false);
    expect(verify(keys, MESSAGE, flipByte(GOOD, 5))).toBe(false);
    expect(once.calls()).toBe(7);
  });

  it('forgets the oldest signature beyond its bound', () => {
    const once = counting();
    const verify = createSignatureVerifier(once.verify, 2);
    const keys = [FIRST];
    const messages = ['1', '2', '3'].map((second) => signatureMessage('POST', '/v1/transfer', second));
    for (const message of messages) expect(verify(keys, message, signWith(first.privateKey, message))).toBe(true);
    expect(once.calls()).toBe(3);
    // The two newest are remembered; the first is verified again.
    expect(verify(keys, messages[2] ?? '', signWith(first.privateKey, messages[2]))).toBe(true);
    expect(once.calls()).toBe(3);
    expect(verify(keys, messages[0] ?? '', signWith(first.privateKey, messages[0]))).toBe(true);
    expect(once.calls()).toBe(4);
  });
});
