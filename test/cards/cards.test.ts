import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { components } from '../../generated/openapi-types.js';
import { seedSandboxData } from '../../server/sandbox/demo-organization.js';
import { startTestApp, testClock, type Partner, type TestApp } from '../../scripts/proof/app.js';
import { addCard, addHolder, cardRows, expectedBalance, ledgerRows } from '../helpers/ledger.js';

type Card = components['schemas']['Card'];
type CardListPage = components['schemas']['CardListPage'];
type ErrorBody = components['schemas']['Error'];

// Reading cards over HTTP (listCards, getCard): the real app on a real database,
// response validation on, the sandbox data of two organizations.

const NOW = Date.parse('2025-03-17T10:30:00Z');

async function json<T>(response: Response): Promise<{ status: number; body: T }> {
  return { status: response.status, body: (await response.json()) as T };
}

async function traverse(partner: Partner, limit: number, between?: (page: number) => Promise<void>): Promise<Card[]> {
  const cards: Card[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page += 1) {
    const query = new URLSearchParams({ limit: String(limit), ...(cursor !== undefined ? { cursor } : {}) });
    const { status, body } = await json<CardListPage>(await partner.request('GET', `/v1/card?${query.toString()}`));
    expect(status).toBe(200);
    expect(body.cards.length).toBeLessThanOrEqual(limit);
    cards.push(...body.cards);
    cursor = body.nextCursor;
    if (cursor === undefined) return cards;
    // A cursor only when another record exists, so a page before it is full.
    expect(body.cards).toHaveLength(limit);
    await between?.(page);
  }
  throw new Error('the traversal did not end');
}

describe('cards', () => {
  let app: TestApp;
  let partner: Partner;
  let other: Partner;

  beforeAll(async () => {
    app = await startTestApp({ clock: testClock(NOW) });
    partner = await app.onboard({ name: 'Nile Trading' });
    other = await app.onboard({ name: 'Delta Foods' });
    await seedSandboxData(app.db, { organizationId: partner.organizationId, now: NOW });
    await seedSandboxData(app.db, { organizationId: other.organizationId, now: NOW });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('lists 10 cards by default, newest first, with a cursor to the next page', async () => {
    const { status, body } = await json<CardListPage>(await partner.request('GET', '/v1/card'));
    expect(status).toBe(200);
    expect(body.cards).toHaveLength(10);
    expect(body.nextCursor).toEqual(expect.any(String));
    const stored = (await cardRows(app.db, partner.organizationId)).sort(
      (a, b) => b.created_at - a.created_at || (a.id < b.id ? 1 : -1),
    );
    expect(body.cards.map((card) => card.id)).toEqual(stored.slice(0, 10).map((card) => card.id));
  });

  it("shows every card's availableBalance as the pure rules applied to its ledger", async () => {
    const cards = await traverse(partner, 100);
    const stored = await cardRows(app.db, partner.organizationId);
    const rows = await ledgerRows(app.db, partner.organizationId);
    expect(cards).toHaveLength(stored.length);
    for (const card of cards) {
      const row = stored.find((candidate) => candidate.id === card.id);
      if (row === undefined) throw new Error(`card ${card.id} is not stored`);
      expect(card.availableBalance, card.nickname).toBe(expectedBalance(row, rows, NOW));
      expect(card.limits).toEqual({
        daily: row.daily_limit,
        monthly: row.monthly_limit,
        atm: row.atm_limit,
        approvalBased: row.approval_based_limit,
      });
    }
    // Sensible sandbox balances: every activated card can spend something, some are nearly spent.
    const activated = cards.filter((card) => card.last4 !== null);
    expect(activated.every((card) => (card.availableBalance ?? 0) > 0)).toBe(true);
    expect(
      activated.some(
        (card) =>
          (card.availableBalance ?? 0) <
          0.1 *
            Math.min(card.limits.daily, card.limits.monthly, card.limits.atm, card.limits.approvalBased ?? Infinity),
      ),
    ).toBe(true);
  });

  it('shows last4 and availableBalance as null for a card that is not activated', async () => {
    const cards = await traverse(partner, 100);
    const inactive = cards.filter((card) => card.last4 === null);
    expect(inactive.length).toBeGreaterThanOrEqual(1);
    for (const card of inactive) expect(card.availableBalance).toBeNull();
    for (const card of cards.filter((c) => c.last4 !== null)) {
      expect(card.last4).toMatch(/^[0-9]{4}$/);
      expect(card.availableBalance).toEqual(expect.any(Number));
    }
  });

  it('shows the holder with the external ids it has and its department or null', async () => {
    const cards = await traverse(partner, 100);
    const holders = cards.map((card) => card.cardHolder);
    expect(holders.some((holder) => holder.department === null)).toBe(true);
    expect(holders.some((holder) => holder.department !== null && holder.department !== undefined)).toBe(true);
    expect(holders.some((holder) => holder.userExternalIdThree !== undefined)).toBe(true);
    expect(holders.some((holder) => !('userExternalIdOne' in holder))).toBe(true);
  });

  it('collects each card once while cards are added between pages', async () => {
    const before = new Set((await cardRows(app.db, partner.organizationId)).map((card) => card.id));
    const holder = await addHolder(app.db, partner.organizationId);
    const added: string[] = [];
    const oldest: string[] = [];
    const cards = await traverse(partner, 3, async (page) => {
      // A new card is the newest: it lands before the cursor and belongs to a later traversal.
      added.push(await addCard(app.db, partner.organizationId, holder, { createdAt: NOW + page + 1 }));
      // One older than every card lands after the cursor: this traversal still reaches it.
      if (page === 0) oldest.push(await addCard(app.db, partner.organizationId, holder, { createdAt: 0 }));
    });
    const ids = cards.map((card) => card.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.filter((id) => before.has(id)).sort()).toEqual([...before].sort());
    expect(ids.filter((id) => added.includes(id))).toEqual([]);
    expect(ids.at(-1)).toBe(oldest[0]);
  });

  it('gets one card, the same as in the list', async () => {
    const listed = await traverse(partner, 100);
    const first = listed[0];
    if (first === undefined) throw new Error('no card');
    const { status, body } = await json<Card>(await partner.request('GET', `/v1/card/${first.id}`));
    expect(status).toBe(200);
    expect(body).toEqual(first);
  });

  it("responds with 404 NotFound for an unknown card and for another organization's card, and never lists it", async () => {
    const theirs = (await cardRows(app.db, other.organizationId))[0];
    if (theirs === undefined) throw new Error('no card');
    for (const id of ['crd_doesnotexist000000000000', theirs.id]) {
      const { status, body } = await json<ErrorBody>(await partner.request('GET', `/v1/card/${id}`));
      expect(status).toBe(404);
      expect(body.type).toBe('NotFound');
    }
    const mine = await traverse(partner, 100);
    expect(mine.some((card) => card.id === theirs.id)).toBe(false);
    const theirsListed = await traverse(other, 100);
    expect(theirsListed.some((card) => mine.some((m) => m.id === card.id))).toBe(false);
  });

  it("responds to two organizations reading at once, each with its own cards, and 404 for the other's", async () => {
    // Reads that arrive together share a statement (server/store/card-reads.ts); each still gets
    // its own organization's response.
    const mine = (await traverse(partner, 100)).slice(0, 6);
    const theirs = (await traverse(other, 100)).slice(0, 6);
    const asked = [
      ...mine.map((card) => ({ who: partner, card, expected: 200 })),
      ...theirs.map((card) => ({ who: other, card, expected: 200 })),
      ...theirs.map((card) => ({ who: partner, card, expected: 404 })),
      ...mine.map((card) => ({ who: other, card, expected: 404 })),
    ];
    const results = await Promise.all(
      asked.map(({ who, card }) =>
        who.request('GET', `/v1/card/${card.id}`).then((response) => json<Card | ErrorBody>(response)),
      ),
    );
    results.forEach(({ status, body }, index) => {
      const { card, expected } = asked[index] as (typeof asked)[number];
      expect(status).toBe(expected);
      expect(body).toEqual(expected === 200 ? card : expect.objectContaining({ type: 'NotFound' }));
    });
  });

  it.each([
    ['limit 0', '?limit=0'],
    ['limit 101', '?limit=101'],
    ['a limit that is not a number', '?limit=ten'],
    ['an unknown query parameter', '?status=PENDING'],
  ])('responds with 400 InvalidRequest for %s', async (_name, query) => {
    const { status, body } = await json<ErrorBody>(await partner.request('GET', `/v1/card${query}`));
    expect(status).toBe(400);
    expect(body.type).toBe('InvalidRequest');
  });

  it('rejects a tampered cursor, and a cursor sent with another limit or to another list', async () => {
    const first = await json<CardListPage>(await partner.request('GET', '/v1/card?limit=2'));
    const cursor = first.body.nextCursor;
    if (cursor === undefined) throw new Error('expected a next page');
    const flipped = `${cursor.slice(0, 5)}${cursor[5] === 'A' ? 'B' : 'A'}${cursor.slice(6)}`;
    const transactions = await json<{ nextCursor?: string }>(await partner.request('GET', '/v1/transaction?limit=2'));
    const attempts = [
      `/v1/card?limit=2&cursor=${encodeURIComponent(flipped)}`,
      `/v1/card?limit=3&cursor=${encodeURIComponent(cursor)}`,
      `/v1/card?cursor=${encodeURIComponent(cursor)}`,
      `/v1/card?limit=2&cursor=${encodeURIComponent(transactions.body.nextCursor ?? 'x')}`,
      `/v1/card?limit=2&cursor=garbage`,
    ];
    for (const path of attempts) {
      const { status, body } = await json<ErrorBody>(await partner.request('GET', path));
      expect(status, path).toBe(400);
      expect(body.type).toBe('InvalidRequest');
    }
    // The cursor carries a position, not an organization: in another partner's hands it pages
    // through that partner's own cards, never ours.
    const theirs = await json<CardListPage>(
      await other.request('GET', `/v1/card?limit=2&cursor=${encodeURIComponent(cursor)}`),
    );
    expect(theirs.status).toBe(200);
    const ours = new Set((await cardRows(app.db, partner.organizationId)).map((card) => card.id));
    expect(theirs.body.cards.some((card) => ours.has(card.id))).toBe(false);
  });

  it('needs a token with cards:read', async () => {
    expect((await partner.request('GET', '/v1/card', { token: null })).status).toBe(401);
    const token = await partner.token('transfers:read');
    expect((await partner.request('GET', '/v1/card', { token })).status).toBe(403);
    expect((await partner.request('GET', '/v1/card', { token: await partner.token('cards:read') })).status).toBe(200);
  });
});
