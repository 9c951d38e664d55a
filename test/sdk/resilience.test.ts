import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isErrorType, type Fetch } from '../../client/index.js';
import { randomIds } from '../../server/clock-and-ids.js';
import { seedSandboxData, type SandboxSummary } from '../../server/sandbox/demo-organization.js';
import { startTestApp, testClock, type Partner, type TestApp } from '../../scripts/proof/app.js';
import { countingFetch, sdkFor, SUCCEEDING_IBAN, transferTo } from './sdk-app.js';

/**
 * What the SDK promises when things go wrong, against the real app: a write retried after a lost
 * response runs once, tokens are refreshed when they expire or are rejected (once, never in a loop),
 * concurrent calls share one token request, and paging yields every record exactly once.
 */
let app: TestApp;
let partner: Partner;
let seeded: SandboxSummary;

beforeAll(async () => {
  app = await startTestApp();
  partner = await app.onboard({ name: 'Resilient Partner' });
  seeded = await seedSandboxData(app.db, {
    organizationId: partner.organizationId,
    now: app.clock.now(),
    ids: randomIds,
  });
});
afterAll(async () => {
  await app?.close();
});

describe('a write retried after a network failure', () => {
  it('creates exactly one transfer', async () => {
    let dropped = 0;
    // The request reaches the server and is processed; the response is lost on the way back.
    const losesFirstResponse: Fetch = async (request) => {
      const response = await fetch(request);
      if (request.method === 'POST' && new URL(request.url).pathname === '/v1/transfer' && dropped === 0) {
        dropped += 1;
        await response.arrayBuffer();
        throw new TypeError('fetch failed: socket hang up');
      }
      return response;
    };
    const counter = countingFetch(losesFirstResponse);
    const sdk = sdkFor(app, partner, { fetch: counter.fetch });
    const amount = 4_321_09; // unique to this test, to find the transfer again

    const { data, error, response } = await sdk.POST('/v1/transfer', { body: transferTo(SUCCEEDING_IBAN, amount) });
    expect(error).toBeUndefined();
    expect(dropped).toBe(1);
    expect(counter.requests.filter((entry) => entry === 'POST /v1/transfer')).toHaveLength(2);
    // The second attempt carried the same key: the service replayed the first response.
    expect(response.headers.get('idempotent-replayed')).toBe('true');

    const listed = await sdk.GET('/v1/transfer', {
      params: { query: { minAmountCents: amount, maxAmountCents: amount } },
    });
    expect(listed.data?.transfers.map((transfer) => transfer.id)).toEqual([data?.id]);
  });

  it('an execute retried after a lost response reserves the money once', async () => {
    const poor = await app.onboard({ name: 'Exact Balance', balanceCents: 500_00 });
    let dropped = 0;
    const losesFirstResponse: Fetch = async (request) => {
      const response = await fetch(request);
      if (request.url.endsWith('/execute') && dropped === 0) {
        dropped += 1;
        await response.arrayBuffer();
        throw new TypeError('fetch failed');
      }
      return response;
    };
    const sdk = sdkFor(app, poor, { fetch: losesFirstResponse });
    const created = await sdk.POST('/v1/transfer', { body: transferTo(SUCCEEDING_IBAN, 300_00) });
    const id = created.data?.id ?? '';
    const executed = await sdk.POST('/v1/transfer/{id}/execute', { params: { path: { id } } });
    expect(dropped).toBe(1);
    expect(executed.data?.status).toBe('PROCESSING');
    // Had the execute run twice, 600 of 500 would have been reserved and the second rejected;
    // a further 300 must now be rejected, as 200 is all that is left.
    const second = await sdk.POST('/v1/transfer', { body: transferTo(SUCCEEDING_IBAN, 300_00) });
    const rejected = await sdk.POST('/v1/transfer/{id}/execute', { params: { path: { id: second.data?.id ?? '' } } });
    expect(isErrorType(rejected.error, 'InsufficientFunds')).toBe(true);
    const fits = await sdk.POST('/v1/transfer', { body: transferTo(SUCCEEDING_IBAN, 200_00) });
    const accepted = await sdk.POST('/v1/transfer/{id}/execute', { params: { path: { id: fits.data?.id ?? '' } } });
    expect(accepted.data?.status).toBe('PROCESSING');
  });
});

describe('tokens', () => {
  it('a token expiring mid-run is refreshed before it is rejected', async () => {
    const counter = countingFetch();
    // The SDK and the app share the test clock: moving it expires the token for both.
    const sdk = sdkFor(app, partner, { fetch: counter.fetch });
    expect((await sdk.GET('/v1/card', { params: { query: { limit: 1 } } })).response.status).toBe(200);
    app.clock.advance(3_601_000); // past the one-hour lifetime of a token
    const after = await sdk.POST('/v1/transfer', { body: transferTo(SUCCEEDING_IBAN, 12_00) });
    expect(after.error).toBeUndefined();
    expect(counter.tokenRequests()).toBe(2);
    // Refreshed ahead of time: no request was sent with the expired token.
    expect(counter.requests.filter((entry) => entry === 'POST /v1/transfer')).toHaveLength(1);
  });

  it('a token the SDK still trusts but the service rejects is refreshed on the 401', async () => {
    const counter = countingFetch();
    // The SDK's clock lags the service's by more than an hour: only the 401 tells it.
    const sdkClock = testClock(app.clock.now());
    const sdk = sdkFor(app, partner, { fetch: counter.fetch, clock: sdkClock });
    expect((await sdk.GET('/v1/card', { params: { query: { limit: 1 } } })).response.status).toBe(200);
    app.clock.advance(3_601_000);
    const { data, response } = await sdk.GET('/v1/card', { params: { query: { limit: 1 } } });
    expect(response.status).toBe(200);
    expect(data?.cards).toHaveLength(1);
    expect(counter.tokenRequests()).toBe(2);
    expect(counter.requests.filter((entry) => entry === 'GET /v1/card')).toHaveLength(3);
  });

  it('a revoked token (simulated: the service has no revocation) is refreshed once and the call repeated', async () => {
    let tampered = 0;
    const revokesFirst: Fetch = (request) => {
      if (tampered === 0 && request.headers.has('authorization') && !request.url.endsWith('/v1/oauth/token')) {
        tampered += 1;
        const headers = new Headers(request.headers);
        headers.set('Authorization', 'Bearer revoked.garbage.token');
        return fetch(new Request(request, { headers }));
      }
      return fetch(request);
    };
    const counter = countingFetch(revokesFirst);
    const sdk = sdkFor(app, partner, { fetch: counter.fetch });
    const created = await sdk.POST('/v1/transfer', { body: transferTo(SUCCEEDING_IBAN, 13_00) });
    expect(created.error).toBeUndefined();
    expect(tampered).toBe(1);
    expect(counter.tokenRequests()).toBe(2);
    expect(counter.requests.filter((entry) => entry === 'POST /v1/transfer')).toHaveLength(2);
  });

  it('a token rejected every time goes back to the caller after one refresh: no loop', async () => {
    const alwaysRevoked: Fetch = (request) => {
      if (!request.headers.has('authorization') || request.url.endsWith('/v1/oauth/token')) return fetch(request);
      const headers = new Headers(request.headers);
      headers.set('Authorization', 'Bearer revoked.garbage.token');
      return fetch(new Request(request, { headers }));
    };
    const counter = countingFetch(alwaysRevoked);
    const sdk = sdkFor(app, partner, { fetch: counter.fetch });
    const { error, response } = await sdk.GET('/v1/card');
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(isErrorType(error, 'Unauthorized')).toBe(true);
    expect(counter.requests.filter((entry) => entry === 'GET /v1/card')).toHaveLength(2);
    expect(counter.tokenRequests()).toBe(2);
  });

  it('concurrent calls share one token request', async () => {
    const counter = countingFetch();
    const sdk = sdkFor(app, partner, { fetch: counter.fetch });
    const results = await Promise.all([
      ...Array.from({ length: 10 }, () => sdk.GET('/v1/card', { params: { query: { limit: 1 } } })),
      ...Array.from({ length: 5 }, () => sdk.GET('/v1/transaction', { params: { query: { limit: 1 } } })),
      ...Array.from({ length: 5 }, (_, index) =>
        sdk.POST('/v1/transfer', { body: transferTo(SUCCEEDING_IBAN, 1_00 + index) }),
      ),
    ]);
    expect(results.map((result) => result.response.status)).toEqual(Array.from({ length: 20 }, () => 200));
    expect(counter.tokenRequests()).toBe(1);
  });

  it('wrong credentials come back as a typed 401, not a throw', async () => {
    const sdk = sdkFor(app, { ...partner, clientSecret: 'not-the-secret' });
    const { error, response } = await sdk.GET('/v1/card');
    expect(response.status).toBe(401);
    expect(error).toMatchObject({ type: 'Unauthorized', error: 'invalid_client' });
  });
});

describe('pagination', () => {
  it('collects every card once', async () => {
    const sdk = sdkFor(app, partner);
    const ids: string[] = [];
    for await (const card of sdk.paginate('/v1/card', { query: { limit: 3 } })) ids.push(card.id);
    expect(ids).toHaveLength(seeded.cards);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('collects every transaction once, and the status filter partitions them', async () => {
    const counter = countingFetch();
    const sdk = sdkFor(app, partner, { fetch: counter.fetch });
    const all: string[] = [];
    for await (const transaction of sdk.paginate('/v1/transaction', { query: { limit: 37 } })) all.push(transaction.id);
    expect(all).toHaveLength(seeded.transactions);
    expect(new Set(all).size).toBe(all.length);
    expect(counter.requests.filter((entry) => entry === 'GET /v1/transaction')).toHaveLength(
      Math.ceil(seeded.transactions / 37),
    );

    const byStatus = await Promise.all(
      (['SUCCEEDED', 'DECLINED', 'REVERSED'] as const).map(async (status) => {
        const ids: string[] = [];
        for await (const transaction of sdk.paginate('/v1/transaction', {
          query: { statuses: [status], limit: 100 },
        })) {
          expect(transaction.status).toBe(status);
          ids.push(transaction.id);
        }
        return ids;
      }),
    );
    expect(byStatus.flat().sort()).toEqual([...all].sort());
  });

  it('collects every transfer once, even when new ones arrive between pages', async () => {
    const other = await app.onboard({ name: 'Paging Partner' });
    const sdk = sdkFor(app, other);
    const created: string[] = [];
    for (let index = 0; index < 7; index += 1) {
      app.clock.advance(1_000);
      const { data } = await sdk.POST('/v1/transfer', { body: transferTo(SUCCEEDING_IBAN, 10_00 + index) });
      created.push(data?.id ?? '');
    }
    const seen: string[] = [];
    for await (const transfer of sdk.paginate('/v1/transfer', { query: { limit: 2 } })) {
      seen.push(transfer.id);
      if (seen.length === 3) {
        app.clock.advance(1_000);
        await sdk.POST('/v1/transfer', { body: transferTo(SUCCEEDING_IBAN, 99_00) }); // newer: sorts before the cursor
      }
    }
    expect(seen).toEqual([...created].reverse()); // newest first, each once
  });
});
