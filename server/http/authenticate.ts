import type { RequestHandler } from 'express';
import type { RouteDefinition } from '../../generated/server.js';
import { requiredScopes } from './route-policy.js';
import type { Principal, TokenService } from '../domain/tokens.js';
import { tokenStillValid, type ClientPolicyOf } from './token-policy-cache.js';
import { ApiError } from './errors.js';

/** Where the authenticated principal travels from this middleware to the operation's context. */
export const PRINCIPAL = Symbol('principal');
export interface AuthenticatedLocals {
  [PRINCIPAL]?: Principal;
}

/**
 * The `WWW-Authenticate` challenge of an operation's 401 responses (RFC 6750 §3): the realm and the
 * scopes it requires. Failures of the token add an `error` parameter; a 401 for the write
 * request's signature carries the challenge alone, since the token itself was accepted.
 */
export function bearerChallenge(route: RouteDefinition): string {
  const scopes = requiredScopes(route) ?? [];
  return `Bearer realm="partner-api"${scopes.length > 0 ? `, scope="${scopes.join(' ')}"` : ''}`;
}

const BEARER = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/;

/**
 * A missing, malformed, expired or forged bearer token is 401 with
 * `WWW-Authenticate: Bearer`; a valid token without the operation's scopes is 403
 * `insufficient_scope`. Scopes come from the generated route table, i.e. from the document.
 * A token whose client no longer exists, or that was issued before the client's tokens were
 * revoked, is rejected like an expired one.
 */
export function authenticate(
  route: RouteDefinition,
  tokens: TokenService,
  clientPolicyOf: ClientPolicyOf,
): RequestHandler {
  const challenge = bearerChallenge(route);
  const scopes = requiredScopes(route) ?? [];
  return (req, res, next) => {
    const header = req.get('authorization');
    const match = header === undefined ? null : BEARER.exec(header);
    if (match?.[1] === undefined) {
      next(
        new ApiError('unauthorized', 'A bearer access token is required.', {
          details: 'Get one from POST /v1/oauth/token and send it as `Authorization: Bearer <token>`.',
          headers: { 'WWW-Authenticate': challenge },
        }),
      );
      return;
    }
    const token = match[1];
    const verified = async (): Promise<Principal | undefined> => {
      const result = await tokens.verify(token);
      if (result === undefined) return undefined;
      const { principal, issuedAt } = result;
      return tokenStillValid(await clientPolicyOf(principal.clientId), principal.organizationId, issuedAt)
        ? principal
        : undefined;
    };
    verified().then((principal) => {
      if (principal === undefined) {
        next(
          new ApiError('unauthorized', 'The access token is invalid or has expired.', {
            details: 'Request a new token from POST /v1/oauth/token.',
            headers: { 'WWW-Authenticate': `${challenge}, error="invalid_token"` },
          }),
        );
        return;
      }
      const missing = scopes.filter((scope) => !(principal.scopes as readonly string[]).includes(scope));
      if (missing.length > 0) {
        next(
          new ApiError('insufficientScope', 'The access token lacks a scope this operation requires.', {
            details: `Missing scope: ${missing.join(' ')}. Request a token with it.`,
            headers: { 'WWW-Authenticate': `${challenge}, error="insufficient_scope"` },
          }),
        );
        return;
      }
      (res.locals as AuthenticatedLocals)[PRINCIPAL] = principal;
      next();
    }, next);
  };
}
