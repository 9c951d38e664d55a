import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPartnerClient, PartnerApiError, type Fetch, type PartnerClientOptions } from '../../client/index.js';
import { startFakeService, type FakeService, type Received } from './fake-service.js';

/**
 * The write protocol, retries and paging over a real socket, against a fake service that
 * scripts the failures (503, 429, 409, dropped connections) the real app gives only by accident.
 */
const privateKeyPem = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();
const publicKey = createPublicKey(privateKeyPem);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const transferBody = {
  amountCents: 150_00,
  currency: 'EGP',
  bankId: 'nbe',
  accountNumber: '1234567890',
  accountName: 'Mona Adel',
  category: 'OTHER',
} as const;
const transfer = {
  id: 'trf_1',
  idempotencyKey: 'k',
  ...transferBody,
  status: 'PENDING',
  submissionDate: 1,
  payee: {
    accountNumber: '1234567890',
    accountName: 'Mona Adel',
    bank: { id: 'nbe', name: 'National Bank of Egypt', shortName: 'NBE' },
  },
};

let service: FakeService;
let now: number;
let delays: number[];
beforeAll(async () => {
  service = await startFakeService();
});
afterAll(async () => {
  await service.close();
});
beforeEach(() => {
  service.requests.length = 0;
  service.tokenRequests.length = 0;
  now = Date.parse('2025-03-01T10:00:00Z');
  delays = [];
  service.handle(() => ({ status: 200, body: transfer }));
});

function client(extra: Partial<PartnerClientOptions> = {}) {
  return createPartnerClient({
    baseUrl: service.baseUrl,
    clientId: 'cli_test',
    clientSecret: 'secret',
    privateKeyPem,
    clock: { now: () => now },
    // Each wait moves the clock, so every attempt must carry a new timestamp.
    sleep: async (ms) => {
      delays.push(ms);
      now += 1_000 + ms;
    },
    random: () => 0.5,
    ...extra,
  });
}

function signatureValid(request: Received): boolean {
  const timestamp = String(request.headers['x-partner-request-timestamp']);
  const message = `${request.method}${request.path}${timestamp}`;
  return verify(
    'sha256',
    Buffer.from(message),
    publicKey,
    Buffer.from(String(request.headers['x-partner-signature']), 'base64'),
  );
}

describe('write requests', () => {
  it('get a UUID Idempotency-Key, the clock’s Unix seconds and a signature over METHOD + path + timestamp', async () => {
    const { data } = await client().POST('/v1/transfer', { body: transferBody });
    expect(data?.id).toBe('trf_1');
    const [request] = service.requests;
    expect(request?.headers['idempotency-key']).toMatch(UUID);
    expect(request?.headers['x-partner-request-timestamp']).toBe(String(Math.floor(now / 1000)));
    expect(request?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request?.body ?? '')).toEqual(transferBody);
    expect(request !== undefined && signatureValid(request)).toBe(true);
  });

  it('sign the actual path, never the query string', async () => {
    await client().POST('/v1/transfer/{id}/execute', { params: { path: { id: 'trf_abc' } } });
    const [request] = service.requests;
    expect(request?.path).toBe('/v1/transfer/trf_abc/execute');
    expect(request?.body).toBe('');
    expect(request !== undefined && signatureValid(request)).toBe(true);
  });

  it('keep an Idempotency-Key the caller gives', async () => {
    await client().POST('/v1/transfer/{id}/cancel', {
      params: { path: { id: 'trf_1' }, header: { 'Idempotency-Key': 'my-own-key-0001' } },
    });
    expect(service.requests[0]?.headers['idempotency-key']).toBe('my-own-key-0001');
  });

  it.each([
    ['PUT', { daily: 100_00, monthly: 1_000_00, atm: 500_00 }],
    ['PATCH', { daily: -50_00 }],
  ] as const)('send %s limits as application/merge-patch+json', async (method, body) => {
    const partner = client();
    const params = { path: { id: 'crd_1' } };
    if (method === 'PUT')
      await partner.PUT('/v1/card/{id}/limits', { params, body: { daily: 100_00, monthly: 1_000_00, atm: 500_00 } });
    else await partner.PATCH('/v1/card/{id}/limits', { params, body: { daily: -50_00 } });
    const [request] = service.requests;
    expect(request?.method).toBe(method);
    expect(request?.headers['content-type']).toBe('application/merge-patch+json');
    expect(JSON.parse(request?.body ?? '')).toEqual(body);
    expect(request !== undefined && signatureValid(request)).toBe(true);
  });

  it('reads carry none of the write headers', async () => {
    service.handle(() => ({ status: 200, body: transfer }));
    await client().GET('/v1/transfer/{id}', { params: { path: { id: 'trf_1' } } });
    expect(service.requests[0]?.headers['idempotency-key']).toBeUndefined();
    expect(service.requests[0]?.headers['x-partner-signature']).toBeUndefined();
  });
});

describe('retries', () => {
  it.each([
    ['503', { status: 503, body: { type: 'InternalError', message: 'x' } }],
    ['500', { status: 500, body: { type: 'InternalError', message: 'x' } }],
    ['409 key in flight', { status: 409, body: { type: 'DuplicateIdempotencyKey', message: 'still running' } }],
    ['429', { status: 429, body: { type: 'InvalidRequest', message: 'slow down' } }],
  ])(
    'a write that got %s is retried with the same key, a fresh timestamp and the same body',
    async (_name, failure) => {
      service.handle((_request, index) => (index === 0 ? failure : { status: 200, body: transfer }));
      const { data } = await client().POST('/v1/transfer', { body: transferBody });
      expect(data?.id).toBe('trf_1');
      const [first, second] = service.requests;
      expect(service.requests).toHaveLength(2);
      expect(second?.headers['idempotency-key']).toBe(first?.headers['idempotency-key']);
      expect(Number(second?.headers['x-partner-request-timestamp'])).toBeGreaterThan(
        Number(first?.headers['x-partner-request-timestamp']),
      );
      expect(second?.body).toBe(first?.body);
      expect([first, second].every((request) => request !== undefined && signatureValid(request))).toBe(true);
      expect(delays).toEqual([250]);
    },
  );

  it('stops after maxRetries and returns the last response', async () => {
    service.handle(() => ({ status: 503, body: { type: 'InternalError', message: 'down' } }));
    const { error, response } = await client({ maxRetries: 3 }).GET('/v1/transfer/{id}', {
      params: { path: { id: 'trf_1' } },
    });
    expect(response.status).toBe(503);
    expect(error).toMatchObject({ type: 'InternalError' });
    expect(service.requests).toHaveLength(4);
    expect(delays).toEqual([250, 500, 1_000]);
  });

  it('honours Retry-After', async () => {
    service.handle((_request, index) =>
      index === 0
        ? { status: 429, headers: { 'Retry-After': '3' }, body: { type: 'InvalidRequest', message: 'x' } }
        : { status: 200, body: transfer },
    );
    await client().GET('/v1/transfer/{id}', { params: { path: { id: 'trf_1' } } });
    expect(delays).toEqual([3_000]);
  });

  it.each([400, 403, 404, 413, 415, 422])('never retries a %i', async (status) => {
    service.handle(() => ({ status, body: { type: 'InvalidRequest', message: 'no' } }));
    const { response } = await client().POST('/v1/transfer', { body: transferBody });
    expect(response.status).toBe(status);
    expect(service.requests).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it('a network failure after the server responded is retried with the same key and body', async () => {
    let dropped = 0;
    const flaky: Fetch = async (request) => {
      const response = await fetch(request);
      if (request.method === 'POST' && new URL(request.url).pathname === '/v1/transfer' && dropped === 0) {
        dropped += 1;
        await response.body?.cancel();
        throw new TypeError('fetch failed: connection reset');
      }
      return response;
    };
    const { data } = await client({ fetch: flaky }).POST('/v1/transfer', { body: transferBody });
    expect(data?.id).toBe('trf_1');
    expect(dropped).toBe(1);
    const [first, second] = service.requests;
    expect(service.requests).toHaveLength(2);
    expect(second?.headers['idempotency-key']).toBe(first?.headers['idempotency-key']);
    expect(second?.body).toBe(JSON.stringify(transferBody));
  });

  it('a network failure that persists is thrown, as openapi-fetch does', async () => {
    const down: Fetch = async (request) => {
      if (new URL(request.url).pathname === '/v1/oauth/token') return fetch(request);
      throw new TypeError('fetch failed');
    };
    await expect(client({ fetch: down }).GET('/v1/card')).rejects.toThrow('fetch failed');
    expect(delays).toEqual([250, 500]);
  });

  it('an aborted call is not retried', async () => {
    const controller = new AbortController();
    service.handle(() => ({ status: 200, body: transfer, after: new Promise((resolve) => setTimeout(resolve, 200)) }));
    const call = client().GET('/v1/transfer/{id}', { params: { path: { id: 'trf_1' } }, signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await expect(call).rejects.toThrow();
    expect(delays).toEqual([]);
  });
});

describe('queries and paging', () => {
  it('array filters go as one comma-separated value', async () => {
    service.handle(() => ({ status: 200, body: { transactions: [] } }));
    await client().GET('/v1/transaction', {
      params: { query: { statuses: ['SUCCEEDED', 'DECLINED'], categories: ['FOOD_BEVERAGE'], limit: 5 } },
    });
    const query = new URL(service.requests[0]?.url ?? '', service.baseUrl).searchParams;
    expect(query.get('statuses')).toBe('SUCCEEDED,DECLINED');
    expect(query.get('categories')).toBe('FOOD_BEVERAGE');
    expect(query.get('limit')).toBe('5');
  });

  it('paginate follows nextCursor with the same filters and limit', async () => {
    const pages = [
      {
        transfers: [
          { ...transfer, id: 'trf_1' },
          { ...transfer, id: 'trf_2' },
        ],
        nextCursor: 'c1',
      },
      { transfers: [{ ...transfer, id: 'trf_3' }], nextCursor: 'c2' },
      { transfers: [{ ...transfer, id: 'trf_4' }] },
    ];
    service.handle((_request, index) => ({ status: 200, body: pages[index] }));
    const ids: string[] = [];
    for await (const item of client().paginate('/v1/transfer', { query: { limit: 2, status: 'PENDING' } }))
      ids.push(item.id);
    expect(ids).toEqual(['trf_1', 'trf_2', 'trf_3', 'trf_4']);
    expect(
      service.requests.map((request) => Object.fromEntries(new URL(request.url, service.baseUrl).searchParams)),
    ).toEqual([
      { limit: '2', status: 'PENDING' },
      { limit: '2', status: 'PENDING', cursor: 'c1' },
      { limit: '2', status: 'PENDING', cursor: 'c2' },
    ]);
  });

  it('paginate throws PartnerApiError with the error body on an error page', async () => {
    service.handle((_request, index) =>
      index === 0
        ? { status: 200, body: { cards: [], nextCursor: 'c1' } }
        : {
            status: 400,
            headers: { 'X-Request-Id': 'req_9' },
            body: { type: 'InvalidRequest', message: 'The cursor is not valid.' },
          },
    );
    const iterate = async () => {
      for await (const _card of client().paginate('/v1/card')) void _card;
    };
    const error = await iterate().catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(PartnerApiError);
    expect(error).toMatchObject({
      status: 400,
      type: 'InvalidRequest',
      requestId: 'req_9',
      body: { message: 'The cursor is not valid.' },
    });
  });
});

describe('options', () => {
  it.each([
    ['no baseUrl', { baseUrl: '' }, /baseUrl is required/],
    ['a baseUrl that is no URL', { baseUrl: 'localhost' }, /not a URL/],
    ['no clientSecret', { clientSecret: '' }, /clientSecret is required/],
    ['a bad key', { privateKeyPem: 'nope' }, /privateKeyPem is not a readable private key/],
    ['negative maxRetries', { maxRetries: -1 }, /maxRetries/],
  ])('rejects %s when built', (_name, override, message) => {
    expect(() =>
      createPartnerClient({
        baseUrl: 'http://localhost:3000',
        clientId: 'c',
        clientSecret: 's',
        privateKeyPem,
        ...override,
      }),
    ).toThrow(message);
  });
});
