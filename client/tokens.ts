import createClient from 'openapi-fetch';
import type { paths } from '../generated/openapi-types.js';
import { PartnerApiError } from './errors.js';
import { parseRetryAfter, shouldRetry, type RetryPolicy } from './retry.js';

export interface Clock {
  /** Unix milliseconds. */
  now(): number;
}

export type Sleep = (ms: number) => Promise<void>;
export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the token endpoint grants (decisions §2). */
export interface TokenGrant {
  readonly accessToken: string;
  readonly expiresInSeconds: number;
  readonly scope: string;
}

/**
 * Refresh a minute before expiry: enough for a request signed now to arrive while the token is
 * still good, even across a little clock skew, with tokens living an hour (decisions §2).
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
export function createTokenCache(options: { request: () => Promise<TokenGrant>; clock: Clock; refreshMarginMs?: number }): TokenCache {
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
  readonly baseUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Space-separated subset of the client's scopes; absent asks for all granted scopes. */
  readonly scope?: string | undefined;
  readonly fetch: (input: Request) => Promise<Response>;
  readonly maxRetries: number;
  readonly retryPolicy: RetryPolicy;
  readonly clock: Clock;
  readonly sleep: Sleep;
  readonly random: () => number;
}

/** RFC 6749 §2.3.1: each part of Basic client credentials is form-urlencoded first. */
function formEncode(value: string): string {
  return encodeURIComponent(value).replaceAll('%20', '+');
}

/**
 * A client-credentials token request (RFC 6749 §4.4) with `client_secret_basic`, through
 * openapi-fetch so that the body and the answers are typed by the document. Network errors, 429
 * and 5xx are retried like any request: asking for a token twice does no harm. Any other failure
 * (wrong secret, scope not granted) throws a PartnerApiError with the service's answer.
 */
export function tokenRequester(options: TokenRequestOptions): () => Promise<TokenGrant> {
  const client = createClient<paths>({ baseUrl: options.baseUrl, fetch: options.fetch });
  const authorization = `Basic ${Buffer.from(`${formEncode(options.clientId)}:${formEncode(options.clientSecret)}`).toString('base64')}`;
  const body: paths['/v1/oauth/token']['post']['requestBody']['content']['application/x-www-form-urlencoded'] =
    options.scope === undefined ? { grant_type: 'client_credentials' } : { grant_type: 'client_credentials', scope: options.scope };

  return async () => {
    for (let attempt = 0; ; attempt += 1) {
      const outcome = await client
        .POST('/v1/oauth/token', {
          body,
          bodySerializer: (fields) => {
            const form = new URLSearchParams();
            for (const [name, value] of Object.entries(fields ?? {})) if (typeof value === 'string') form.set(name, value);
            return form.toString();
          },
          headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: authorization },
        })
        .catch((error: unknown) => ({ networkError: error }));
      if ('data' in outcome && outcome.data !== undefined) {
        return { accessToken: outcome.data.access_token, expiresInSeconds: outcome.data.expires_in, scope: outcome.data.scope };
      }
      const response = 'response' in outcome ? outcome.response : undefined;
      const decision = shouldRetry(
        {
          attempt,
          maxRetries: options.maxRetries,
          method: 'POST',
          status: response?.status,
          networkError: response === undefined,
          retryAfterMs: parseRetryAfter(response?.headers.get('retry-after'), options.clock.now()),
          repeatable: true,
        },
        options.retryPolicy,
        options.random,
      );
      if (!decision.retry) {
        if ('networkError' in outcome) throw outcome.networkError;
        throw new PartnerApiError(outcome.response.status, outcome.error, outcome.response.headers.get('x-request-id'));
      }
      await options.sleep(decision.delayMs);
    }
  };
}
