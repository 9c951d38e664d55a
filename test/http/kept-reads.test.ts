import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { components } from '../../generated/openapi-types.js';
import { createKeptReads } from '../../server/http/kept-reads.js';
import { startTestApp, testClock, type Partner, type TestApp } from '../../scripts/proof/app.js';
import { createTestDatabase } from '../../scripts/proof/database.js';
import { addCard, addHolder, addRecords } from '../helpers/ledger.js';

type Card = components['schemas']['Card'];
type TransactionListPage = components['schemas']['TransactionListPage'];

// A card read and a ledger page are kept between requests (server/http/kept-reads.ts) and served
// again while their organization's version is the one they were read at: every change of what
// they show, by this instance, another one or straight in the database, is in the next answer.

// 10:30 in Cairo on a Monday; the next Cairo day starts 13.5 hours later.
const NOW = Date.parse('2025-03-17T08:30:00Z');
const HOUR = 3_600_000;

async function json<T>(sent: Promise<Response>): Promise<T> {
  const response = await sent;
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return JSON.parse(text) as T;
}

describe('kept reads', () => {
  let app: TestApp;
  let partner: Partner;
  let holderId: string;
  let cardId: string;

  beforeAll(async () => {
    app = await startTestApp({ clock: testClock(NOW) });
    partner = await app.onboard({ name: 'Kept Reads Ltd' });
    holderId = await addHolder(app.db, partner.organizationId, { fullName: 'Amr Saleh' });
    cardId = await addCard(app.db, partner.organizationId, holderId);
  });
  afterAll(async () => {
    await app?.close();
  });

  const card = (as: Partner = partner): Promise<Card> => json<Card>(as.request('GET', `/v1/card/${cardId}`));
  const page = (as: Partner = partner): Promise<TransactionListPage> => json<TransactionListPage>(as.request('GET', '/v1/transaction?limit=5'));

  it('shows a ledger record written straight into the database, and its holder renamed', async () => {
    const first = await page();
    expect(await page()).toEqual(first);
    const [id] = await addRecords(app.db, partner.organizationId, [{ personId: holderId, cardId, authorizationDate: NOW - HOUR }]);
    const second = await page();
    expect(second.transactions[0]?.id).toBe(id);
    await sql`update card_holders set full_name = 'Mona Adel' where id = ${holderId}`.execute(app.db);
    expect((await page()).transactions[0]?.person.fullName).toBe('Mona Adel');
    await sql`delete from transactions where id = ${id ?? ''}`.execute(app.db);
    expect((await page()).transactions).toEqual(first.transactions);
  });

  it("shows a card's new limits and spending, including a change made through another instance", async () => {
    const before = await card();
    expect(await card()).toEqual(before);
    const other = await app.startInstance();
    try {
      const there = other.as(partner);
      expect(await card(there)).toEqual(before);
      // The daily limit is the smallest: the balance is what is left of it today.
      const limits = { daily: 150_000, monthly: 1_500_000, atm: 1_000_000, approvalBased: null };
      const changed = await there.request('PUT', `/v1/card/${cardId}/limits`, { body: limits, contentType: 'application/merge-patch+json' });
      expect(changed.status, await changed.text()).toBe(200);
      const limited = await card();
      expect(limited.limits).toEqual(limits);
      await addRecords(app.db, partner.organizationId, [{ personId: holderId, cardId, authorizationDate: NOW - HOUR, amountCents: 12_345 }]);
      const spent = await card(there);
      expect(spent.availableBalance).toBe((limited.availableBalance ?? 0) - 12_345);
      expect(await card()).toEqual(spent);
    } finally {
      await other.close();
    }
  });

  it("gives a card the next day's balance once the Cairo day changes, with nothing written", async () => {
    const today = await card();
    expect(today.availableBalance).toBeLessThan(today.limits.daily);
    app.clock.advance(14 * HOUR);
    try {
      const tomorrow = await card();
      expect(tomorrow.availableBalance).toBe(tomorrow.limits.daily);
      expect(tomorrow.limits).toEqual(today.limits);
    } finally {
      app.clock.advance(-14 * HOUR);
    }
    expect(await card()).toEqual(today);
  });

  // Another organization's card is as absent as an unknown one, kept or not (the getCard
  // description); and a page shows only the asking organization's ledger.
  it("never answers another organization with what this one's reads keep", async () => {
    await card();
    const mine = await page();
    expect(mine.transactions.length).toBeGreaterThan(0);
    const stranger = await app.onboard({ name: 'Stranger Ltd' });
    for (let i = 0; i < 2; i += 1) {
      const foreign = await stranger.request('GET', `/v1/card/${cardId}`);
      expect(foreign.status).toBe(404);
      expect(((await foreign.json()) as { type: string }).type).toBe('NotFound');
      expect((await page(stranger)).transactions).toEqual([]);
    }
  });

  it('keeps nothing of a change that rolls back', async () => {
    const before = await page();
    await expect(
      app.db.transaction().execute(async (tx) => {
        await addRecords(tx, partner.organizationId, [{ personId: holderId, authorizationDate: NOW - 1 }]);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await page()).toEqual(before);
  });
});

describe('createKeptReads', () => {
  let app: TestApp;
  let organizationId: string;
  let holderId: string;

  beforeAll(async () => {
    app = await startTestApp({ clock: testClock(NOW) });
    organizationId = (await app.onboard({ name: 'Kept Ltd' })).organizationId;
    holderId = await addHolder(app.db, organizationId);
  });
  afterAll(async () => {
    await app?.close();
  });

  /** A read that counts its calls and answers with the count. */
  const counting = () => {
    let calls = 0;
    return { read: async () => ({ status: 200, body: { calls: (calls += 1) } }), calls: () => calls };
  };

  it('keeps an answer from the second time its key is asked for, while the version stays', async () => {
    const kept = createKeptReads(1);
    const { read, calls } = counting();
    expect(await kept.answer(app.db, organizationId, 'k', read)).toEqual({ status: 200, body: { calls: 1 } });
    expect(await kept.answer(app.db, organizationId, 'k', read)).toEqual({ status: 200, body: { calls: 2 } });
    expect(await kept.answer(app.db, organizationId, 'k', read)).toEqual({ status: 200, body: { calls: 2 } });
    expect(await kept.answer(app.db, organizationId, 'other key', read)).toEqual({ status: 200, body: { calls: 3 } });
    await addRecords(app.db, organizationId, [{ personId: holderId, authorizationDate: NOW }]);
    expect(await kept.answer(app.db, organizationId, 'k', read)).toEqual({ status: 200, body: { calls: 4 } });
    expect(await kept.answer(app.db, organizationId, 'k', read)).toEqual({ status: 200, body: { calls: 4 } });
    expect(calls()).toBe(4);
  });

  it('reads no version for a key asked for once', async () => {
    const closed = await createTestDatabase();
    await closed.close();
    const kept = createKeptReads(1);
    const { read } = counting();
    expect(await kept.answer(closed.db, organizationId, 'k', read)).toEqual({ status: 200, body: { calls: 1 } });
    await expect(kept.answer(closed.db, organizationId, 'k', read)).rejects.toThrow();
  });

  it('keeps answers per organization', async () => {
    const kept = createKeptReads(1);
    const { read } = counting();
    const another = (await app.onboard({ name: 'Another Ltd' })).organizationId;
    await kept.answer(app.db, organizationId, 'k', read);
    expect(await kept.answer(app.db, organizationId, 'k', read)).toEqual({ status: 200, body: { calls: 2 } });
    expect(await kept.answer(app.db, another, 'k', read)).toEqual({ status: 200, body: { calls: 3 } });
    expect(await kept.answer(app.db, another, 'k', read)).toEqual({ status: 200, body: { calls: 4 } });
    expect(await kept.answer(app.db, organizationId, 'k', read)).toEqual({ status: 200, body: { calls: 2 } });
    expect(await kept.answer(app.db, another, 'k', read)).toEqual({ status: 200, body: { calls: 4 } });
  });

  it('keeps none with 0 megabytes, or an answer larger than its bound', async () => {
    const none = createKeptReads(0);
    const small = counting();
    for (let i = 0; i < 3; i += 1) await none.answer(app.db, organizationId, 'k', small.read);
    expect(small.calls()).toBe(3);

    const kept = createKeptReads(1);
    let calls = 0;
    const large = async () => ({ status: 200, body: { text: 'x'.repeat(1024 * 1024), calls: (calls += 1) } });
    for (let i = 0; i < 3; i += 1) await kept.answer(app.db, organizationId, 'large', large);
    expect(calls).toBe(3);
  });

  it('forgets the least recently used answers beyond its bound', async () => {
    const kept = createKeptReads(1);
    let calls = 0;
    const half = async () => ({ status: 200, body: { text: 'x'.repeat(400 * 1024), calls: (calls += 1) } });
    const ask = (key: string) => kept.answer(app.db, organizationId, key, half);
    // Asked twice each: both kept (800 KB of the 1 MB).
    for (const key of ['a', 'a', 'b', 'b']) await ask(key);
    expect(calls).toBe(4);
    await ask('a');
    expect(calls).toBe(4);
    // A third kept answer pushes out the least recently used, b.
    await ask('c');
    await ask('c');
    expect(calls).toBe(6);
    await ask('a');
    expect(calls).toBe(6);
    await ask('b');
    expect(calls).toBe(7);
  });
});
