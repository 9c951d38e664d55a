import type { Client } from 'openapi-fetch';
import type { paths } from '../generated/openapi-types.js';
import { PartnerApiError } from './errors.js';

export interface Clock {
  /** Unix milliseconds. */
  now(): number;
}

export type Sleep = (ms: number) => Promise<void>;
export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the token endpoint grants (`TokenResponse` in the document). */
export interface TokenGrant {
  readonly accessToken: string;
  readonly expiresInSeconds: number;
  readonly scope: string;
}

/**
 * Refresh a minute before expiry: enough for a request signed now to arrive while the token is
 * still good, even across a little clock skew, with tokens living an hour (`expires_in: 3600`).
 */
export const REFRESH_MARGIN_MS = 60_000;

export interface TokenCache {
  /** A token good for at least the refresh margin; fetched when none is. */
  get(): Promise<string>;
  /** Drops `token` if it is still the cached one (it got a 401), so the next `get` fetches anew. */
  invalidate(token: string): void;
}

/**
 * Caches the access token and refreshes it shortly before it expires. However many calls wait
 * for a token, at most one token request is in flight: they all await the same promise.
 */
export function createTokenCache(options: {
  request: () => Promise<TokenGrant>;
  clock: Clock;
  refreshMarginMs?: number;
}): TokenCache {
  const margin = options.refreshMarginMs ?? REFRESH_MARGIN_MS;
  let cached: { token: string; refreshAt: number } | undefined;
  let inFlight: Promise<string> | undefined;

  function fetchToken(): Promise<string> {
    // Lifetime counted from before the request: errs on the early side.
    const requestedAt = options.clock.now();
    const promise = options
      .request()
      .then((grant) => {
        const lifetime = grant.expiresInSeconds * 1000;
        // A token shorter-lived than twice the margin is refreshed at half its life instead.
        cached = { token: grant.accessToken, refreshAt: requestedAt + lifetime - Math.min(margin, lifetime / 2) };
        return grant.accessToken;
      })
      .finally(() => {
        if (inFlight === promise) inFlight = undefined;
      });
    inFlight = promise;
    return promise;
  }

  return {
    get() {
      if (cached !== undefined && options.clock.now() < cached.refreshAt) return Promise.resolve(cached.token);
      return inFlight ?? fetchToken();
    },
    invalidate(token) {
      // Several calls can fail with the same old token: only the first drops it, and the others
      // then share the one new token instead of each fetching their own.
      if (cached?.token === token) cached = undefined;
    },
  };
}

export interface TokenRequestOptions {
  /**
   * The openapi-fetch client that sends the token request; its middleware (`retryMiddleware`)
   * retries it like any call.
   */
  readonly client: Pick<Client<paths>, 'POST'>;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Space-separated subset of the client's scopes; absent asks for all granted scopes. */
  readonly scope?: string | undefined;
}

/** RFC 6749 §2.3.1: each part of Basic client credentials is form-urlencoded first. */
function formEncode(value: string): string {
  return encodeURIComponent(value).replaceAll('%20', '+');
}

/**
 * A client-credentials token request (RFC 6749 §4.4) with `client_secret_basic`, through
 * openapi-fetch so that the body and the responses are typed by the document, and the form body is
 * serialized by openapi-fetch for its `application/x-www-form-urlencoded` Content-Type. The
 * client's middleware retries network errors, 429 and 5xx (asking for a token twice does no
 * harm); any other failure (wrong secret, scope not granted) throws a PartnerApiError with the
 * service's response, and a network error that outlasts the retries is thrown as it came.
 */
export function tokenRequester(options: TokenRequestOptions): () => Promise<TokenGrant> {
  const authorization = `Basic ${Buffer.from(`${formEncode(options.clientId)}:${formEncode(options.clientSecret)}`).toString('base64')}`;
  const body: paths['/v1/oauth/token']['post']['requestBody']['content']['application/x-www-form-urlencoded'] =
    options.scope === undefined
      ? { grant_type: 'client_credentials' }
      : { grant_type: 'client_credentials', scope: options.scope };

  return async () => {
    const { data, error, response } = await options.client.POST('/v1/oauth/token', {
      body,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: authorization },
    });
    if (data === undefined) throw new PartnerApiError(response.status, error, response.headers.get('x-request-id'));
    return { accessToken: data.access_token, expiresInSeconds: data.expires_in, scope: data.scope };
  };
}
