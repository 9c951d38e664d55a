import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Repeated failed client authentication: more than 10 a minute for one client id gets 429
 * (the token endpoint's description in the document says so). The window is also how long the
 * settlement worker keeps a failure count before purging it.
 */
export const AUTH_FAILURE_LIMIT = 10;
export const AUTH_FAILURE_WINDOW_MS = 60_000;

/**
 * Client secrets and operators' passwords are kept only as salted scrypt hashes, never
 * recoverable. The parameters follow OWASP's scrypt guidance (N=2^15, r=8, p=1, about 40 ms
 * here): slow enough to make a stolen table expensive to attack, fast enough for a token
 * request an hour per client or a login.
 */
const SCRYPT = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const satisfies ScryptOptions;
const KEY_LENGTH = 32;

function derive(secret: string, salt: Buffer, options: ScryptOptions, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(secret, salt, length, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** A new client secret: 32 random bytes, base64url (43 characters). Shown once at onboarding. */
export function generateClientSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** `scrypt$N$r$p$salt$hash`, self-describing so that parameters can be raised later. */
export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(secret, salt, SCRYPT, KEY_LENGTH);
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

/** Compares in constant time; a malformed stored hash never matches. */
export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (
    scheme !== 'scrypt' ||
    n === undefined ||
    r === undefined ||
    p === undefined ||
    salt === undefined ||
    hash === undefined
  ) {
    return false;
  }
  const expected = Buffer.from(hash, 'base64url');
  const actual = await derive(
    secret,
    Buffer.from(salt, 'base64url'),
    { N: Number(n), r: Number(r), p: Number(p), maxmem: SCRYPT.maxmem },
    expected.length,
  );
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * A hash of a random secret, verified against when the client id is unknown, so that a wrong id
 * and a wrong secret take the same time and cannot be told apart.
 */
export function dummySecretHash(): Promise<string> {
  dummyHash ??= hashSecret(generateClientSecret());
  return dummyHash;
}
let dummyHash: Promise<string> | undefined;
