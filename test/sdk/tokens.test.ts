import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createPartnerClient,
  isErrorType,
  PartnerApiError,
  type Fetch,
  type PartnerClientOptions,
} from '../../client/index.js';
import { startFakeService, tokenReply, type FakeService } from './fake-service.js';

/**
 * The SDK's token handling against a fake token endpoint on a real socket: one request in flight
 * however many calls wait, refresh 60 s before expiry by the injected clock, one refresh on 401.
 */
const privateKeyPem = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();

let service: FakeService;
beforeAll(async () => {
  service = await startFakeService();
});
afterAll(async () => {
  await service.close();
});
beforeEach(() => {
  service.requests.length = 0;
  service.tokenRequests.length = 0;
  service.handle(() => ({ status: 200, body: { cards: [] } }));
  service.handleToken((_request, index) => tokenReply(`token-${index + 1}`));
});

function client(extra: Partial<PartnerClientOptions> = {}) {
  return createPartnerClient({
    baseUrl: service.baseUrl,
    clientId: 'cli_test',
    clientSecret: 's3cret:with+chars',
    privateKeyPem,
    sleep: async () => {},
    ...extra,
  });
}

function bearerOf(index: number): string | undefined {
  return service.requests[index]?.headers.authorization;
}

describe('token requests', () => {
  it('authenticate with HTTP Basic (form-encoded parts) and a form body', async () => {
    const partner = client({ scope: ['cards:read', 'transfers:read'] });
    await partner.GET('/v1/card');
    const [request] = service.tokenRequests;
    expect(request?.method).toBe('POST');
    expect(request?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const basic = Buffer.from((request?.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString();
    expect(basic).toBe('cli_test:s3cret%3Awith%2Bchars');
    expect(Object.fromEntries(new URLSearchParams(request?.body))).toEqual({
      grant_type: 'client_credentials',
      scope: 'cards:read transfers:read',
    });
    expect(bearerOf(0)).toBe('Bearer token-1');
  });

  it('one token request serves many concurrent calls', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    service.handleToken((_request, index) => ({ ...tokenReply(`token-${index + 1}`), after: held }));
    const partner = client();
    const calls = Promise.all(Array.from({ length: 25 }, () => partner.GET('/v1/card')));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(service.tokenRequests).toHaveLength(1);
    release();
    const results = await calls;
    expect(results.every((result) => result.response.status === 200)).toBe(true);
    expect(service.tokenRequests).toHaveLength(1);
    expect(new Set(service.requests.map((request) => request.headers.authorization))).toEqual(
      new Set(['Bearer token-1']),
    );
  });

  it('is cached, and refreshed 60 s before expiry by the injected clock', async () => {
    let now = Date.parse('2025-03-01T10:00:00Z');
    const partner = client({ clock: { now: () => now } });
    await partner.GET('/v1/card');
    now += 3_539_000; // 59 min 59 s later: 61 s left
    await partner.GET('/v1/card');
    expect(service.tokenRequests).toHaveLength(1);
    now += 1_000; // 60 s left: time to refresh
    await partner.GET('/v1/card');
    expect(service.tokenRequests).toHaveLength(2);
    expect([bearerOf(0), bearerOf(1), bearerOf(2)]).toEqual(['Bearer token-1', 'Bearer token-1', 'Bearer token-2']);
  });

  it('a 401 on a bearer token refreshes it once and repeats the request', async () => {
    service.handle((request) =>
      request.headers.authorization === 'Bearer token-1'
        ? {
            status: 401,
            headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
            body: { type: 'Unauthorized', message: 'revoked' },
          }
        : { status: 200, body: { cards: [] } },
    );
    const { data, response } = await client().GET('/v1/card');
    expect(response.status).toBe(200);
    expect(data).toEqual({ cards: [] });
    expect(service.tokenRequests).toHaveLength(2);
    expect(service.requests.map((request) => request.headers.authorization)).toEqual([
      'Bearer token-1',
      'Bearer token-2',
    ]);
  });

  it('a second 401 goes back to the caller: no loop', async () => {
    service.handle(() => ({
      status: 401,
      headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
      body: { type: 'Unauthorized', message: 'no' },
    }));
    const { error, response } = await client().GET('/v1/card');
    expect(response.status).toBe(401);
    expect(isErrorType(error, 'Unauthorized')).toBe(true);
    expect(service.requests).toHaveLength(2);
    expect(service.tokenRequests).toHaveLength(2);
  });

  it('a 401 that is not about the token (a bad signature) is not refreshed', async () => {
    service.handle(() => ({
      status: 401,
      body: { type: 'InvalidSignature', message: 'The request signature does not verify.' },
    }));
    const { error } = await client().POST('/v1/transfer/{id}/cancel', { params: { path: { id: 'trf_1' } } });
    expect(isErrorType(error, 'InvalidSignature')).toBe(true);
    expect(service.requests).toHaveLength(1);
    expect(service.tokenRequests).toHaveLength(1);
  });

  it('wrong client credentials come back as the call’s { error, response }', async () => {
    service.handleToken(() => ({
      status: 401,
      headers: { 'WWW-Authenticate': 'Basic realm="partner-api"', 'X-Request-Id': 'req_1' },
      body: { type: 'Unauthorized', message: 'Client authentication failed.', error: 'invalid_client' },
    }));
    const partner = client();
    const { error, response } = await partner.GET('/v1/card');
    expect(response.status).toBe(401);
    expect(response.headers.get('x-request-id')).toBe('req_1');
    expect(error).toMatchObject({ type: 'Unauthorized', error: 'invalid_client' });
    expect(service.requests).toHaveLength(0);
    expect(service.tokenRequests).toHaveLength(1); // a 401 from the token endpoint is not retried
    await expect(partner.accessToken()).rejects.toBeInstanceOf(PartnerApiError);
  });

  it('token requests are retried on 503 and honour Retry-After', async () => {
    const delays: number[] = [];
    service.handleToken((_request, index) =>
      index === 0
        ? { status: 503, headers: { 'Retry-After': '2' }, body: { type: 'InternalError', message: 'busy' } }
        : tokenReply('token-ok'),
    );
    const partner = client({ sleep: async (ms) => void delays.push(ms) });
    expect(await partner.accessToken()).toBe('token-ok');
    expect(delays).toEqual([2_000]);
  });

  it('a token request retried on 503 waits Retry-After and sends the same form body, Content-Type and Basic credentials', async () => {
    const delays: number[] = [];
    service.handleToken((_request, index) =>
      index === 0
        ? { status: 503, headers: { 'Retry-After': '2' }, body: { type: 'InternalError', message: 'busy' } }
        : tokenReply('token-ok'),
    );
    const partner = client({
      scope: 'cards:read transfers:read',
      sleep: async (ms) => void delays.push(ms),
      random: () => 0.5,
    });
    const { response } = await partner.GET('/v1/card');
    expect(response.status).toBe(200);
    expect(delays).toEqual([2_000]);
    expect(service.tokenRequests).toHaveLength(2);
    for (const request of service.tokenRequests) {
      expect(request.body).toBe('grant_type=client_credentials&scope=cards%3Aread+transfers%3Aread');
      expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded');
      expect(request.headers.authorization).toBe(
        `Basic ${Buffer.from('cli_test:s3cret%3Awith%2Bchars').toString('base64')}`,
      );
    }
    expect(bearerOf(0)).toBe('Bearer token-ok');
  });

  it('without a scope the form body is grant_type alone', async () => {
    await client().accessToken();
    expect(service.tokenRequests[0]?.body).toBe('grant_type=client_credentials');
  });

  it('a token request that meets a network error is retried: a POST, but safe to repeat', async () => {
    const delays: number[] = [];
    let failed = 0;
    const flaky: Fetch = async (request) => {
      if (new URL(request.url).pathname === '/v1/oauth/token' && failed === 0) {
        failed += 1;
        throw new TypeError('fetch failed: connection reset');
      }
      return fetch(request);
    };
    const partner = client({ fetch: flaky, sleep: async (ms) => void delays.push(ms), random: () => 0.5 });
    expect(await partner.accessToken()).toBe('token-1');
    expect(failed).toBe(1);
    expect(delays).toEqual([250]);
  });

  it('a network error on every token request is thrown by the call once the retries are spent', async () => {
    const delays: number[] = [];
    const down: Fetch = async (request) => {
      if (new URL(request.url).pathname === '/v1/oauth/token') throw new TypeError('fetch failed: token endpoint down');
      return fetch(request);
    };
    const partner = client({ fetch: down, sleep: async (ms) => void delays.push(ms), random: () => 0.5 });
    await expect(partner.GET('/v1/card')).rejects.toThrow('token endpoint down');
    expect(delays).toEqual([250, 500]);
    expect(service.requests).toHaveLength(0);
  });

  it('a token endpoint that stays at 503 is retried maxRetries times, then its response is the call’s', async () => {
    const delays: number[] = [];
    service.handleToken(() => ({
      status: 503,
      headers: { 'X-Request-Id': 'req_503' },
      body: { type: 'InternalError', message: 'down' },
    }));
    const partner = client({ maxRetries: 3, sleep: async (ms) => void delays.push(ms), random: () => 0.5 });
    const { error, response } = await partner.GET('/v1/card');
    expect(response.status).toBe(503);
    expect(response.headers.get('x-request-id')).toBe('req_503');
    expect(isErrorType(error, 'InternalError')).toBe(true);
    expect(service.tokenRequests).toHaveLength(4);
    expect(delays).toEqual([250, 500, 1_000]);
    expect(service.requests).toHaveLength(0);
  });

  it.each([
    ['maxRetries 0', { maxRetries: 0 }, { status: 503, body: { type: 'InternalError', message: 'down' } }],
    [
      'a 400 (scope not granted)',
      {},
      { status: 400, body: { type: 'InvalidRequest', message: 'no such scope', error: 'invalid_scope' } },
    ],
    [
      'a Retry-After longer than the client waits',
      {},
      {
        status: 429,
        headers: { 'Retry-After': '61' },
        body: { type: 'InvalidRequest', message: 'slow down', error: 'invalid_client' },
      },
    ],
  ])('a token request is not retried with %s', async (_name, extra, reply) => {
    const delays: number[] = [];
    service.handleToken(() => reply);
    const partner = client({ ...extra, sleep: async (ms) => void delays.push(ms) });
    const failure = await partner.accessToken().catch((thrown: unknown) => thrown);
    expect(failure).toBeInstanceOf(PartnerApiError);
    expect(failure).toMatchObject({ status: reply.status });
    expect(service.tokenRequests).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it('the bank list needs no token', async () => {
    service.handle(() => ({ status: 200, body: [] }));
    await client().GET('/v1/bank');
    expect(service.tokenRequests).toHaveLength(0);
    expect(bearerOf(0)).toBeUndefined();
  });
});
