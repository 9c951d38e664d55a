import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isErrorType, type PartnerClient } from '../../client/index.js';
import { randomIds } from '../../server/clock-and-ids.js';
import { settleDueTransfers } from '../../server/settlement-worker.js';
import { seedSandboxData } from '../../server/sandbox/demo-organization.js';
import { startTestApp, type Partner, type TestApp } from '../../scripts/proof/app.js';
import { countingFetch, FAILING_IBAN, sdkFor, SUCCEEDING_IBAN, transferTo } from './sdk-app.js';

/** Every operation of the document through the SDK, against the real app on a fresh database. */
const NETWORK_DELAY_MS = 2_000;

let app: TestApp;
let partner: Partner;
let sdk: PartnerClient;
const counter = countingFetch();

beforeAll(async () => {
  app = await startTestApp({ paymentNetworkDelayMs: NETWORK_DELAY_MS });
  partner = await app.onboard({ name: 'SDK Partner' });
  await seedSandboxData(app.db, { organizationId: partner.organizationId, now: app.clock.now(), ids: randomIds });
  sdk = sdkFor(app, partner, { fetch: counter.fetch });
});
afterAll(async () => {
  await app?.close();
});

async function settle(): Promise<void> {
  app.clock.advance(NETWORK_DELAY_MS + 1);
  await settleDueTransfers(app.db, app.clock.now());
}

describe('every operation through the SDK', () => {
  it('createToken: the client’s token fetch gets a working bearer token', async () => {
    const token = await sdk.accessToken();
    expect(token).toMatch(/^[A-Za-z0-9._~+/-]+=*$/);
    expect(counter.tokenRequests()).toBe(1);
    expect(await sdk.accessToken()).toBe(token);
  });

  it('listBanks', async () => {
    const { data, error } = await sdk.GET('/v1/bank');
    expect(error).toBeUndefined();
    expect(data?.map((bank) => bank.id)).toEqual(expect.arrayContaining(['nbe', 'cib', 'vodafone-cash']));
  });

  it('listCards, getCard, setCardLimits (PUT) and updateCardLimits (PATCH)', async () => {
    const page = await sdk.GET('/v1/card', { params: { query: { limit: 50 } } });
    expect(page.error).toBeUndefined();
    const card = page.data?.cards.find(
      (candidate) => candidate.last4 !== null && candidate.limits.approvalBased === null,
    );
    expect(card).toBeDefined();
    if (card === undefined) return;

    const read = await sdk.GET('/v1/card/{id}', { params: { path: { id: card.id } } });
    expect(read.data?.id).toBe(card.id);

    const set = await sdk.PUT('/v1/card/{id}/limits', {
      params: { path: { id: card.id } },
      body: { daily: 5_000_00, monthly: 50_000_00, atm: 10_000_00 },
    });
    expect(set.error).toBeUndefined();
    expect(set.data?.limits).toEqual({ daily: 5_000_00, monthly: 50_000_00, atm: 10_000_00, approvalBased: null });

    const patched = await sdk.PATCH('/v1/card/{id}/limits', {
      params: { path: { id: card.id } },
      body: { daily: 250_00, atm: -1_000_00 },
    });
    expect(patched.error).toBeUndefined();
    expect(patched.data?.limits).toEqual({ daily: 5_250_00, monthly: 50_000_00, atm: 9_000_00, approvalBased: null });
  });

  it('createTransfer, getTransfer, listTransfers, cancelTransfer', async () => {
    const created = await sdk.POST('/v1/transfer', {
      body: { ...transferTo(SUCCEEDING_IBAN, 321_00), memo: 'cancel me' },
    });
    expect(created.error).toBeUndefined();
    expect(created.data).toMatchObject({
      status: 'PENDING',
      amountCents: 321_00,
      payee: { accountNumber: SUCCEEDING_IBAN, bank: { id: 'nbe' } },
    });
    const id = created.data?.id ?? '';

    const read = await sdk.GET('/v1/transfer/{id}', { params: { path: { id } } });
    expect(read.data).toEqual(created.data);

    const listed = await sdk.GET('/v1/transfer', {
      params: { query: { status: 'PENDING', minAmountCents: 321_00, maxAmountCents: 321_00 } },
    });
    expect(listed.data?.transfers.map((transfer) => transfer.id)).toEqual([id]);

    const cancelled = await sdk.POST('/v1/transfer/{id}/cancel', { params: { path: { id } } });
    expect(cancelled.data).toMatchObject({ id, status: 'CANCELLED', cancelledAt: expect.any(Number) });

    const again = await sdk.POST('/v1/transfer/{id}/execute', { params: { path: { id } } });
    expect(again.response.status).toBe(400);
    expect(isErrorType(again.error, 'InvalidRequest')).toBe(true);
  });

  it('executeTransfer, then the sandbox network settles SUCCEEDED, or FAILED for an account ending 0002', async () => {
    const good = await sdk.POST('/v1/transfer', { body: transferTo(SUCCEEDING_IBAN) });
    const bad = await sdk.POST('/v1/transfer', { body: transferTo('01000000002', 50_00, 'vodafone-cash') });
    const badIban = await sdk.POST('/v1/transfer', { body: transferTo(FAILING_IBAN) });
    const ids = [good.data?.id ?? '', bad.data?.id ?? '', badIban.data?.id ?? ''];
    for (const id of ids) {
      const executed = await sdk.POST('/v1/transfer/{id}/execute', { params: { path: { id } } });
      expect(executed.error).toBeUndefined();
      expect(executed.data).toMatchObject({ id, status: 'PROCESSING', reviewedAt: expect.any(Number) });
    }
    await settle();
    const statuses = await Promise.all(
      ids.map(async (id) => (await sdk.GET('/v1/transfer/{id}', { params: { path: { id } } })).data?.status),
    );
    expect(statuses).toEqual(['SUCCEEDED', 'FAILED', 'FAILED']);
  });

  it('listTransactions with comma-separated array filters, and getTransaction', async () => {
    const { data, error } = await sdk.GET('/v1/transaction', {
      params: { query: { statuses: ['DECLINED', 'REVERSED'], limit: 100 } },
    });
    expect(error).toBeUndefined();
    expect(data?.transactions.length).toBeGreaterThan(0);
    expect(
      data?.transactions.every((transaction) => transaction.status === 'DECLINED' || transaction.status === 'REVERSED'),
    ).toBe(true);

    const first = data?.transactions[0];
    const read = await sdk.GET('/v1/transaction/{id}', { params: { path: { id: first?.id ?? '' } } });
    expect(read.data).toEqual(first);
  });
});

describe('errors come back typed', () => {
  it('NotFound', async () => {
    const { error, response } = await sdk.GET('/v1/transfer/{id}', {
      params: { path: { id: 'trf_doesnotexist000000000000' } },
    });
    expect(response.status).toBe(404);
    expect(isErrorType(error, 'NotFound')).toBe(true);
  });

  it('InvalidBankAccount', async () => {
    const { error, response } = await sdk.POST('/v1/transfer', { body: transferTo('EG380019000500000000263180003') });
    expect(response.status).toBe(400);
    expect(isErrorType(error, 'InvalidBankAccount')).toBe(true);
  });

  it('InsufficientFunds', async () => {
    const poor = await app.onboard({ name: 'Poor Partner', balanceCents: 10_00 });
    const poorSdk = sdkFor(app, poor);
    const created = await poorSdk.POST('/v1/transfer', { body: transferTo(SUCCEEDING_IBAN, 20_00) });
    const executed = await poorSdk.POST('/v1/transfer/{id}/execute', {
      params: { path: { id: created.data?.id ?? '' } },
    });
    expect(executed.response.status).toBe(400);
    expect(isErrorType(executed.error, 'InsufficientFunds')).toBe(true);
  });

  it('an Idempotency-Key the caller repeats replays the first response', async () => {
    const key = 'sdk-replay-key-0001';
    const first = await sdk.POST('/v1/transfer', {
      params: { header: { 'Idempotency-Key': key } },
      body: transferTo(SUCCEEDING_IBAN, 77_00),
    });
    const second = await sdk.POST('/v1/transfer', {
      params: { header: { 'Idempotency-Key': key } },
      body: transferTo(SUCCEEDING_IBAN, 77_00),
    });
    expect(second.data?.id).toBe(first.data?.id);
    expect(first.data?.idempotencyKey).toBe(key);
    expect(first.response.headers.get('idempotent-replayed')).toBeNull();
    expect(second.response.headers.get('idempotent-replayed')).toBe('true');
    const reused = await sdk.POST('/v1/transfer', {
      params: { header: { 'Idempotency-Key': key } },
      body: transferTo(SUCCEEDING_IBAN, 78_00),
    });
    expect(reused.response.status).toBe(422);
    expect(isErrorType(reused.error, 'DuplicateIdempotencyKey')).toBe(true);
  });
});
