/**
 * Credentials for `npm run check` against the Partner Payments Service, through the SDK (client/):
 * an OAuth 2.0 client-credentials token on every request, and on every write the headers of the
 * document's "Signed write requests" section (Idempotency-Key, X-Partner-Request-Timestamp,
 * X-Partner-Signature). Used as the checker's `--auth` module:
 *
 *   PARTNER_CLIENT_ID=… PARTNER_CLIENT_SECRET=… PARTNER_PRIVATE_KEY_FILE=key.pem \
 *     npm run check -- --input openapi/openapi.yaml --base-url http://localhost:3000 --auth test/check/partner-auth.ts
 *
 * and by test/check/payments-service.test.ts through `partnerAuth`.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import createClient from 'openapi-fetch';
import { createRequestSigner } from '../../client/signing.js';
import { createTokenCache, tokenRequester } from '../../client/tokens.js';
import type { paths } from '../../generated/openapi-types.js';
import type { CheckAuth } from 'contract-first/check';

export interface PartnerCredentials {
  readonly baseUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly privateKeyPem: string;
  /** Unix milliseconds, for the signature's timestamp and the token's lifetime (default the real time). */
  readonly now?: () => number;
}

/** The methods whose requests the service asks to be signed and keyed. */
const WRITES = new Set(['POST', 'PUT', 'PATCH']);
/** The token endpoint authenticates with the client's secret (Basic), not with a token. */
const TOKEN_PATH = '/v1/oauth/token';

export function partnerAuth(credentials: PartnerCredentials): CheckAuth {
  const now = credentials.now ?? Date.now;
  const signer = createRequestSigner(credentials.privateKeyPem);
  const client = createClient<paths>({ baseUrl: credentials.baseUrl });
  const tokens = createTokenCache({
    request: tokenRequester({ client, clientId: credentials.clientId, clientSecret: credentials.clientSecret }),
    clock: { now },
  });
  return {
    async prepare(request) {
      const url = new URL(request.url);
      if (url.pathname === TOKEN_PATH) {
        const basic = Buffer.from(
          `${encodeURIComponent(credentials.clientId)}:${encodeURIComponent(credentials.clientSecret)}`,
        ).toString('base64');
        return { ...request, headers: { ...request.headers, Authorization: `Basic ${basic}` } };
      }
      const headers: Record<string, string> = { ...request.headers, Authorization: `Bearer ${await tokens.get()}` };
      const method = request.method.toUpperCase();
      if (WRITES.has(method)) {
        const timestamp = String(Math.floor(now() / 1000));
        headers['Idempotency-Key'] ??= randomUUID();
        headers['X-Partner-Request-Timestamp'] = timestamp;
        headers['X-Partner-Signature'] = signer.sign(method, url.pathname, timestamp);
      }
      return { ...request, headers };
    },
  };
}

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '')
    throw new Error(
      `${name} is not set: the partner's credentials come from PARTNER_CLIENT_ID, PARTNER_CLIENT_SECRET and PARTNER_PRIVATE_KEY_FILE`,
    );
  return value;
}

/** The module `--auth` loads: the credentials from the environment, read when the first request is prepared. */
let fromEnvironment: CheckAuth | undefined;
const auth: CheckAuth = {
  prepare(request, context) {
    fromEnvironment ??= partnerAuth({
      baseUrl: new URL(request.url).origin,
      clientId: required('PARTNER_CLIENT_ID'),
      clientSecret: required('PARTNER_CLIENT_SECRET'),
      privateKeyPem: readFileSync(required('PARTNER_PRIVATE_KEY_FILE'), 'utf8'),
    });
    return fromEnvironment.prepare(request, context);
  },
};
export default auth;
