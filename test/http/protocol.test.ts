import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Partner, type TestApp } from '../../scripts/proof/app.js';
import { expectError, expectNoLeak, rawRequest, transferBody, writeHeaders } from './support.js';

// How the service responds to requests it cannot serve (unknown paths and
// methods, oversized or mistyped bodies, unknown parameters and properties), the request id,
// health, and the cacheable bank list.

let app: TestApp;
let partner: Partner;

beforeAll(async () => {
  app = await startTestApp();
  partner = await app.onboard({ name: 'Protocol Partner' });
});
afterAll(async () => {
  await app.close();
});

describe('unknown paths and methods', () => {
  it.each([
    '/',
    '/v1',
    '/v1/nothing',
    '/v2/transfer',
    '/v1/transfer/trf_1/refund',
    '/v1/transfer/a/b/c',
    '/v1/banks',
    '/V1/TRANSFER',
    '/v1/Transfer',
    '/V1/bank',
    '//v1/transfer',
  ])('GET %s → 404 NotFound', async (path) => {
    await expectError(await partner.request('GET', path), 404, 'NotFound');
  });

  it.each([
    ['DELETE', '/v1/transfer', 'GET, POST'],
    ['PUT', '/v1/bank', 'GET'],
    ['PATCH', '/v1/transfer/trf_123', 'GET'],
    ['GET', '/v1/transfer/trf_123/cancel', 'POST'],
    ['GET', '/v1/transfer/trf_123/execute', 'POST'],
    ['GET', '/v1/oauth/token', 'POST'],
    ['OPTIONS', '/v1/transfer', 'GET, POST'],
    ['OPTIONS', '/v1/transfer/trf_123/execute', 'POST'],
  ])('%s %s → 405 with Allow: %s', async (method, path, allow) => {
    const response = await partner.request(method, path, { signed: false });
    await expectError(response, 405, 'InvalidRequest');
    expect(response.headers.get('allow')?.split(/,\s*/).sort()).toEqual(allow.split(', ').sort());
  });

  it('HEAD is not declared either → 405 with Allow, no body', async () => {
    const response = await fetch(`${app.baseUrl}/v1/bank`, { method: 'HEAD' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET');
    expect(response.headers.get('x-request-id')).toBeTruthy();
  });

  it('OPTIONS on an unknown path → 404 NotFound', async () => {
    await expectError(await fetch(`${app.baseUrl}/v1/nothing`, { method: 'OPTIONS' }), 404, 'NotFound');
  });

  it('an unknown path is 404 before authentication and validation', async () => {
    await expectError(await fetch(`${app.baseUrl}/v1/nothing?foo=bar`, { method: 'POST' }), 404, 'NotFound');
    await expectError(await fetch(`${app.baseUrl}/V1/TRANSFER?limit=0`), 404, 'NotFound');
  });

  it('an unknown transfer id → 404 NotFound', async () => {
    await expectError(await partner.request('GET', '/v1/transfer/trf_000000000000000000000000'), 404, 'NotFound');
  });

  it.each([
    ['a space', '/v1/transfer/bad%20id'],
    ['65 characters', `/v1/transfer/${'a'.repeat(65)}`],
    ['a dot', '/v1/transfer/trf.1'],
  ])('an id with %s → 400 InvalidRequest', async (_name, path) => {
    await expectError(await partner.request('GET', path), 400, 'InvalidRequest');
  });
});

describe('request bodies', () => {
  it('a body over 64 KiB → 413 InvalidRequest', async () => {
    const body = { ...transferBody(), note: 'x'.repeat(70 * 1024) };
    await expectError(await partner.request('POST', '/v1/transfer', { body }), 413, 'InvalidRequest');
  });

  it('a body just under 64 KiB is read (and then rejected by the schema: note is at most 500 characters)', async () => {
    const body = { ...transferBody(), note: 'x'.repeat(60 * 1024) };
    await expectError(await partner.request('POST', '/v1/transfer', { body }), 400, 'InvalidRequest');
  });

  it('a token request over 64 KiB → 413 with the OAuth error code', async () => {
    const response = await fetch(`${app.baseUrl}/v1/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `grant_type=client_credentials&scope=${'a'.repeat(70 * 1024)}`,
    });
    const body = await expectError(response, 413, 'InvalidRequest');
    expect(body.error).toBe('invalid_request');
  });

  it.each(['text/plain', 'application/merge-patch+json', 'application/x-www-form-urlencoded', 'application/xml'])(
    'Content-Type %s on transfer creation → 415 InvalidRequest',
    async (contentType) => {
      const response = await partner.request('POST', '/v1/transfer', { body: transferBody(), contentType });
      await expectError(response, 415, 'InvalidRequest');
    },
  );

  it.each([
    ['a truncated object', '{"amountCents": 100,'],
    ['a bare word', 'transfer'],
    ['single quotes', "{'amountCents': 100}"],
    ['a trailing comma', '{"amountCents": 100,}'],
  ])('malformed JSON (%s) → 400 InvalidRequest', async (_name, rawBody) => {
    await expectError(await partner.request('POST', '/v1/transfer', { rawBody }), 400, 'InvalidRequest');
  });

  it.each([
    ['an array', '[]'],
    ['null', 'null'],
    ['a number', '42'],
    ['an empty object', '{}'],
  ])('a body that is %s → 400 InvalidRequest', async (_name, rawBody) => {
    await expectError(await partner.request('POST', '/v1/transfer', { rawBody }), 400, 'InvalidRequest');
  });

  it('no body at all → 400 InvalidRequest', async () => {
    const response = await partner.request('POST', '/v1/transfer', { headers: { 'Content-Type': 'application/json' } });
    await expectError(response, 400, 'InvalidRequest');
  });

  it.each([
    ['status', { status: 'SUCCEEDED' }],
    ['organizationId', { organizationId: 'org_someoneelse00000000000000' }],
    ['id', { id: 'trf_chosen' }],
    ['reviewedAt', { reviewedAt: 1 }],
    ['idempotencyKey', { idempotencyKey: 'chosen-key-123456' }],
  ])('an unknown body property (%s: mass assignment) → 400 InvalidRequest, nothing created', async (_name, extra) => {
    const before = await app.db
      .selectFrom('transfers')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const response = await partner.request('POST', '/v1/transfer', { body: { ...transferBody(), ...extra } });
    await expectError(response, 400, 'InvalidRequest');
    const after = await app.db
      .selectFrom('transfers')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n);
  });

  it.each([
    ['amountCents 0', { amountCents: 0 }],
    ['amountCents above the maximum', { amountCents: 100_000_000_000 }],
    ['amountCents as a string', { amountCents: '100' }],
    ['amountCents with decimals', { amountCents: 10.5 }],
    ['another currency', { currency: 'USD' }],
    ['an unknown category', { category: 'GAMBLING' }],
    ['an empty account name', { accountName: '' }],
    ['a memo over 100 characters', { memo: 'm'.repeat(101) }],
    ['a note over 500 characters', { note: 'n'.repeat(501) }],
    ['an account number over 50 characters', { accountNumber: '1'.repeat(51) }],
  ])('%s → 400 InvalidRequest', async (_name, change) => {
    await expectError(
      await partner.request('POST', '/v1/transfer', { body: { ...transferBody(), ...change } }),
      400,
      'InvalidRequest',
    );
  });
});

describe('the NUL character (PostgreSQL text cannot hold it)', () => {
  it.each([
    ['accountName', { accountName: 'Nile\u0000Supplies' }],
    ['memo', { memo: '\u0000' }],
    ['note', { note: 'note\u0000' }],
  ])('in %s → 400 InvalidRequest, nothing stored', async (_name, change) => {
    const key = randomUUID();
    const response = await partner.request('POST', '/v1/transfer', {
      body: { ...transferBody(), ...change },
      idempotencyKey: key,
    });
    await expectError(response, 400, 'InvalidRequest');
    const stored = await app.db.selectFrom('transfers').select('id').where('idempotency_key', '=', key).execute();
    expect(stored).toEqual([]);
  });

  it('in a property name → 400 InvalidRequest', async () => {
    const rawBody = JSON.stringify(transferBody()).replace('{', '{"a\\u0000b":1,');
    await expectError(await partner.request('POST', '/v1/transfer', { rawBody }), 400, 'InvalidRequest');
  });

  it('in a query parameter → 400 InvalidRequest', async () => {
    await expectError(await partner.request('GET', '/v1/transaction?merchant=uber%00'), 400, 'InvalidRequest');
  });
});

describe('requests Node itself refuses', () => {
  async function rawExchange(request: string): Promise<string> {
    const url = new URL(app.baseUrl);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () => socket.end(request));
      let received = '';
      socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
      socket.on('end', () => resolve(received));
      socket.on('error', reject);
    });
  }

  it.each([
    ['a control character in a header value', 'GET /v1/bank HTTP/1.1\r\nHost: x\r\nX-Odd: a\u0001b\r\n\r\n', 400],
    ['a space in a header name', 'GET /v1/bank HTTP/1.1\r\nHost: x\r\nBad Name: 1\r\n\r\n', 400],
    ['a broken request line', 'GET /v1/bank HTTX/9\r\nHost: x\r\n\r\n', 400],
    ['headers over 16 KiB', `GET /v1/bank HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17 * 1024)}\r\n\r\n`, 431],
  ])('%s → %i with the Error shape and a request id', async (_name, request, status) => {
    const received = await rawExchange(request);
    const [head = '', body = ''] = received.split('\r\n\r\n');
    expect(head).toMatch(new RegExp(`^HTTP/1.1 ${status} `));
    expect(head).toMatch(/\r\nX-Request-Id: req_[a-z0-9]{24}\r\n/);
    expect(head).toMatch(/\r\nContent-Type: application\/json/);
    expect(JSON.parse(body)).toMatchObject({ type: 'InvalidRequest', message: expect.any(String) });
  });
});

describe('query parameters', () => {
  it.each([
    ['an unknown parameter', '/v1/transfer?foo=1'],
    ['an unknown parameter on the bank list', '/v1/bank?country=EG'],
    ['limit 0', '/v1/transfer?limit=0'],
    ['limit 101', '/v1/transfer?limit=101'],
    ['limit abc', '/v1/transfer?limit=abc'],
    ['an unknown status', '/v1/transfer?status=DONE'],
    ['a negative minAmountCents', '/v1/transfer?minAmountCents=-1'],
    ['a repeated parameter', '/v1/transfer?limit=5&limit=6'],
  ])('%s → 400 InvalidRequest', async (_name, path) => {
    await expectError(await partner.request('GET', path), 400, 'InvalidRequest');
  });

  it.each([
    ['an apostrophe (encodeURIComponent leaves it)', "merchant=O'Reilly"],
    ['a comma and a colon', 'merchant=Uber,%20Inc:%20Cairo'],
    ['a space as +', 'merchant=uber+egypt'],
    ['parentheses and a star', 'merchant=(test)*'],
  ])('a filter value with %s is read as sent → 200', async (_name, query) => {
    const response = await partner.request('GET', `/v1/transaction?${query}`);
    expect(response.status, await response.clone().text()).toBe(200);
  });

  it('an unknown query parameter on a write → 400 InvalidRequest after the signature checks', async () => {
    const response = await partner.request('POST', '/v1/transfer?status=SUCCEEDED', { body: transferBody() });
    await expectError(response, 400, 'InvalidRequest');
  });
});

describe('X-Request-Id', () => {
  it.each(['abc-123', 'req_01J9X3K7W2M4N8P6', 'a.b:c_d-e', 'x'.repeat(64)])('echoes a safe id (%s)', async (id) => {
    const response = await fetch(`${app.baseUrl}/v1/bank`, { headers: { 'X-Request-Id': id } });
    expect(response.headers.get('x-request-id')).toBe(id);
  });

  it.each([
    ['65 characters', 'x'.repeat(65)],
    ['spaces', 'a b'],
    ['markup', '<script>'],
    ['a quote', 'a"b'],
    ['empty', ''],
  ])('replaces an unsafe id (%s) with its own', async (_name, id) => {
    const response = await fetch(`${app.baseUrl}/v1/bank`, { headers: { 'X-Request-Id': id } });
    const sent = response.headers.get('x-request-id');
    expect(sent).toMatch(/^req_[a-z0-9]{24}$/);
  });

  it('is on every response: success, error, not found, wrong method, health', async () => {
    const responses = await Promise.all([
      fetch(`${app.baseUrl}/v1/bank`),
      fetch(`${app.baseUrl}/v1/transfer`),
      fetch(`${app.baseUrl}/nope`),
      fetch(`${app.baseUrl}/v1/bank`, { method: 'DELETE' }),
      fetch(`${app.baseUrl}/healthz`),
      fetch(`${app.baseUrl}/readyz`),
      partner.request('POST', '/v1/transfer', { body: transferBody() }),
    ]);
    const ids = responses.map((response) => response.headers.get('x-request-id'));
    for (const id of ids) expect(id).toMatch(/^req_[a-z0-9]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('health', () => {
  it('GET /healthz → 200 without authentication', async () => {
    const response = await fetch(`${app.baseUrl}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('GET /readyz → 200 while the database responds', async () => {
    const response = await fetch(`${app.baseUrl}/readyz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ready' });
  });
});

describe('GET /v1/bank', () => {
  it('lists the banks of Egypt and the wallet providers, cacheable, with an ETag', async () => {
    const response = await fetch(`${app.baseUrl}/v1/bank`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('public, max-age=3600');
    const etag = response.headers.get('etag');
    expect(etag).toMatch(/^"[^"]+"$/);
    const banks = (await response.json()) as { id: string; name: string; shortName: string }[];
    expect(banks.map((bank) => bank.id)).toEqual(
      expect.arrayContaining([
        'nbe',
        'banque-misr',
        'cib',
        'qnb-alahli',
        'vodafone-cash',
        'orange-cash',
        'etisalat-cash',
        'we-pay',
      ]),
    );
    for (const bank of banks) expect(Object.keys(bank).sort()).toEqual(['id', 'name', 'shortName']);
    expect(new Set(banks.map((bank) => bank.id)).size).toBe(banks.length);
  });

  it.each([
    ['the same tag', (etag: string) => etag, 304],
    ['the weak form of the tag', (etag: string) => `W/${etag}`, 304],
    ['a list holding the tag', (etag: string) => `"other", ${etag}`, 304],
    ['*', () => '*', 304],
    ['another tag', () => '"stale"', 200],
  ])('If-None-Match with %s → %i', async (_name, header, status) => {
    const etag = (await fetch(`${app.baseUrl}/v1/bank`)).headers.get('etag') ?? '';
    const response = await fetch(`${app.baseUrl}/v1/bank`, { headers: { 'If-None-Match': header(etag) } });
    expect(response.status).toBe(status);
    expect(response.headers.get('etag')).toBe(etag);
    expect(response.headers.get('cache-control')).toBe('public, max-age=3600');
    if (status === 304) expect(await response.text()).toBe('');
  });
});

describe('an unexpected failure', () => {
  it('→ 500 InternalError with the request id and nothing of the cause; /readyz → 503', async () => {
    const broken = await startTestApp();
    try {
      const client = await broken.onboard({ name: 'Broken' });
      const token = await client.token();
      // The database goes away under the running service.
      await broken.db.destroy();
      const response = await client.request('GET', '/v1/transfer', {
        token,
        headers: { 'X-Request-Id': 'trace-me-123' },
      });
      const body = await expectError(response, 500, 'InternalError');
      expect(body.details ?? '').toContain('trace-me-123');
      const write = await client.request('POST', '/v1/transfer', { token, body: transferBody() });
      await expectError(write, 500, 'InternalError');
      const ready = await fetch(`${broken.baseUrl}/readyz`);
      expect(ready.status).toBe(503);
      expectNoLeak(await ready.text());
      expect((await fetch(`${broken.baseUrl}/healthz`)).status).toBe(200);
    } finally {
      await broken.close().catch(() => {});
    }
  });
});

describe('raw protocol edge cases', () => {
  it('a JSON body with a charset other than UTF-8 → 415', async () => {
    const token = await partner.token();
    const ts = Math.floor(app.clock.now() / 1000);
    const response = await rawRequest(
      app.baseUrl,
      'POST',
      '/v1/transfer',
      {
        ...writeHeaders(partner, 'POST', '/v1/transfer', ts, randomUUID()),
        Authorization: `Bearer ${token}`,
        'Content-Type': 'application/json; charset=latin1',
      },
      JSON.stringify(transferBody()),
    );
    expect(response.status, response.body).toBe(415);
    expectNoLeak(response.body);
  });
});
