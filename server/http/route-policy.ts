import type { RouteDefinition } from '../../generated/server.js';

/**
 * What the service enforces of an operation, read from the route table the document gives: the
 * OAuth 2.0 scopes a bearer token must hold, and whether the operation is a signed, idempotent write.
 */

/** The security scheme of the document that this service's bearer tokens satisfy. */
const TOKEN_SCHEME = 'oauth2';

/** The write-request headers (the document declares all three on every signed write, or none). */
export const WRITE_REQUEST_HEADERS = ['Idempotency-Key', 'X-Partner-Request-Timestamp', 'X-Partner-Signature'] as const;

/**
 * The scopes the operation's token must hold, or undefined when it takes no token. The service
 * responds to one requirement per operation, of its oauth2 scheme: a document that asks for another
 * (alternatives, optional security, another scheme) fails when the app is built, not at a request.
 */
export function requiredScopes(route: RouteDefinition): readonly string[] | undefined {
  if (route.security.length === 0) return undefined;
  const [requirement, ...alternatives] = route.security;
  const schemes = Object.keys(requirement ?? {});
  if (alternatives.length > 0 || schemes.length !== 1 || schemes[0] !== TOKEN_SCHEME) {
    throw new Error(
      `${route.operationId}: the service enforces one ${TOKEN_SCHEME} requirement per operation, not ${JSON.stringify(route.security)}`,
    );
  }
  return requirement?.[TOKEN_SCHEME] ?? [];
}

/** Whether the operation is a signed write: it declares the three write-request headers. */
export function isSignedWrite(route: RouteDefinition): boolean {
  const declared = WRITE_REQUEST_HEADERS.filter((name) => route.parameters.header.includes(name)).length;
  if (declared !== 0 && declared !== WRITE_REQUEST_HEADERS.length) {
    throw new Error(
      `${route.operationId}: a signed write declares all of ${WRITE_REQUEST_HEADERS.join(', ')}, not some`,
    );
  }
  return declared === WRITE_REQUEST_HEADERS.length;
}
