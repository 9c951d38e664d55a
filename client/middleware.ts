import type { Middleware } from 'openapi-fetch';
import { PartnerApiError } from './errors.js';
import { MERGE_PATCH_PATHS, PUBLIC_PATHS, isRepeatableOperation, isWriteOperation } from './operations.js';
import { parseRetryAfter, shouldRetry, type RetryPolicy } from './retry.js';
import { unixSeconds, type RequestSigner } from './signing.js';
import type { Clock, Sleep, TokenCache } from './tokens.js';

export type Fetch = (request: Request) => Promise<Response>;

/** How a call is sent again: what the one retry loop needs, for API calls and token requests alike. */
export interface RetryOptions {
  readonly fetch: Fetch;
  readonly clock: Clock;
  readonly maxRetries: number;
  readonly retryPolicy: RetryPolicy;
  readonly sleep: Sleep;
  readonly random: () => number;
}

/** What API calls add to each attempt: the bearer token and, on writes, the key and the signature. */
export interface CallCredentials {
  readonly tokens: TokenCache;
  readonly signer: RequestSigner;
  readonly newIdempotencyKey: () => string;
}

export interface PartnerMiddlewareOptions extends RetryOptions, CallCredentials {}

/** Everything needed to send one call again: the body is kept as text, since a Request's body reads once. */
interface CallPlan {
  readonly method: string;
  readonly url: string;
  /**
   * The path as sent, without the query string: what the signature covers (the document's
   * "Computing the signature").
   */
  readonly path: string;
  readonly headers: Headers;
  readonly body: string | undefined;
  readonly signal: AbortSignal;
  readonly redirect: Request['redirect'];
  /** A write operation: it carries an `Idempotency-Key`, and `signer` signs each attempt. */
  readonly write: boolean;
  /** Safe to send twice whatever its method (the token request). */
  readonly repeatable: boolean;
  /** Where each attempt's bearer token comes from; absent on the operations that take none. */
  readonly tokens: TokenCache | undefined;
  readonly signer: RequestSigner | undefined;
  /** The bearer token of the latest attempt, to drop exactly that one on a 401. */
  token: string | undefined;
}

type Outcome = { response: Response; final?: boolean } | { error: unknown };

/** Frees the connection of a response we are about to replace. */
async function discard(response: Response): Promise<void> {
  try {
    await response.body?.cancel();
  } catch {
    // Already read or closed: nothing to free.
  }
}

/**
 * A 401 that a new token can cure: the service marks bearer failures with `WWW-Authenticate:
 * Bearer` and type `Unauthorized` (the document's "Authentication errors"), unlike a bad
 * signature (`InvalidSignature`), which no token fixes.
 */
async function isBearerRejection(response: Response): Promise<boolean> {
  if (/^Bearer\b/i.test(response.headers.get('www-authenticate') ?? '')) return true;
  try {
    const body: unknown = await response.clone().json();
    return typeof body === 'object' && body !== null && (body as { type?: unknown }).type === 'Unauthorized';
  } catch {
    return false;
  }
}

/** The token endpoint's error response, handed to the caller as the call's own `{ error, response }`. */
function tokenFailureResponse(error: PartnerApiError): Response {
  const headers = new Headers({ 'Content-Type': 'application/json' });
  if (error.requestId !== undefined) headers.set('X-Request-Id', error.requestId);
  return new Response(JSON.stringify(error.body), { status: error.status, headers });
}

/**
 * The API client's middleware, after stripe-node: the retry loop of `retryMiddleware`, and
 * - `onRequest` adds the bearer token and, on the five write operations, an `Idempotency-Key`
 *   (the caller's, or a new UUID), a fresh timestamp and the signature; limits bodies get
 *   `application/merge-patch+json`;
 * - a 401 that a new token cures gets one token refresh and one more try, which is no retry;
 * - every attempt is re-signed with a new timestamp and the SAME idempotency key, so that however
 *   many attempts reach the server, the operation runs once (the document's "Idempotency").
 */
export function partnerMiddleware(options: PartnerMiddlewareOptions): Middleware {
  return callMiddleware(options, options);
}

/**
 * The token client's middleware: the same retry loop as every API call, without credentials of
 * its own (the token request authenticates the client with its id and secret).
 */
export function retryMiddleware(options: RetryOptions): Middleware {
  return callMiddleware(options, undefined);
}

/**
 * The one retry loop of the SDK. `onRequest` keeps the call's parts; `onResponse` and `onError`
 * decide what happens next, asking `shouldRetry` after each failed attempt and sleeping for the
 * delay it gives before sending the call again. The caller sees only the last response, as
 * openapi-fetch's `{ data } | { error }`, or the last network error thrown.
 */
function callMiddleware(options: RetryOptions, credentials: CallCredentials | undefined): Middleware {
  const plans = new Map<string, CallPlan>();

  /** A ready-to-send Request for one attempt, or the token endpoint's error response. */
  async function prepare(plan: CallPlan): Promise<Request | Response> {
    const headers = new Headers(plan.headers);
    if (plan.tokens !== undefined) {
      let token: string;
      try {
        token = await plan.tokens.get();
      } catch (error) {
        if (error instanceof PartnerApiError) return tokenFailureResponse(error);
        throw error;
      }
      plan.token = token;
      headers.set('Authorization', `Bearer ${token}`);
    }
    if (plan.signer !== undefined) {
      // A fresh timestamp per attempt: the service rejects one more than 300 s off its clock.
      const timestamp = unixSeconds(options.clock.now());
      headers.set('X-Partner-Request-Timestamp', timestamp);
      headers.set('X-Partner-Signature', plan.signer.sign(plan.method, plan.path, timestamp));
    }
    return new Request(plan.url, {
      method: plan.method,
      headers,
      redirect: plan.redirect,
      signal: plan.signal,
      ...(plan.body !== undefined ? { body: plan.body } : {}),
    });
  }

  async function send(plan: CallPlan): Promise<Outcome> {
    const request = await prepare(plan);
    if (request instanceof Response) return { response: request, final: true };
    try {
      return { response: await options.fetch(request) };
    } catch (error) {
      return { error };
    }
  }

  /** Follows one call from its first outcome to the response the caller gets. */
  async function settle(plan: CallPlan, first: Outcome): Promise<Outcome> {
    let outcome = first;
    let refreshed = false;
    let retries = 0;
    for (;;) {
      let delayMs: number;
      if ('response' in outcome) {
        const { response } = outcome;
        if (outcome.final === true) return outcome;
        if (
          response.status === 401 &&
          plan.tokens !== undefined &&
          !refreshed &&
          plan.token !== undefined &&
          (await isBearerRejection(response))
        ) {
          // Revoked or expired early: one new token and one more try, never a loop.
          refreshed = true;
          plan.tokens.invalidate(plan.token);
          await discard(response);
          outcome = await send(plan);
          continue;
        }
        const decision = shouldRetry(
          {
            attempt: retries,
            maxRetries: options.maxRetries,
            method: plan.method,
            status: response.status,
            retryAfterMs: parseRetryAfter(response.headers.get('retry-after'), options.clock.now()),
            idempotencyKey: plan.write,
            repeatable: plan.repeatable,
          },
          options.retryPolicy,
          options.random,
        );
        if (!decision.retry) return outcome;
        await discard(response);
        delayMs = decision.delayMs;
      } else {
        if (plan.signal.aborted) return outcome;
        const decision = shouldRetry(
          {
            attempt: retries,
            maxRetries: options.maxRetries,
            method: plan.method,
            networkError: true,
            idempotencyKey: plan.write,
            repeatable: plan.repeatable,
          },
          options.retryPolicy,
          options.random,
        );
        if (!decision.retry) return outcome;
        delayMs = decision.delayMs;
      }
      await options.sleep(delayMs);
      retries += 1;
      outcome = await send(plan);
    }
  }

  return {
    async onRequest({ request, schemaPath, id }) {
      const write = isWriteOperation(request.method, schemaPath);
      const authenticated = !PUBLIC_PATHS.has(schemaPath);
      if ((write || authenticated) && credentials === undefined) {
        throw new TypeError(
          `${request.method} ${schemaPath} needs a bearer token: send it through the partner client, not the token client.`,
        );
      }
      const headers = new Headers(request.headers);
      if (write && credentials !== undefined && !headers.has('Idempotency-Key'))
        headers.set('Idempotency-Key', credentials.newIdempotencyKey());
      const body = request.body === null ? undefined : await request.text();
      if (body !== undefined && MERGE_PATCH_PATHS.has(schemaPath))
        headers.set('Content-Type', 'application/merge-patch+json');
      const plan: CallPlan = {
        method: request.method,
        url: request.url,
        path: new URL(request.url).pathname,
        headers,
        body,
        signal: request.signal,
        redirect: request.redirect,
        write,
        repeatable: isRepeatableOperation(request.method, schemaPath),
        tokens: authenticated ? credentials?.tokens : undefined,
        signer: write ? credentials?.signer : undefined,
        token: undefined,
      };
      const prepared = await prepare(plan);
      if (prepared instanceof Request) plans.set(id, plan);
      return prepared;
    },

    async onResponse({ response, id }) {
      const plan = plans.get(id);
      if (plan === undefined) return undefined;
      plans.delete(id);
      const outcome = await settle(plan, { response });
      if ('error' in outcome) throw outcome.error;
      return outcome.response;
    },

    async onError({ error, id }) {
      const plan = plans.get(id);
      if (plan === undefined) return undefined;
      plans.delete(id);
      const outcome = await settle(plan, { error });
      if ('response' in outcome) return outcome.response;
      return outcome.error instanceof Error
        ? outcome.error
        : new Error(String(outcome.error), { cause: outcome.error });
    },
  };
}
