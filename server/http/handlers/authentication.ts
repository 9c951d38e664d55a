import type { components } from '../../../generated/openapi-types.js';
import type { OperationResult } from '../../../generated/server.js';
import { AUTH_FAILURE_WINDOW_MS, dummySecretHash, verifySecret } from '../../domain/credentials.js';
import { isScope, type Scope } from '../../domain/tokens.js';
import {
  clearAuthFailures,
  findClient,
  authFailureStatus,
  getClientTokenPolicy,
  recordAuthFailure,
} from '../../store/organizations.js';
import { tokenIssueTime } from '../token-policy-cache.js';
import { operation } from '../handler-kinds.js';

type TokenError = components['schemas']['TokenError'];
type OAuthErrorCode = TokenError['error'];

/** The client id pattern of the document (TokenRequest.client_id). */
const CLIENT_ID_SHAPE = /^[A-Za-z0-9_-]{1,64}$/;

/** RFC 6749 §5.1: token responses must not be cached. */
const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' } as const;

interface ClientCredentials {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly method: 'basic' | 'post';
}

/** RFC 6749 §2.3.1: Basic credentials are form-urlencoded before being joined with a colon. */
function basicCredentials(header: string | undefined): ClientCredentials | 'malformed' | undefined {
  if (header === undefined || !/^Basic /i.test(header)) return undefined;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return 'malformed';
  try {
    return {
      clientId: decodeURIComponent(decoded.slice(0, colon).replaceAll('+', ' ')),
      clientSecret: decodeURIComponent(decoded.slice(colon + 1).replaceAll('+', ' ')),
      method: 'basic',
    };
  } catch {
    return 'malformed';
  }
}

function tokenError(error: OAuthErrorCode, message: string, description: string): TokenError {
  return {
    message,
    type: error === 'invalid_client' ? 'Unauthorized' : 'InvalidRequest',
    error,
    error_description: description,
  };
}

type Result = OperationResult<'createToken'>;

function invalidRequest(error: OAuthErrorCode, message: string, description: string): Result {
  return { status: 400, body: tokenError(error, message, description), headers: NO_STORE };
}

/**
 * OAuth 2.0 client credentials (RFC 6749 §4.4) as the createToken description fixes it: Basic or post client
 * authentication, secrets checked against their scrypt hash in constant time (an unknown client
 * costs the same as a wrong secret), a rate limit per client id, and a one-hour token for the
 * requested subset of the client's scopes.
 */
export const createToken = operation<'createToken'>(async function createToken(input, ctx) {
  const { db, now } = ctx;
  const basic = basicCredentials(ctx.header('authorization'));
  const post =
    input.body.client_id !== undefined || input.body.client_secret !== undefined
      ? { clientId: input.body.client_id ?? '', clientSecret: input.body.client_secret ?? '', method: 'post' as const }
      : undefined;
  if (basic !== undefined && post !== undefined) {
    return invalidRequest(
      'invalid_request',
      'Use one client authentication method.',
      'Send the client credentials either in the Authorization header or in the body, not both.',
    );
  }
  const credentials = basic ?? post;
  const unauthorized = (description: string): Result => ({
    status: 401,
    body: tokenError('invalid_client', 'Client authentication failed.', description),
    headers: { ...NO_STORE, ...(basic !== undefined ? { 'WWW-Authenticate': 'Basic realm="partner-api"' } : {}) },
  });
  if (credentials === undefined || credentials === 'malformed') {
    return unauthorized(
      'Authenticate with HTTP Basic (client id and secret) or with client_id and client_secret in the body.',
    );
  }

  const { failures, retryAfterSeconds: retryAfter } = await authFailureStatus(db, credentials.clientId, now);
  if (retryAfter !== undefined) {
    return {
      status: 429,
      body: {
        message: 'Too many failed client authentications.',
        type: 'InvalidRequest',
        error: 'invalid_client',
        error_description: `Wait ${retryAfter} seconds before trying again.`,
      },
      headers: { ...NO_STORE, 'Retry-After': String(retryAfter) },
    };
  }

  const client = await findClient(db, credentials.clientId);
  const valid = await verifySecret(credentials.clientSecret, client?.secretHash ?? (await dummySecretHash()));
  if (client === undefined || !valid) {
    // Unknown ids count too: otherwise only a real client id could ever be locked out, and the
    // 429 would tell which ids exist. Ids outside the documented shape are not kept.
    if (CLIENT_ID_SHAPE.test(credentials.clientId))
      await recordAuthFailure(db, credentials.clientId, now, AUTH_FAILURE_WINDOW_MS);
    return unauthorized('The client id or secret is wrong.');
  }
  if (failures > 0) await clearAuthFailures(db, client.id);

  if (input.body.grant_type !== 'client_credentials') {
    return invalidRequest(
      'unsupported_grant_type',
      'Unsupported grant type.',
      'Only grant_type=client_credentials is supported.',
    );
  }
  const granted = client.scopes.filter(isScope);
  let scopes: Scope[] = granted;
  if (input.body.scope !== undefined) {
    const requested = input.body.scope.split(' ').filter((scope) => scope !== '');
    const rejected = requested.filter((scope) => !(granted as string[]).includes(scope));
    if (rejected.length > 0 || requested.length === 0) {
      return invalidRequest(
        'invalid_scope',
        'A requested scope is not granted to this client.',
        `Not granted: ${rejected.join(' ') || '(empty scope)'}; granted: ${granted.join(' ')}.`,
      );
    }
    scopes = granted.filter((scope) => requested.includes(scope));
  }

  // In the second of a revocation a token is dated just after it, so that it works at once.
  const policy = await getClientTokenPolicy(db, client.id);
  const issuedAt = tokenIssueTime(now, policy?.tokensNotBefore ?? null);
  const issuer = issuedAt === now ? ctx.services.tokens : ctx.services.tokensDatedAt(issuedAt);
  const { token, expiresIn } = await issuer.issue({
    clientId: client.id,
    organizationId: client.organizationId,
    scopes,
  });
  return {
    status: 200,
    body: { access_token: token, token_type: 'Bearer', expires_in: expiresIn, scope: scopes.join(' ') },
    headers: NO_STORE,
  };
});
