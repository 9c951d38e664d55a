import type { Middleware } from 'openapi-fetch';
import { PartnerApiError } from './errors.js';
import { MERGE_PATCH_PATHS, PUBLIC_PATHS, isWriteOperation } from './operations.js';
import { parseRetryAfter, shouldRetry, type RetryPolicy } from './retry.js';
import { unixSeconds, type RequestSigner } from './signing.js';
import type { Clock, Sleep, TokenCache } from './tokens.js';

export type Fetch = (request: Request) => Promise<Response>;

export interface PartnerMiddlewareOptions {
  readonly fetch: Fetch;
  readonly tokens: TokenCache;
  readonly signer: RequestSigner;
  readonly clock: Clock;
  readonly maxRetries: number;
  readonly retryPolicy: RetryPolicy;
  readonly sleep: Sleep;
  readonly random: () => number;
  readonly newIdempotencyKey: () => string;
}

/** Everything needed to send one call again: the body is kept as text, since a Request's body reads once. */
interface CallPlan {
  readonly method: string;
  readonly url: string;
  /** The path as sent, without the query string: what the signature covers (decisions §3 step 5). */
  readonly path: string;
  readonly headers: Headers;
  readonly body: string | undefined;
  readonly signal: AbortSignal;
  readonly redirect: Request['redirect'];
  readonly write: boolean;
  readonly authenticated: boolean;
  /** The bearer token of the latest attempt, to drop exactly that one on a 401. */
  token: string | undefined;
}

type Outcome = { response: Response; final?: boolean } | { error: unknown };

/** Frees the connection of an answer we are about to replace. */
async function discard(response: Response): Promise<void> {
  try {
    await response.body?.cancel();
  } catch {
    // Already read or closed: nothing to free.
  }
}

/**
 * A 401 that a new token can cure: the service marks bearer failures with `WWW-Authenticate:
 * Bearer` and type `Unauthorized` (decisions §2), unlike a bad signature (`InvalidSignature`),
 * which no token fixes.
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

/** The token endpoint's refusal, handed to the caller as the call's own `{ error, response }`. */
function tokenFailureResponse(error: PartnerApiError): Response {
  const headers = new Headers({ 'Content-Type': 'application/json' });
  if (error.requestId !== undefined) headers.set('X-Request-Id', error.requestId);
  return new Response(JSON.stringify(error.body), { status: error.status, headers });
}

/**
 * The openapi-fetch middleware that does spec §5 for the caller, after stripe-node:
 * - `onRequest` keeps the call's parts, adds the bearer token and, on the five write operations,
 *   an `Idempotency-Key` (the caller's, or a new UUID), a fresh timestamp and the signature;
 *   limits bodies get `application/merge-patch+json`.
 * - `onResponse` and `onError` decide what happens next: one token refresh on a 401, then retries
 *   by `shouldRetry`, each attempt re-signed with a new timestamp and the SAME idempotency key,
 *   so that however many attempts reach the server, the operation runs once.
 * The caller sees only the last answer, as openapi-fetch's `{ data } | { error }`.
 */
export function partnerMiddleware(options: PartnerMiddlewareOptions): Middleware {
  const plans = new Map<string, CallPlan>();

  /** A ready-to-send Request for one attempt, or the token endpoint's refusal. */
  async function prepare(plan: CallPlan): Promise<Request | Response> {
    const headers = new Headers(plan.headers);
    if (plan.authenticated) {
      let token: string;
      try {
        token = await options.tokens.get();
      } catch (error) {
        if (error instanceof PartnerApiError) return tokenFailureResponse(error);
        throw error;
      }
      plan.token = token;
      headers.set('Authorization', `Bearer ${token}`);
    }
    if (plan.write) {
      // A fresh timestamp per attempt: the service refuses one more than 300 s off (decisions §3 step 4).
      const timestamp = unixSeconds(options.clock.now());
      headers.set('X-Partner-Request-Timestamp', timestamp);
      headers.set('X-Partner-Signature', options.signer.sign(plan.method, plan.path, timestamp));
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

  /** Follows one call from its first outcome to the answer the caller gets. */
  async function settle(plan: CallPlan, first: Outcome): Promise<Outcome> {
    let outcome = first;
    let refreshed = false;
    let retries = 0;
    for (;;) {
      let delayMs: number;
      if ('response' in outcome) {
        const { response } = outcome;
        if (outcome.final === true) return outcome;
        if (response.status === 401 && plan.authenticated && !refreshed && plan.token !== undefined && (await isBearerRejection(response))) {
          // Revoked or expired early: one new token and one more try, never a loop.
          refreshed = true;
          options.tokens.invalidate(plan.token);
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
          { attempt: retries, maxRetries: options.maxRetries, method: plan.method, networkError: true, idempotencyKey: plan.write },
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
      const headers = new Headers(request.headers);
      if (write && !headers.has('Idempotency-Key')) headers.set('Idempotency-Key', options.newIdempotencyKey());
      const body = request.body === null ? undefined : await request.text();
      if (body !== undefined && MERGE_PATCH_PATHS.has(schemaPath)) headers.set('Content-Type', 'application/merge-patch+json');
      const plan: CallPlan = {
        method: request.method,
        url: request.url,
        path: new URL(request.url).pathname,
        headers,
        body,
        signal: request.signal,
        redirect: request.redirect,
        write,
        authenticated: !PUBLIC_PATHS.has(schemaPath),
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
      return outcome.error instanceof Error ? outcome.error : new Error(String(outcome.error), { cause: outcome.error });
    },
  };
}
