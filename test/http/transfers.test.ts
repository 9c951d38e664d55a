import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settleDueTransfers } from '../../server/settlement-worker.js';
import { getBalance } from '../../server/store/organizations.js';
import type { TransferStatus } from '../../server/database/schema.js';
import { insertTransfer } from '../../server/store/transfers.js';
import { startTestApp, type Partner, type TestApp } from '../../scripts/proof/app.js';
import {
  FAILING_IBAN,
  SUCCEEDING_IBAN,
  createTransfer,
  expectError,
  transferAction,
  transferBody,
  type TransferJson,
} from './support.js';

// The transfer state machine end to end (with every forbidden
// transition), the account number checks, the funds, the list with its filters and keyset
// pages, and the wall between organizations.

const DELAY_MS = 2_000;
let app: TestApp;
let partner: Partner;

beforeAll(async () => {
  app = await startTestApp({ paymentNetworkDelayMs: DELAY_MS });
  partner = await app.onboard({ name: 'Transfer Partner', balanceCents: 1_000_000_00 });
});
afterAll(async () => {
  await app.close();
});

async function getTransfer(who: Partner, id: string): Promise<TransferJson> {
  const response = await who.request('GET', `/v1/transfer/${id}`);
  expect(response.status).toBe(200);
  return (await response.json()) as TransferJson;
}

async function ok(response: Response): Promise<TransferJson> {
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return JSON.parse(text) as TransferJson;
}

/** Lets the sandbox network settle whatever is due: the delay passes on the clock, then one pass. */
async function settle(): Promise<number> {
  app.clock.advance(DELAY_MS);
  return settleDueTransfers(app.db, app.clock.now());
}

const balanceOf = async (who: Partner): Promise<number> => (await getBalance(app.db, who.organizationId)) ?? Number.NaN;

describe('the happy paths', () => {
  it('create → PENDING, with what was sent and nothing reserved', async () => {
    const before = await balanceOf(partner);
    const body = transferBody({ amountCents: 12_345, memo: 'Invoice 7', note: 'Quarterly supplies' });
    const key = randomUUID();
    const created = await ok(await partner.request('POST', '/v1/transfer', { body, idempotencyKey: key }));
    expect(created).toEqual({
      id: expect.stringMatching(/^trf_[a-z0-9]{24}$/),
      idempotencyKey: key,
      amountCents: 12_345,
      currency: 'EGP',
      status: 'PENDING',
      category: 'LOGISTICS',
      submissionDate: app.clock.now(),
      reviewedAt: null,
      cancelledAt: null,
      payee: {
        accountNumber: SUCCEEDING_IBAN,
        accountName: 'Nile Supplies',
        bank: { id: 'nbe', name: 'National Bank of Egypt', shortName: 'NBE' },
      },
      memo: 'Invoice 7',
      note: 'Quarterly supplies',
    });
    expect(await getTransfer(partner, created.id)).toEqual(created);
    expect(await balanceOf(partner)).toBe(before);
  });

  it('PENDING → cancel → CANCELLED with cancelledAt', async () => {
    const created = await createTransfer(partner);
    app.clock.advance(1_000);
    const cancelled = await ok(await transferAction(partner, created.id, 'cancel'));
    expect(cancelled).toMatchObject({
      id: created.id,
      status: 'CANCELLED',
      cancelledAt: app.clock.now(),
      reviewedAt: null,
    });
    expect(await getTransfer(partner, created.id)).toEqual(cancelled);
  });

  it('PENDING → execute → PROCESSING (reviewedAt, funds reserved) → network → SUCCEEDED (debit kept)', async () => {
    const before = await balanceOf(partner);
    const created = await createTransfer(partner, { amountCents: 250_00 });
    app.clock.advance(1_000);
    const executed = await ok(await transferAction(partner, created.id, 'execute'));
    expect(executed).toMatchObject({
      id: created.id,
      status: 'PROCESSING',
      reviewedAt: app.clock.now(),
      cancelledAt: null,
    });
    expect(await balanceOf(partner)).toBe(before - 250_00);

    // Not before the network delay has passed.
    expect(await settleDueTransfers(app.db, app.clock.now() + DELAY_MS - 1)).toBe(0);
    expect((await getTransfer(partner, created.id)).status).toBe('PROCESSING');

    expect(await settle()).toBeGreaterThanOrEqual(1);
    const settled = await getTransfer(partner, created.id);
    expect(settled).toEqual({ ...executed, status: 'SUCCEEDED' });
    expect(await balanceOf(partner)).toBe(before - 250_00);
  });

  it('an account number ending in 0002 → FAILED, and the reserved funds come back', async () => {
    const before = await balanceOf(partner);
    const created = await createTransfer(partner, { amountCents: 300_00, accountNumber: FAILING_IBAN });
    await ok(await transferAction(partner, created.id, 'execute'));
    expect(await balanceOf(partner)).toBe(before - 300_00);
    await settle();
    expect((await getTransfer(partner, created.id)).status).toBe('FAILED');
    expect(await balanceOf(partner)).toBe(before);
  });
});

describe('forbidden transitions', () => {
  async function seed(status: TransferStatus): Promise<string> {
    const now = app.clock.now();
    const row = await insertTransfer(app.db, {
      id: `trf_${randomUUID().replaceAll('-', '').slice(0, 24)}`,
      organizationId: partner.organizationId,
      clientId: partner.clientId,
      idempotencyKey: randomUUID(),
      amountCents: 1_00,
      currency: 'EGP',
      category: 'OTHER',
      submissionDate: now,
      bankId: 'nbe',
      accountNumber: '123456789',
      accountName: 'Seeded',
      status,
      reviewedAt: status === 'CANCELLED' || status === 'PENDING' ? null : now,
      cancelledAt: status === 'CANCELLED' ? now : null,
      rejectionReason: status === 'REJECTED' ? 'seeded as rejected' : null,
      // Far ahead, so that no settlement pass of another test moves it.
      settleAfter: status === 'PROCESSING' ? now + 10 * 365 * 86_400_000 : null,
    });
    return row.id;
  }

  it.each(
    (['CANCELLED', 'REJECTED', 'PROCESSING', 'FAILED', 'SUCCEEDED'] as const).flatMap((status) =>
      (['cancel', 'execute'] as const).map((action) => [action, status] as const),
    ),
  )('%s of a %s transfer → 400 InvalidRequest, nothing changes', async (action, status) => {
    const id = await seed(status);
    const before = await getTransfer(partner, id);
    const balance = await balanceOf(partner);
    const body = await expectError(await transferAction(partner, id, action), 400, 'InvalidRequest');
    expect(body.message).toContain(status);
    expect(await getTransfer(partner, id)).toEqual(before);
    expect(await balanceOf(partner)).toBe(balance);
  });

  it('walked through the API: every step after the first is rejected', async () => {
    const cancelled = await createTransfer(partner);
    await ok(await transferAction(partner, cancelled.id, 'cancel'));
    await expectError(await transferAction(partner, cancelled.id, 'cancel'), 400, 'InvalidRequest');
    await expectError(await transferAction(partner, cancelled.id, 'execute'), 400, 'InvalidRequest');

    const executed = await createTransfer(partner);
    await ok(await transferAction(partner, executed.id, 'execute'));
    await expectError(await transferAction(partner, executed.id, 'execute'), 400, 'InvalidRequest');
    await expectError(await transferAction(partner, executed.id, 'cancel'), 400, 'InvalidRequest');
    await settle();
    expect((await getTransfer(partner, executed.id)).status).toBe('SUCCEEDED');
    await expectError(await transferAction(partner, executed.id, 'execute'), 400, 'InvalidRequest');
    await expectError(await transferAction(partner, executed.id, 'cancel'), 400, 'InvalidRequest');
  });
});

describe('funds', () => {
  it('insufficient funds → 400 InsufficientFunds; the transfer stays PENDING and the balance is untouched', async () => {
    const poor = await app.onboard({ name: 'Small Balance', balanceCents: 100_00 });
    const big = await createTransfer(poor, { amountCents: 100_01 });
    const body = await expectError(await transferAction(poor, big.id, 'execute'), 400, 'InsufficientFunds');
    expect(body.details).toContain('100');
    expect((await getTransfer(poor, big.id)).status).toBe('PENDING');
    expect(await balanceOf(poor)).toBe(100_00);

    // The exact balance is enough, and leaves zero; then nothing more can go.
    const exact = await createTransfer(poor, { amountCents: 100_00 });
    await ok(await transferAction(poor, exact.id, 'execute'));
    expect(await balanceOf(poor)).toBe(0);
    const one = await createTransfer(poor, { amountCents: 1 });
    await expectError(await transferAction(poor, one.id, 'execute'), 400, 'InsufficientFunds');

    // A pending transfer can still be cancelled after a rejected execute.
    await ok(await transferAction(poor, big.id, 'cancel'));
  });
});

describe('bank and account number checks (400 InvalidBankAccount)', () => {
  it.each([
    ['nbe', SUCCEEDING_IBAN, 200],
    ['nbe', 'EG650019000500000000263180011', 400], // one digit changed: mod-97 fails
    ['nbe', 'EG65001900050000000026318000', 400], // 28 characters
    ['nbe', 'EG6500190005000000002631800011', 400], // 30 characters
    ['nbe', 'eg650019000500000000263180001', 400], // lower case
    ['nbe', 'EG65 0019 0005 0000 0000 2631 8000 1', 400], // spaces
    ['cib', 'DE89370400440532013000', 200], // a foreign IBAN that passes mod-97
    ['cib', 'DE89370400440532013001', 400],
    ['banque-misr', '123456', 200], // 6 digits
    ['banque-misr', '12345', 400], // 5 digits
    ['banque-misr', '1'.repeat(30), 200],
    ['banque-misr', '1'.repeat(31), 400],
    ['banque-misr', '12345a', 400],
    ['vodafone-cash', '01012345678', 200],
    ['orange-cash', '01212345678', 200],
    ['we-pay', '01512345678', 200],
    ['vodafone-cash', '0101234567', 400], // 10 digits
    ['vodafone-cash', '010123456789', 400], // 12 digits
    ['vodafone-cash', '+201012345678', 400],
    ['vodafone-cash', '00201012345678', 400],
    ['vodafone-cash', '02012345678', 400], // a landline
    ['etisalat-cash', SUCCEEDING_IBAN, 400], // a wallet takes a mobile number, not an IBAN
    ['bank-of-nowhere', SUCCEEDING_IBAN, 400],
  ])('bank %s, account %s → %i', async (bankId, accountNumber, status) => {
    const response = await partner.request('POST', '/v1/transfer', { body: transferBody({ bankId, accountNumber }) });
    if (status === 200) {
      const created = await ok(response);
      expect(created.payee.accountNumber).toBe(accountNumber);
      expect(created.payee.bank.id).toBe(bankId);
    } else {
      await expectError(response, 400, 'InvalidBankAccount');
    }
  });
});

describe('GET /v1/transfer', () => {
  async function list(who: Partner, query: string): Promise<{ transfers: TransferJson[]; nextCursor?: string }> {
    const response = await who.request('GET', `/v1/transfer${query}`);
    const text = await response.text();
    expect(response.status, text).toBe(200);
    return JSON.parse(text) as { transfers: TransferJson[]; nextCursor?: string };
  }

  async function collect(
    who: Partner,
    query: string,
    between?: (page: number) => Promise<void>,
  ): Promise<TransferJson[]> {
    const seen: TransferJson[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 100; page += 1) {
      const separator = query === '' ? '?' : '&';
      const result = await list(
        who,
        cursor === undefined ? query : `${query}${separator}cursor=${encodeURIComponent(cursor)}`,
      );
      seen.push(...result.transfers);
      if (result.nextCursor === undefined) {
        // No empty trailing page: nextCursor only when another transfer exists.
        if (page > 0) expect(result.transfers.length).toBeGreaterThan(0);
        return seen;
      }
      cursor = result.nextCursor;
      await between?.(page);
    }
    throw new Error('pagination did not end');
  }

  it('newest first, ties by id, 10 per page by default; filters by status and by inclusive amounts', async () => {
    const lister = await app.onboard({ name: 'Lister' });
    const made: TransferJson[] = [];
    for (const amount of [100, 200, 200, 300, 400, 500, 600, 700, 800, 900, 1_000, 1_100]) {
      made.push(await createTransfer(lister, { amountCents: amount }));
      // Every other transfer shares its submission time with the one before: ties are broken by id.
      if (made.length % 2 === 0) app.clock.advance(1);
    }
    await ok(await transferAction(lister, made[0]?.id ?? '', 'cancel'));
    await ok(await transferAction(lister, made[1]?.id ?? '', 'execute'));

    const first = await list(lister, '');
    expect(first.transfers).toHaveLength(10);
    expect(first.nextCursor).toBeDefined();
    const all = await collect(lister, '');
    expect(all).toHaveLength(12);
    const order = [...all].sort((a, b) => b.submissionDate - a.submissionDate || (a.id < b.id ? 1 : -1));
    expect(all.map((t) => t.id)).toEqual(order.map((t) => t.id));

    const amounts = async (query: string): Promise<number[]> =>
      (await collect(lister, query)).map((t) => t.amountCents).sort((a, b) => a - b);
    expect(await amounts('?minAmountCents=200&maxAmountCents=300')).toEqual([200, 200, 300]);
    expect(await amounts('?minAmountCents=1000')).toEqual([1_000, 1_100]);
    expect(await amounts('?maxAmountCents=200')).toEqual([100, 200, 200]);
    expect(await amounts('?minAmountCents=200&maxAmountCents=200')).toEqual([200, 200]);
    expect(await amounts('?minAmountCents=0&maxAmountCents=0')).toEqual([]);
    expect((await list(lister, '?minAmountCents=5000')).transfers).toEqual([]);
    expect((await collect(lister, '?status=CANCELLED')).map((t) => t.id)).toEqual([made[0]?.id]);
    expect((await collect(lister, '?status=PROCESSING')).map((t) => t.id)).toEqual([made[1]?.id]);
    expect((await list(lister, '?status=SUCCEEDED')).transfers).toEqual([]);
    expect(await amounts('?status=PENDING&minAmountCents=1000&limit=1')).toEqual([1_000, 1_100]);
  });

  it('minAmountCents above maxAmountCents → 400 InvalidRequest', async () => {
    await expectError(
      await partner.request('GET', '/v1/transfer?minAmountCents=301&maxAmountCents=300'),
      400,
      'InvalidRequest',
    );
  });

  it('keyset pages: every transfer exactly once, while new ones arrive between pages', async () => {
    const pager = await app.onboard({ name: 'Pager' });
    const originals: string[] = [];
    for (let i = 0; i < 13; i += 1) {
      originals.push((await createTransfer(pager, { amountCents: 1_000 + i })).id);
      if (i % 3 === 0) app.clock.advance(1);
    }
    const added: string[] = [];
    const seen = await collect(pager, '?limit=4', async () => {
      added.push((await createTransfer(pager, { amountCents: 5 })).id);
      added.push((await createTransfer(pager, { amountCents: 6 })).id);
      app.clock.advance(1);
    });
    const ids = seen.map((t) => t.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual([...originals].sort());
    expect(added.length).toBeGreaterThan(0);
  });

  let cursorOwner: Partner | undefined;

  it.each([
    [
      'tampered',
      (cursor: string) => `${cursor.slice(0, -2)}${cursor.at(-2) === 'A' ? 'B' : 'A'}${cursor.slice(-1)}`,
      '?limit=2',
    ],
    [
      'with its payload edited',
      (cursor: string) => `${cursor.at(0) === 'e' ? 'f' : 'e'}${cursor.slice(1)}`,
      '?limit=2',
    ],
    ['garbage', () => 'not-a-cursor', '?limit=2'],
    ['sent with another limit', (cursor: string) => cursor, '?limit=3'],
    ['sent with another status filter', (cursor: string) => cursor, '?limit=2&status=PENDING'],
    ['sent with another amount filter', (cursor: string) => cursor, '?limit=2&minAmountCents=1'],
    ['sent without its limit', (cursor: string) => cursor, ''],
  ])('a cursor %s → 400 InvalidRequest', async (_name, change, query) => {
    if (cursorOwner === undefined) {
      cursorOwner = await app.onboard({ name: 'Cursor Owner' });
      for (let i = 0; i < 3; i += 1) await createTransfer(cursorOwner);
    }
    const { nextCursor } = await list(cursorOwner, '?limit=2');
    expect(nextCursor).toBeDefined();
    const separator = query === '' ? '?' : '&';
    const response = await cursorOwner.request(
      'GET',
      `/v1/transfer${query}${separator}cursor=${encodeURIComponent(change(nextCursor ?? ''))}`,
    );
    await expectError(response, 400, 'InvalidRequest');
  });
});

describe('tenancy', () => {
  it("another organization's transfer is 404 on get, cancel and execute, and absent from its lists", async () => {
    const owner = await app.onboard({ name: 'Owner Org' });
    const intruder = await app.onboard({ name: 'Intruder Org' });
    const pending = await createTransfer(owner, { amountCents: 777 });
    const processing = await createTransfer(owner, { amountCents: 888 });
    await ok(await transferAction(owner, processing.id, 'execute'));
    const ownBalance = await balanceOf(owner);
    const intruderBalance = await balanceOf(intruder);

    for (const transfer of [pending, processing]) {
      const body = await expectError(await intruder.request('GET', `/v1/transfer/${transfer.id}`), 404, 'NotFound');
      // The same response as for an id that does not exist at all.
      const unknown = await expectError(
        await intruder.request('GET', '/v1/transfer/trf_000000000000000000000000'),
        404,
        'NotFound',
      );
      expect(body.type).toBe(unknown.type);
      await expectError(await transferAction(intruder, transfer.id, 'cancel'), 404, 'NotFound');
      await expectError(await transferAction(intruder, transfer.id, 'execute'), 404, 'NotFound');
    }
    expect((await list(intruder, '')).transfers).toEqual([]);
    await createTransfer(intruder);
    const intruderList = await list(intruder, '?limit=100');
    expect(intruderList.transfers.map((t) => t.id)).not.toContain(pending.id);
    expect(intruderList.transfers.map((t) => t.id)).not.toContain(processing.id);

    expect((await getTransfer(owner, pending.id)).status).toBe('PENDING');
    expect((await getTransfer(owner, processing.id)).status).toBe('PROCESSING');
    expect(await balanceOf(owner)).toBe(ownBalance);
    expect(await balanceOf(intruder)).toBe(intruderBalance);
  });

  async function list(who: Partner, query: string): Promise<{ transfers: TransferJson[] }> {
    const response = await who.request('GET', `/v1/transfer${query}`);
    expect(response.status).toBe(200);
    return (await response.json()) as { transfers: TransferJson[] };
  }
});
