import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addClientKey, deactivateClientKey, listActiveClientKeys } from '../../server/store/organizations.js';
import { partnerOf, startTestApp, type Partner, type TestApp } from '../../scripts/proof/app.js';
import { createTransfer, expectError, rawRequest, transferBody, writeHeaders } from './support.js';

// The write headers, checked in order (token, idempotency key, signature presence,
// timestamp window, signature), then the body. The first failure is the response.

let app: TestApp;
let partner: Partner;
let other: Partner;

beforeAll(async () => {
  app = await startTestApp();
  [partner, other] = await Promise.all([app.onboard({ name: 'Signer' }), app.onboard({ name: 'Other Signer' })]);
});
afterAll(async () => {
  await app.close();
});

const nowSeconds = (): number => Math.floor(app.clock.now() / 1000);
const BAD_BODY = { amountCents: 'lots' };

describe('the order of the checks', () => {
  it.each([
    [
      'no token, no write headers, bad body → 401 Unauthorized',
      { token: null, signed: false, body: BAD_BODY },
      401,
      'Unauthorized',
    ],
    ['no token, everything else right → 401 Unauthorized', { token: null, body: transferBody() }, 401, 'Unauthorized'],
    [
      'token, bad body, no write headers → 400 MissingIdempotencyKey',
      { signed: false, body: BAD_BODY },
      400,
      'MissingIdempotencyKey',
    ],
    [
      'token, bad body, key, no signature → 401 MissingSignature',
      { omitHeaders: ['X-Partner-Signature'], body: BAD_BODY },
      401,
      'MissingSignature',
    ],
    [
      'token, bad body, stale timestamp → 401 InvalidSignature',
      { timestamp: 1_000_000_000, body: BAD_BODY },
      401,
      'InvalidSignature',
    ],
    [
      'token, bad body, wrong signature → 401 InvalidSignature',
      { headers: { 'X-Partner-Signature': 'AAAA' }, body: BAD_BODY },
      401,
      'InvalidSignature',
    ],
    ['everything right but the body → 400 InvalidRequest', { body: BAD_BODY }, 400, 'InvalidRequest'],
    [
      'everything right but malformed JSON → 400 InvalidRequest',
      { rawBody: '{"amountCents": 1,' },
      400,
      'InvalidRequest',
    ],
  ] as const)('%s', async (_name, options, status, type) => {
    const response = await partner.request('POST', '/v1/transfer', options);
    await expectError(response, status, type);
    // Every 401 of a write carries the bearer challenge the document requires; only a token's own
    // failure adds an error to it (the signature's failures leave the token accepted).
    if (status === 401) {
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="partner-api", scope="transfers:write"');
    }
  });

  it('signature checks run before the transfer is looked up: a wrong signature on an unknown id is 401, not 404', async () => {
    const path = '/v1/transfer/trf_doesnotexist/cancel';
    await expectError(
      await partner.request('POST', path, { headers: { 'X-Partner-Signature': 'AAAA' } }),
      401,
      'InvalidSignature',
    );
    await expectError(await partner.request('POST', path), 404, 'NotFound');
  });
});

describe('Idempotency-Key', () => {
  it.each([
    ['missing', undefined, 400, 'MissingIdempotencyKey'],
    ['empty', '', 400, 'MissingIdempotencyKey'],
    ['11 characters', 'k'.repeat(11), 400, 'InvalidRequest'],
    ['37 characters', 'k'.repeat(37), 400, 'InvalidRequest'],
  ] as const)('%s → %i %s', async (_name, key, status, type) => {
    const response = await partner.request('POST', '/v1/transfer', {
      body: transferBody(),
      ...(key === undefined ? { omitHeaders: ['Idempotency-Key'] } : { idempotencyKey: key }),
    });
    await expectError(response, status, type);
  });

  it.each([
    ['12 characters', 12],
    ['36 characters', 36],
  ])('%s → accepted', async (_name, length) => {
    const key = randomUUID().replaceAll('-', '').padEnd(36, 'x').slice(0, length);
    const response = await partner.request('POST', '/v1/transfer', { body: transferBody(), idempotencyKey: key });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { idempotencyKey: string }).idempotencyKey).toBe(key);
  });
});

describe('X-Partner-Signature and X-Partner-Request-Timestamp', () => {
  it('a missing signature → 401 MissingSignature, with or without the timestamp', async () => {
    await expectError(
      await partner.request('POST', '/v1/transfer', { body: transferBody(), omitHeaders: ['X-Partner-Signature'] }),
      401,
      'MissingSignature',
    );
    await expectError(
      await partner.request('POST', '/v1/transfer', {
        body: transferBody(),
        omitHeaders: ['X-Partner-Signature', 'X-Partner-Request-Timestamp'],
      }),
      401,
      'MissingSignature',
    );
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['a decimal', '1717000000.5'],
    ['words', 'yesterday'],
    ['negative', '-1717000000'],
    ['an exponent', '1.7e9'],
    ['milliseconds beyond a safe integer', '99999999999999999'],
  ])('a timestamp that is %s → 400 InvalidRequest', async (_name, value) => {
    const key = randomUUID();
    const headers = writeHeaders(partner, 'POST', '/v1/transfer', nowSeconds(), key);
    const response = await partner.request('POST', '/v1/transfer', {
      body: transferBody(),
      signed: false,
      headers:
        value === undefined
          ? { 'Idempotency-Key': key, 'X-Partner-Signature': headers['X-Partner-Signature'] ?? '' }
          : { ...headers, 'X-Partner-Request-Timestamp': value },
    });
    await expectError(response, 400, 'InvalidRequest');
  });

  it.each([
    ['301 s old', -301, 401],
    ['301 s ahead', 301, 401],
    ['300 s old', -300, 200],
    ['300 s ahead', 300, 200],
    ['a day old', -86_400, 401],
  ])('a correctly signed timestamp %s → %i', async (_name, offset, status) => {
    const response = await partner.request('POST', '/v1/transfer', {
      body: transferBody(),
      timestamp: nowSeconds() + offset,
    });
    if (status === 200) expect(response.status).toBe(200);
    else await expectError(response, 401, 'InvalidSignature');
  });

  it.each([
    ['another path', (p: Partner, ts: number) => p.sign('POST', '/v1/transfer/trf_x/execute', ts)],
    ['another method', (p: Partner, ts: number) => p.sign('PUT', '/v1/transfer', ts)],
    ['another timestamp', (p: Partner, ts: number) => p.sign('POST', '/v1/transfer', ts - 1)],
    ['the query string included', (p: Partner, ts: number) => p.sign('POST', '/v1/transfer?x=1', ts)],
    ["another partner's key", (_p: Partner, ts: number) => other.sign('POST', '/v1/transfer', ts)],
    [
      'URL-safe Base64',
      (p: Partner, ts: number) =>
        p.sign('POST', '/v1/transfer', ts).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '') + 'x',
    ],
    ['Base64 without padding', (p: Partner, ts: number) => p.sign('POST', '/v1/transfer', ts).replace(/=+$/, '')],
    ['not Base64', () => '%%%not-base64%%%'],
    ['a truncated signature', (p: Partner, ts: number) => p.sign('POST', '/v1/transfer', ts).slice(0, 40)],
    ['a huge value', () => 'A'.repeat(8000)],
  ])('a signature over %s → 401 InvalidSignature', async (_name, signature) => {
    const ts = nowSeconds();
    const response = await partner.request('POST', '/v1/transfer', {
      body: transferBody(),
      signed: false,
      headers: {
        'Idempotency-Key': randomUUID(),
        'X-Partner-Request-Timestamp': String(ts),
        'X-Partner-Signature': signature(partner, ts),
      },
    });
    await expectError(response, 401, 'InvalidSignature');
  });

  it('a signature must name the transfer it acts on', async () => {
    const first = await createTransfer(partner);
    const second = await createTransfer(partner);
    const ts = nowSeconds();
    const response = await partner.request('POST', `/v1/transfer/${second.id}/cancel`, {
      signed: false,
      headers: writeHeaders(partner, 'POST', `/v1/transfer/${first.id}/cancel`, ts, randomUUID()),
    });
    await expectError(response, 401, 'InvalidSignature');
    const unchanged = await partner.request('GET', `/v1/transfer/${second.id}`);
    expect(((await unchanged.json()) as { status: string }).status).toBe('PENDING');
  });
});

describe('key rotation', () => {
  it('accepts signatures by either of two active keys, and stops accepting a deactivated one', async () => {
    const client = await app.onboard({ name: 'Rotating Signer' });
    expect((await client.request('POST', '/v1/transfer', { body: transferBody() })).status).toBe(200);

    const next = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    const keyId = `key_rotation_${randomUUID().slice(0, 8)}`;
    await addClientKey(app.db, {
      id: keyId,
      clientId: client.clientId,
      publicKeyPem: next.publicKey,
      now: app.clock.now(),
    });
    const rotated = partnerOf(app.baseUrl, app.clock, { ...client, privateKeyPem: next.privateKey });
    // A key added a moment ago is picked up on the next failed verification, at most once a second.
    app.clock.advance(1_000);

    expect((await rotated.request('POST', '/v1/transfer', { body: transferBody() })).status).toBe(200);
    expect((await client.request('POST', '/v1/transfer', { body: transferBody() })).status).toBe(200);

    const oldKey = (await listActiveClientKeys(app.db, client.clientId)).find((key) => key.id !== keyId);
    expect(oldKey).toBeDefined();
    await deactivateClientKey(app.db, { clientId: client.clientId, keyId: oldKey?.id ?? '', now: app.clock.now() });
    // The service keeps parsed keys 30 s (server/http/public-keys.ts).
    app.clock.advance(30_000);
    await expectError(await client.request('POST', '/v1/transfer', { body: transferBody() }), 401, 'InvalidSignature');
    expect((await rotated.request('POST', '/v1/transfer', { body: transferBody() })).status).toBe(200);
  });
});

describe('repeated write headers', () => {
  it.each(['Idempotency-Key', 'X-Partner-Signature', 'X-Partner-Request-Timestamp'])(
    '%s sent twice → 400 InvalidRequest, even with equal values',
    async (name) => {
      const token = await partner.token();
      const headers: Record<string, string | string[]> = {
        ...writeHeaders(partner, 'POST', '/v1/transfer', nowSeconds(), randomUUID()),
        Authorization: `Bearer ${token}`,
        'Content-Type': 'application/json',
      };
      headers[name] = [String(headers[name]), String(headers[name])];
      const response = await rawRequest(app.baseUrl, 'POST', '/v1/transfer', headers, JSON.stringify(transferBody()));
      expect(response.status, response.body).toBe(400);
      expect(JSON.parse(response.body)).toMatchObject({ type: 'InvalidRequest' });
    },
  );

  it('two different idempotency keys joined into one line are too long → 400 InvalidRequest', async () => {
    const response = await partner.request('POST', '/v1/transfer', {
      body: transferBody(),
      headers: { 'Idempotency-Key': `${randomUUID()}, ${randomUUID()}` },
    });
    await expectError(response, 400, 'InvalidRequest');
  });
});
