import { createPrivateKey, createSign, randomUUID, type KeyObject } from 'node:crypto';
import type { OnboardingResult } from '../../server/onboarding.js';

// A partner as the proofs drive it over real sockets: a bearer token, signed write requests,
// idempotency keys chosen by the caller so that retries reuse them, and a deadline
// on every request.

export interface ProofResponse {
  readonly status: number;
  readonly body: unknown;
  /** `Idempotent-Replayed: true` was sent. */
  readonly replayed: boolean;
}

export interface SendOptions {
  readonly body?: unknown;
  /** The Idempotency-Key of a write; a fresh UUID when absent. */
  readonly key?: string;
  /** Which server to send to (several instances); default the first. */
  readonly baseUrl?: string;
  readonly timeoutMs?: number;
  readonly contentType?: string;
}

export interface ProofClient extends OnboardingResult {
  /** A token for `scope` (all granted scopes when absent), cached per scope. */
  token(scope?: string): Promise<string>;
  sign(method: string, path: string, timestamp: number | string): string;
  send(method: string, path: string, options?: SendOptions): Promise<ProofResponse>;
}

const WRITES = new Set(['POST', 'PUT', 'PATCH']);

export function proofClient(
  credentials: OnboardingResult,
  baseUrls: readonly string[],
  now: () => number = Date.now,
): ProofClient {
  const [firstUrl] = baseUrls;
  if (firstUrl === undefined) throw new Error('proofClient needs a base URL');
  const tokens = new Map<string, Promise<string>>();
  let privateKey: KeyObject | undefined;

  const requestToken = async (scope: string | undefined): Promise<string> => {
    const form = new URLSearchParams({ grant_type: 'client_credentials', ...(scope !== undefined ? { scope } : {}) });
    const response = await fetch(`${firstUrl}/v1/oauth/token`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Authorization: `Basic ${Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString('base64')}`,
      },
      body: form,
      signal: AbortSignal.timeout(30_000),
    });
    if (response.status !== 200) throw new Error(`token request failed: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { access_token: string }).access_token;
  };

  const client: ProofClient = {
    ...credentials,
    token(scope) {
      const cacheKey = scope ?? '*';
      let token = tokens.get(cacheKey);
      if (token === undefined) {
        token = requestToken(scope);
        token.catch(() => tokens.delete(cacheKey));
        tokens.set(cacheKey, token);
      }
      return token;
    },
    sign(method, path, timestamp) {
      if (credentials.privateKeyPem === undefined) throw new Error('this partner brought its own key');
      privateKey ??= createPrivateKey(credentials.privateKeyPem);
      return createSign('RSA-SHA256').update(`${method.toUpperCase()}${path}${timestamp}`).sign(privateKey, 'base64');
    },
    async send(method, path, options = {}) {
      const headers: Record<string, string> = { Authorization: `Bearer ${await client.token()}` };
      if (WRITES.has(method.toUpperCase())) {
        const timestamp = Math.floor(now() / 1000);
        headers['Idempotency-Key'] = options.key ?? randomUUID();
        headers['X-Partner-Request-Timestamp'] = String(timestamp);
        headers['X-Partner-Signature'] = client.sign(method, path.split('?')[0] ?? path, timestamp);
      }
      let body: string | undefined;
      if (options.body !== undefined) {
        body = JSON.stringify(options.body);
        headers['Content-Type'] = options.contentType ?? 'application/json';
      }
      const response = await fetch(`${options.baseUrl ?? firstUrl}${path}`, {
        method,
        headers,
        ...(body !== undefined ? { body } : {}),
        signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
      });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text === '' ? undefined : JSON.parse(text);
      } catch {
        // not JSON: kept as text for the failure message
      }
      return {
        status: response.status,
        body: parsed,
        replayed: response.headers.get('idempotent-replayed') === 'true',
      };
    },
  };
  return client;
}

/** A body field, or undefined when the body is not an object. */
export function field(response: ProofResponse, name: string): unknown {
  const body = response.body;
  return typeof body === 'object' && body !== null && !Array.isArray(body)
    ? (body as Record<string, unknown>)[name]
    : undefined;
}

/** A short description of a response, for failure messages. */
export function describeResponse(response: ProofResponse): string {
  return `${response.status} ${JSON.stringify(response.body)?.slice(0, 300) ?? ''}`;
}

/** A valid transfer body (a domestic account is 6 to 30 digits; one ending in 0002 fails at settlement). */
export function transferBody(
  amountCents: number,
  options: { fails?: boolean; memo?: string; serial?: number } = {},
): Record<string, unknown> {
  const serial = options.serial ?? Math.floor(Math.random() * 1e6);
  const account = `${String(serial % 1e6).padStart(6, '0')}${options.fails === true ? '0002' : '0001'}`;
  return {
    amountCents,
    currency: 'EGP',
    bankId: 'nbe',
    accountNumber: account,
    accountName: 'Proof Payee',
    category: 'LOGISTICS',
    ...(options.memo !== undefined ? { memo: options.memo } : {}),
  };
}
