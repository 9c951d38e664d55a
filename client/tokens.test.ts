import createClient from 'openapi-fetch';
import { describe, expect, it } from 'vitest';
import type { paths } from '../generated/openapi-types.js';
import { PartnerApiError } from './errors.js';
import { retryMiddleware } from './middleware.js';
import { DEFAULT_RETRY_POLICY } from './retry.js';
import { createTokenCache, tokenRequester, type TokenGrant } from './tokens.js';

/** A token source the test resolves by hand, to hold requests in flight. */
function manualSource() {
  const pending: { resolve: (grant: TokenGrant) => void; reject: (error: unknown) => void }[] = [];
  let issued = 0;
  return {
    pending,
    get count() {
      return issued;
    },
    request: () =>
      new Promise<TokenGrant>((resolve, reject) => {
        issued += 1;
        pending.push({ resolve, reject });
      }),
    grant(index: number, expiresInSeconds = 3600) {
      pending[index]?.resolve({ accessToken: `token-${index + 1}`, expiresInSeconds, scope: 'cards:read' });
    },
  };
}

describe('createTokenCache', () => {
  it('shares one request among concurrent callers', async () => {
    const source = manualSource();
    const clock = { now: () => 1_000_000 };
    const cache = createTokenCache({ request: source.request, clock });
    const waiting = Promise.all(Array.from({ length: 20 }, () => cache.get()));
    expect(source.count).toBe(1);
    source.grant(0);
    expect(new Set(await waiting)).toEqual(new Set(['token-1']));
    expect(await cache.get()).toBe('token-1');
    expect(source.count).toBe(1);
  });

  it.each([
    ['well before expiry', 3600, 3_000_000, 1],
    ['just before the 60 s margin', 3600, 3_539_999, 1],
    ['at the 60 s margin', 3600, 3_540_000, 2],
    ['after expiry', 3600, 3_700_000, 2],
    ['short token: half its life left', 60, 29_999, 1],
    ['short token: refreshed at half its life', 60, 30_000, 2],
  ])('%s', async (_name, expiresIn, advanceMs, wantRequests) => {
    const source = manualSource();
    let now = 0;
    const cache = createTokenCache({ request: source.request, clock: { now: () => now } });
    const first = cache.get();
    source.grant(0, expiresIn);
    await first;
    now += advanceMs;
    const second = cache.get();
    source.grant(1, expiresIn);
    await second;
    expect(source.count).toBe(wantRequests);
  });

  it('invalidate drops only the token that failed, so later 401s with it share one refresh', async () => {
    const source = manualSource();
    const cache = createTokenCache({ request: source.request, clock: { now: () => 0 } });
    const first = cache.get();
    source.grant(0);
    expect(await first).toBe('token-1');
    cache.invalidate('token-1');
    const a = cache.get();
    cache.invalidate('token-1'); // a second call that failed with the old token
    const b = cache.get();
    expect(source.count).toBe(2);
    source.grant(1);
    expect([await a, await b]).toEqual(['token-2', 'token-2']);
    cache.invalidate('token-1'); // late news about the old token changes nothing
    expect(await cache.get()).toBe('token-2');
    expect(source.count).toBe(2);
  });

  it('a failed request fails every waiter, and the next call tries again', async () => {
    const source = manualSource();
    const cache = createTokenCache({ request: source.request, clock: { now: () => 0 } });
    const waiters = [cache.get(), cache.get()];
    source.pending[0]?.reject(new Error('down'));
    for (const waiter of waiters) await expect(waiter).rejects.toThrow('down');
    const retry = cache.get();
    expect(source.count).toBe(2);
    source.grant(1);
    expect(await retry).toBe('token-2');
  });
});

describe('tokenRequester', () => {
  /** The token client as the SDK builds it, over a fetch that responds from a script. */
  function tokenClient(responses: (() => Response)[]) {
    const sent: { method: string; url: string; headers: Headers; body: string }[] = [];
    const delays: number[] = [];
    const fetch = async (request: Request): Promise<Response> => {
      sent.push({ method: request.method, url: request.url, headers: request.headers, body: await request.text() });
      const respond = responses[sent.length - 1];
      if (respond === undefined) throw new Error('no response scripted');
      return respond();
    };
    const client = createClient<paths>({ baseUrl: 'http://partner.test', fetch });
    client.use(
      retryMiddleware({
        fetch,
        clock: { now: () => 0 },
        maxRetries: 2,
        retryPolicy: DEFAULT_RETRY_POLICY,
        sleep: async (ms) => void delays.push(ms),
        random: () => 0.5,
      }),
    );
    return { client, sent, delays };
  }
  const json =
    (status: number, body: unknown, headers: Record<string, string> = {}) =>
    () =>
      new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });
  const granted = json(200, { access_token: 'tok', token_type: 'Bearer', expires_in: 3600, scope: 'cards:read' });

  it('posts the form openapi-fetch serializes, and the middleware retries it on 503 after Retry-After', async () => {
    const { client, sent, delays } = tokenClient([
      json(503, { type: 'InternalError', message: 'busy' }, { 'Retry-After': '1' }),
      granted,
    ]);
    const request = tokenRequester({
      client,
      clientId: 'cli 1',
      clientSecret: 'a:b+c',
      scope: 'cards:read transfers:read',
    });
    expect(await request()).toEqual({ accessToken: 'tok', expiresInSeconds: 3600, scope: 'cards:read' });
    expect(delays).toEqual([1_000]);
    expect(sent).toHaveLength(2);
    for (const attempt of sent) {
      expect(attempt.method).toBe('POST');
      expect(attempt.url).toBe('http://partner.test/v1/oauth/token');
      expect(attempt.body).toBe('grant_type=client_credentials&scope=cards%3Aread+transfers%3Aread');
      expect(attempt.headers.get('content-type')).toBe('application/x-www-form-urlencoded');
      expect(attempt.headers.get('authorization')).toBe(`Basic ${Buffer.from('cli+1:a%3Ab%2Bc').toString('base64')}`);
    }
  });

  it('throws the rejection as a PartnerApiError, without a retry', async () => {
    const { client, sent, delays } = tokenClient([
      json(
        401,
        { type: 'Unauthorized', message: 'Client authentication failed.', error: 'invalid_client' },
        { 'X-Request-Id': 'req_7' },
      ),
    ]);
    const failure = await tokenRequester({ client, clientId: 'c', clientSecret: 's' })().catch(
      (thrown: unknown) => thrown,
    );
    expect(failure).toBeInstanceOf(PartnerApiError);
    expect(failure).toMatchObject({
      status: 401,
      type: 'Unauthorized',
      requestId: 'req_7',
      body: { error: 'invalid_client' },
    });
    expect(sent).toHaveLength(1);
    expect(delays).toEqual([]);
  });
});
