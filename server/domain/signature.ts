/**
 * Request signatures of the write operations (the document's "Signed write requests" section).
 *
 * Message: upper-case HTTP method + request path without the query string + the text of the
 * `X-Partner-Request-Timestamp` header, no separators (`POST/v1/transfer1717000000`).
 * Signature: RSASSA-PKCS1-v1_5 with SHA-256 over the UTF-8 message, sent in standard Base64.
 * Keys: RSA of at least 2048 bits; a client may hold two active keys, so that it can rotate
 * without downtime, and a signature is good when any active key verifies it.
 */
import { constants, createPublicKey, verify, type KeyObject } from 'node:crypto';
import { decodeCanonical } from './base64.js';

/** 300 s: the 5-minute window, applied in both directions (the X-Partner-Request-Timestamp parameter). */
export const REQUEST_TIMESTAMP_WINDOW_SECONDS = 300;

/** RSA keys of at least 2048 bits (NIST SP 800-57: 112-bit security). */
export const MIN_RSA_MODULUS_BITS = 2048;

/**
 * The longest Base64 text accepted: the signature of a 16384-bit key (2048 bytes) is 2732
 * characters. Anything longer is rejected before decoding.
 */
const MAX_SIGNATURE_BASE64_LENGTH = 2732;

export function signatureMessage(method: string, path: string, timestampText: string): string {
  const queryStart = path.indexOf('?');
  const pathOnly = queryStart === -1 ? path : path.slice(0, queryStart);
  return `${method.toUpperCase()}${pathOnly}${timestampText}`;
}

export type ParsedPublicKey = { ok: true; key: KeyObject } | { ok: false; reason: string };

/**
 * Reads a partner's public key (PEM: `BEGIN PUBLIC KEY` SPKI or `BEGIN RSA PUBLIC KEY` PKCS#1).
 * A private key is rejected even though a public key could be derived from it: the service
 * keeps only public keys, and a partner who sends a private key should be told so.
 */
export function parsePublicKey(pem: string): ParsedPublicKey {
  if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(pem)) {
    return {
      ok: false,
      reason:
        'This is a private key. Send only the public key (PEM "BEGIN PUBLIC KEY") and keep the private key secret.',
    };
  }
  let key: KeyObject;
  try {
    key = createPublicKey({ key: pem, format: 'pem' });
  } catch {
    return {
      ok: false,
      reason: 'The public key is not a readable PEM public key (expected "-----BEGIN PUBLIC KEY-----").',
    };
  }
  if (key.asymmetricKeyType !== 'rsa') {
    return {
      ok: false,
      reason: `The public key is of type ${key.asymmetricKeyType ?? 'unknown'}; an RSA key (RSASSA-PKCS1-v1_5) is required.`,
    };
  }
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < MIN_RSA_MODULUS_BITS) {
    return { ok: false, reason: `The RSA key has ${bits} bits; at least ${MIN_RSA_MODULUS_BITS} bits are required.` };
  }
  const exponent = key.asymmetricKeyDetails?.publicExponent ?? 0n;
  if (exponent < 3n || exponent % 2n === 0n) {
    return { ok: false, reason: 'The RSA public exponent must be odd and at least 3 (65537 is usual).' };
  }
  return { ok: true, key };
}

/**
 * Decodes the signature header's standard Base64 strictly (decodeCanonical), rejecting anything
 * longer than the largest key's signature before decoding.
 */
export function decodeStrictBase64(text: string): Buffer | null {
  if (text.length > MAX_SIGNATURE_BASE64_LENGTH) return null;
  return decodeCanonical(text, 'base64');
}

/** True when any of the keys verifies the signature of the message. */
export function verifySignature(keys: readonly KeyObject[], message: string, signatureB64: string): boolean {
  const signature = decodeStrictBase64(signatureB64);
  if (signature === null) return false;
  const data = Buffer.from(message, 'utf8');
  return keys.some((key) => {
    try {
      return verify('sha256', data, { key, padding: constants.RSA_PKCS1_PADDING }, signature);
    } catch {
      // A key that is not RSA, or a signature of the wrong length for this key.
      return false;
    }
  });
}

export type SignatureVerifier = (keys: readonly KeyObject[], message: string, signatureB64: string) => boolean;

/** Signatures a verifier remembers per key set; the oldest is forgotten first. */
const REMEMBERED_SIGNATURES = 256;

/**
 * verifySignature that remembers the signatures it has verified. RSASSA-PKCS1-v1_5 is
 * deterministic and the message is the method, the path and the second, so a client's writes to
 * one path within one second carry the same signature: each repeat costs a lookup instead of an
 * RSA verification (about a tenth of a signed create's CPU). Only signatures that verified are
 * remembered, and per key set: the array of keys, which the public key cache replaces whenever it
 * loads a client's keys again, so a key taken away stops verifying as soon as it would without
 * this. The timestamp window is checked before, on every request.
 */
export function createSignatureVerifier(
  verifyOnce: SignatureVerifier = verifySignature,
  remembered: number = REMEMBERED_SIGNATURES,
): SignatureVerifier {
  const verified = new WeakMap<readonly KeyObject[], Set<string>>();
  return (keys, message, signatureB64) => {
    const entry = `${message} ${signatureB64}`;
    let known = verified.get(keys);
    if (known?.has(entry) === true) return true;
    if (!verifyOnce(keys, message, signatureB64)) return false;
    if (known === undefined) {
      known = new Set();
      verified.set(keys, known);
    }
    if (known.size >= remembered) known.delete(known.values().next().value as string);
    known.add(entry);
    return true;
  };
}

/**
 * A timestamp more than `windowSeconds` older or newer than the server's clock
 * is rejected; exactly `windowSeconds` away is still accepted.
 */
export function timestampWithinWindow(
  timestampSeconds: number,
  nowMs: number,
  windowSeconds: number = REQUEST_TIMESTAMP_WINDOW_SECONDS,
): boolean {
  if (!Number.isSafeInteger(timestampSeconds) || !Number.isFinite(nowMs)) return false;
  return Math.abs(timestampSeconds * 1000 - nowMs) <= windowSeconds * 1000;
}
