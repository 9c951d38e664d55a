import { SignJWT, jwtVerify, errors } from 'jose';
import type { Clock } from '../runtime.js';

/** Access tokens live one hour (decisions §2: `expires_in: 3600`). */
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

export interface TokenService {
  issue(principal: Principal): Promise<{ token: string; expiresIn: number }>;
  /** The principal of a valid token, or undefined for a malformed, forged, foreign or expired one. */
  verify(token: string): Promise<Principal | undefined>;
}

/**
 * HS256 JWTs signed with a key kept in the database, so that every instance sharing the database
 * verifies what any of them issued. Only HS256 is accepted: `alg: none` and every other algorithm
 * are refused by `jwtVerify`'s allow-list.
 */
export function createTokenService(key: Uint8Array, clock: Clock): TokenService {
  if (key.length < 32) throw new Error('The token signing key must be at least 256 bits');
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
        .sign(key);
      return { token, expiresIn: ACCESS_TOKEN_TTL_SECONDS };
    },
    async verify(token) {
      try {
        const { payload } = await jwtVerify(token, key, {
          algorithms: ['HS256'],
          issuer: ISSUER,
          audience: AUDIENCE,
          currentDate: new Date(clock.now()),
          requiredClaims: ['sub', 'exp', 'iat'],
        });
        const { sub, org, scope } = payload;
        if (typeof sub !== 'string' || typeof org !== 'string' || typeof scope !== 'string') return undefined;
        const scopes = scope.split(' ').filter(isScope);
        return { clientId: sub, organizationId: org, scopes };
      } catch (error) {
        if (error instanceof errors.JOSEError) return undefined;
        throw error;
      }
    },
  };
}
