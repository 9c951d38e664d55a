import { webcrypto } from 'node:crypto';
import { SignJWT, jwtVerify, errors } from 'jose';
import type { Clock } from '../clock-and-ids.js';
import { decodeCanonical } from './base64.js';

/** Access tokens live one hour (`expires_in: 3600` in the TokenResponse schema). */
export const ACCESS_TOKEN_TTL_SECONDS = 3600;
const ISSUER = 'partner-payments-service';
const AUDIENCE = 'partner-api';

export const SCOPES = ['cards:read', 'cards:write', 'transfers:read', 'transfers:write'] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** Who is calling: established from a verified access token. */
export interface Principal {
  readonly clientId: string;
  readonly organizationId: string;
  readonly scopes: readonly Scope[];
}

/** A verified token: who it speaks for, and when it was issued (Unix seconds, its `iat`). */
export interface VerifiedToken {
  readonly principal: Principal;
  readonly issuedAt: number;
}

export interface TokenService {
  issue(principal: Principal): Promise<{ token: string; expiresIn: number }>;
  /** The token's principal, or undefined for a malformed, forged, foreign or expired one. */
  verify(token: string): Promise<VerifiedToken | undefined>;
}

/**
 * A bound on the verified-token cache: far more live tokens than the partners of one deployment
 * hold at once (one per client and scope set, renewed hourly); the cache restarts when full.
 */
const MAX_CACHED_TOKENS = 10_000;

/**
 * HS256 JWTs signed with a key kept in the database, so that every instance sharing the database
 * verifies what any of them issued. Only HS256 is accepted: `alg: none` and every other algorithm
 * are rejected by `jwtVerify`'s allow-list.
 *
 * A partner sends the same token with every request for up to an hour, and checking it costs
 * more than the rest of a card read's own work (WebCrypto's HMAC is an asynchronous job). So a
 * token that verified is remembered, by its exact text, until it expires: a token that differs
 * in one byte is not in the cache and is verified in full. The key is imported once.
 *
 * A token is accepted only as the exact text that was issued: each of its three parts must be
 * canonical base64url, so that stray bits in a last character (which decoders ignore) do not
 * make a second text for the same token.
 */
export function createTokenService(key: Uint8Array, clock: Clock): TokenService {
  if (key.length < 32) throw new Error('The token signing key must be at least 256 bits');
  let cryptoKey: Promise<webcrypto.CryptoKey> | undefined;
  const signingKey = (): Promise<webcrypto.CryptoKey> =>
    (cryptoKey ??= webcrypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, [
      'sign',
      'verify',
    ]));
  const verified = new Map<string, VerifiedToken & { expiresAt: number }>();
  return {
    async issue(principal) {
      const now = Math.floor(clock.now() / 1000);
      const token = await new SignJWT({ org: principal.organizationId, scope: principal.scopes.join(' ') })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(principal.clientId)
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt(now)
        .setExpirationTime(now + ACCESS_TOKEN_TTL_SECONDS)
        .sign(await signingKey());
      return { token, expiresIn: ACCESS_TOKEN_TTL_SECONDS };
    },
    async verify(token) {
      // jose's rule: a token is expired once the current whole second reaches its `exp`.
      const nowSeconds = Math.floor(clock.now() / 1000);
      const known = verified.get(token);
      if (known !== undefined) {
        if (nowSeconds < known.expiresAt) return { principal: known.principal, issuedAt: known.issuedAt };
        verified.delete(token);
        return undefined;
      }
      if (!isCanonicalCompactJws(token)) return undefined;
      try {
        const { payload } = await jwtVerify(token, await signingKey(), {
          algorithms: ['HS256'],
          issuer: ISSUER,
          audience: AUDIENCE,
          currentDate: new Date(clock.now()),
          requiredClaims: ['sub', 'exp', 'iat'],
        });
        const { sub, org, scope, iat, exp } = payload;
        if (typeof sub !== 'string' || typeof org !== 'string' || typeof scope !== 'string') return undefined;
        if (typeof iat !== 'number' || typeof exp !== 'number') return undefined;
        const result = {
          principal: { clientId: sub, organizationId: org, scopes: scope.split(' ').filter(isScope) },
          issuedAt: iat,
        };
        if (verified.size >= MAX_CACHED_TOKENS) verified.clear();
        verified.set(token, { ...result, expiresAt: exp });
        return result;
      } catch (error) {
        if (error instanceof errors.JOSEError) return undefined;
        throw error;
      }
    },
  };
}

function isCanonicalCompactJws(token: string): boolean {
  const parts = token.split('.');
  return parts.length === 3 && parts.every((part) => decodeCanonical(part, 'base64url') !== null);
}
