import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { ACCESS_TOKEN_TTL_SECONDS, createTokenService, type Principal } from './tokens.js';

const KEY = randomBytes(32);
const PRINCIPAL: Principal = { clientId: 'cli_a', organizationId: 'org_a', scopes: ['cards:read', 'transfers:write'] };
const START = 1_780_000_000_000;

function movableClock(ms: number): { now(): number; set(value: number): void } {
  let current = ms;
  return { now: () => current, set: (value) => (current = value) };
}

const BASE64URL_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** The token with the first character of its signature changed: always other signature bytes. */
function tamperSignature(token: string): string {
  const at = token.lastIndexOf('.') + 1;
  return token.slice(0, at) + (token[at] === 'A' ? 'B' : 'A') + token.slice(at + 1);
}

/** The token with the unused low bits of its last character set: the same bytes, another text. */
function strayBits(token: string): string {
  const last = BASE64URL_ALPHABET.indexOf(token.at(-1) ?? '');
  return token.slice(0, -1) + (BASE64URL_ALPHABET[last | 0b11] ?? '');
}

describe('token service', () => {
  it('verifies what it issued, with the principal and the issue time', async () => {
    const clock = movableClock(START);
    const service = createTokenService(KEY, clock);
    const { token, expiresIn } = await service.issue(PRINCIPAL);
    expect(expiresIn).toBe(ACCESS_TOKEN_TTL_SECONDS);
    expect(await service.verify(token)).toEqual({ principal: PRINCIPAL, issuedAt: START / 1000 });
    // The second time from the cache: the same response.
    expect(await service.verify(token)).toEqual({ principal: PRINCIPAL, issuedAt: START / 1000 });
  });

  it('a verified (cached) token still expires at its exp, to the second', async () => {
    const clock = movableClock(START);
    const service = createTokenService(KEY, clock);
    const { token } = await service.issue(PRINCIPAL);
    expect(await service.verify(token)).toBeDefined();
    clock.set(START + ACCESS_TOKEN_TTL_SECONDS * 1000 - 1);
    expect(await service.verify(token)).toBeDefined();
    clock.set(START + ACCESS_TOKEN_TTL_SECONDS * 1000);
    expect(await service.verify(token)).toBeUndefined();
    // And stays rejected later: the expired entry is gone, and the full check rejects it too.
    clock.set(START + ACCESS_TOKEN_TTL_SECONDS * 1000 + 5_000);
    expect(await service.verify(token)).toBeUndefined();
  });

  it('a token one byte off a cached one is verified in full and rejected', async () => {
    const service = createTokenService(KEY, movableClock(START));
    const { token } = await service.issue(PRINCIPAL);
    expect(await service.verify(token)).toBeDefined();
    expect(await service.verify(tamperSignature(token))).toBeUndefined();
    expect(await service.verify(`${token}.`)).toBeUndefined();
  });

  it("accepts a token only as the text it issued: stray bits in the signature's last character are refused", async () => {
    const service = createTokenService(KEY, movableClock(START));
    const { token } = await service.issue(PRINCIPAL);
    const variant = strayBits(token);
    // A lenient decoder reads the same signature from both texts: only the strict check tells them apart.
    expect(variant).not.toBe(token);
    expect(Buffer.from(variant.split('.')[2] ?? '', 'base64url')).toEqual(
      Buffer.from(token.split('.')[2] ?? '', 'base64url'),
    );
    expect(await service.verify(variant)).toBeUndefined();
    expect(await service.verify(token)).toBeDefined();
  });

  it('rejects tokens of another key, another algorithm, or without the claims it needs', async () => {
    const now = Math.floor(START / 1000);
    const service = createTokenService(KEY, movableClock(START));
    const other = createTokenService(randomBytes(32), movableClock(START));
    expect(await service.verify((await other.issue(PRINCIPAL)).token)).toBeUndefined();
    const unsigned = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from(
      JSON.stringify({
        sub: 'cli_a',
        org: 'org_a',
        scope: 'cards:read',
        iss: 'partner-payments-service',
        aud: 'partner-api',
        iat: now,
        exp: now + 60,
      }),
    ).toString('base64url')}.`;
    expect(await service.verify(unsigned)).toBeUndefined();
    const noOrganization = await new SignJWT({ scope: 'cards:read' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('cli_a')
      .setIssuer('partner-payments-service')
      .setAudience('partner-api')
      .setIssuedAt(now)
      .setExpirationTime(now + 60)
      .sign(KEY);
    expect(await service.verify(noOrganization)).toBeUndefined();
  });
});
