import { randomUUID } from 'node:crypto';
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from '../generated/openapi-types.js';
import { partnerMiddleware, retryMiddleware, type Fetch, type RetryOptions } from './middleware.js';
import { paginate, type PaginateOptions } from './paginate.js';
import { DEFAULT_MAX_RETRIES, DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry.js';
import { createRequestSigner } from './signing.js';
import { createTokenCache, realSleep, tokenRequester, type Clock, type Sleep } from './tokens.js';
import type { ListItem, ListPath, PartnerPaths } from './types.js';

export { errorTypeOf, isApiError, isErrorType, PartnerApiError, type ApiErrorBody, type ErrorType } from './errors.js';
export { backoffDelay, DEFAULT_MAX_RETRIES, DEFAULT_RETRY_POLICY, parseRetryAfter, shouldRetry } from './retry.js';
export type { RetryDecision, RetryInput, RetryPolicy } from './retry.js';
export { createRequestSigner, signatureMessage, type RequestSigner } from './signing.js';
export { REFRESH_MARGIN_MS, type Clock, type Sleep } from './tokens.js';
export { isWriteOperation } from './operations.js';
export { LIST_ITEMS } from './types.js';
export type { ListItem, ListPage, ListPath, ListQuery, PartnerPaths, Schemas, SdkOwnedHeader } from './types.js';
export type { PaginateOptions } from './paginate.js';
export type { Fetch } from './middleware.js';

export interface PartnerClientOptions {
  /** Where the service runs, e.g. `http://localhost:3000` (no `/v1`: paths carry it). */
  readonly baseUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** The RSA private key (PEM) handed over at onboarding; signs every write request. */
  readonly privateKeyPem: string;
  /** Scopes to ask for (space-separated or a list); all the client's scopes when absent. */
  readonly scope?: string | readonly string[] | undefined;
  /** The fetch to use for every request, token requests included (defaults to the global fetch). */
  readonly fetch?: Fetch | undefined;
  /** Retries after the first attempt (default 2, like stripe-node); 0 turns retries off. */
  readonly maxRetries?: number | undefined;
  /** Source of Unix milliseconds for timestamps and token expiry (defaults to Date.now). */
  readonly clock?: Clock | undefined;
  readonly retryPolicy?: Partial<RetryPolicy> | undefined;
  /** How to wait between retries (tests pass one that does not). */
  readonly sleep?: Sleep | undefined;
  /** Jitter source in [0, 1) (defaults to Math.random). */
  readonly random?: (() => number) | undefined;
  /** Makes the Idempotency-Key of a write the caller did not key (defaults to a random UUID). */
  readonly idempotencyKey?: (() => string) | undefined;
}

export interface PartnerClient extends Client<PartnerPaths> {
  /**
   * Every item of `/v1/card`, `/v1/transfer` or `/v1/transaction` matching `query`, following
   * `nextCursor`; throws PartnerApiError on an error page.
   */
  paginate<P extends ListPath>(path: P, options?: PaginateOptions<P>): AsyncGenerator<ListItem<P>, void, undefined>;
  /** The current access token, fetched or refreshed when needed (throws PartnerApiError on error response). */
  accessToken(): Promise<string>;
}

function nonEmpty(name: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new TypeError(`${name} is required: pass the ${name} you were given at onboarding.`);
  }
  return value;
}

/**
 * The partner SDK: openapi-fetch's client typed by the document (`GET`, `POST`, `PUT`, `PATCH`),
 * with the document's authentication and signed-write protocol done by its middleware (tokens,
 * idempotency keys, timestamps, signatures, merge-patch bodies) and safe retries. Failures come
 * back as `{ error, response }`, never thrown.
 *
 * ```ts
 * const partner = createPartnerClient({ baseUrl, clientId, clientSecret, privateKeyPem });
 * const { data, error } = await partner.POST('/v1/transfer', { body: { ... } });
 * for await (const card of partner.paginate('/v1/card', { query: { limit: 50 } })) { ... }
 * ```
 */
export function createPartnerClient(options: PartnerClientOptions): PartnerClient {
  let baseUrl: URL;
  try {
    baseUrl = new URL(nonEmpty('baseUrl', options.baseUrl));
  } catch (error) {
    if (error instanceof TypeError && error.message.startsWith('baseUrl')) throw error;
    throw new TypeError(`baseUrl "${options.baseUrl}" is not a URL; pass one such as http://localhost:3000.`);
  }
  if (baseUrl.protocol !== 'http:' && baseUrl.protocol !== 'https:')
    throw new TypeError(`baseUrl must be http or https, not ${baseUrl.protocol}`);
  const clientId = nonEmpty('clientId', options.clientId);
  const clientSecret = nonEmpty('clientSecret', options.clientSecret);
  const signer = createRequestSigner(nonEmpty('privateKeyPem', options.privateKeyPem));
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  if (!Number.isInteger(maxRetries) || maxRetries < 0)
    throw new TypeError(`maxRetries must be a whole number from 0, not ${maxRetries}.`);
  const scope =
    typeof options.scope === 'string' || options.scope === undefined ? options.scope : options.scope.join(' ');

  const fetch: Fetch = options.fetch ?? ((request) => globalThis.fetch(request));
  const clock = options.clock ?? { now: () => Date.now() };
  const retryPolicy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.retryPolicy };
  const sleep = options.sleep ?? realSleep;
  const random = options.random ?? Math.random;
  const root = baseUrl.href.replace(/\/+$/, '');

  // One retry loop and one policy for every request, the token request included.
  const retry: RetryOptions = { fetch, clock, maxRetries, retryPolicy, sleep, random };

  // The token request has a client of its own, so that middleware a caller adds with `use` sees
  // only API calls.
  const tokenClient = createClient<paths>({ baseUrl: root, fetch });
  tokenClient.use(retryMiddleware(retry));
  const tokens = createTokenCache({
    clock,
    request: tokenRequester({ client: tokenClient, clientId, clientSecret, scope }),
  });

  const client = createClient<PartnerPaths>({
    baseUrl: root,
    fetch,
    // Array filters are one comma-separated value (the document's `explode: false`): statuses=SUCCEEDED,DECLINED.
    querySerializer: { array: { style: 'form', explode: false } },
  });
  client.use(
    partnerMiddleware({ ...retry, tokens, signer, newIdempotencyKey: options.idempotencyKey ?? (() => randomUUID()) }),
  );

  return {
    ...client,
    paginate: (path, paginateOptions) => paginate(client, path, paginateOptions),
    accessToken: () => tokens.get(),
  };
}
