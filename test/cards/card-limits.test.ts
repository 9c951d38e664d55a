import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { components } from '../../generated/openapi-types.js';
import { cairoPeriods } from '../../server/domain/available-balance.js';
import { LIMIT_MAXIMA, type Limits } from '../../server/domain/card-limits.js';
import { findCardWithUsage } from '../../server/store/cards.js';
import { startTestApp, testClock, type Partner, type TestApp } from '../../scripts/proof/app.js';
import { addCard, addHolder, addRecords } from '../helpers/ledger.js';

type Card = components['schemas']['Card'];
type ErrorBody = components['schemas']['Error'];

// Limits over HTTP, every rule of setCardLimits and updateCardLimits with its exact status.
// Write requests are signed by the test partner (Idempotency-Key, timestamp, signature) and sent
// as merge-patch JSON.

const NOW = Date.parse('2025-03-17T10:30:00Z');
const MERGE_PATCH = 'application/merge-patch+json';
const PLAIN: Limits = { daily: 500_000, monthly: 2_000_000, atm: 300_000, approvalBased: null };
const APPROVAL: Limits = { ...LIMIT_MAXIMA, approvalBased: 4_000_000 };

describe('card limits', () => {
  let app: TestApp;
  let partner: Partner;
  let other: Partner;
  let holder: string;
  let plain: string;
  let approval: string;

  beforeAll(async () => {
    app = await startTestApp({ clock: testClock(NOW) });
    partner = await app.onboard({ name: 'Nile Trading' });
    other = await app.onboard({ name: 'Delta Foods' });
    holder = await addHolder(app.db, partner.organizationId);
  });
  afterAll(async () => {
    await app?.close();
  });
  beforeEach(async () => {
    // Fresh cards for each test, with some usage today: 1,000 EGP on the card, 400 of it at an ATM.
    plain = await addCard(app.db, partner.organizationId, holder, { limits: PLAIN });
    approval = await addCard(app.db, partner.organizationId, holder, { limits: APPROVAL });
    await addRecords(app.db, partner.organizationId, [
      { cardId: plain, personId: holder, authorizationDate: NOW - 60_000, amountCents: 60_000 },
      { cardId: plain, personId: holder, authorizationDate: NOW - 60_000, amountCents: 40_000, method: 'ATM' },
      { cardId: approval, personId: holder, authorizationDate: NOW - 60_000, amountCents: 150_000, cleared: false },
    ]);
  });

  const send = (
    method: 'PUT' | 'PATCH',
    id: string,
    body: unknown,
    options: { idempotencyKey?: string; contentType?: string; as?: Partner } = {},
  ) =>
    (options.as ?? partner).request(method, `/v1/card/${id}/limits`, {
      body,
      contentType: options.contentType ?? MERGE_PATCH,
      ...(options.idempotencyKey !== undefined ? { idempotencyKey: options.idempotencyKey } : {}),
    });

  async function expectCard(response: Response, limits: Limits, availableBalance: number | null): Promise<Card> {
    expect(response.status, await response.clone().text()).toBe(200);
    const card = (await response.json()) as Card;
    expect(card.limits).toEqual(limits);
    expect(card.availableBalance).toBe(availableBalance);
    return card;
  }

  async function expectInvalid(response: Response, status = 400, type = 'InvalidRequest'): Promise<ErrorBody> {
    const body = (await response.json()) as ErrorBody;
    expect(response.status, JSON.stringify(body)).toBe(status);
    expect(body.type).toBe(type);
    return body;
  }

  async function storedLimits(id: string): Promise<Limits | undefined> {
    return (await findCardWithUsage(app.db, partner.organizationId, id, cairoPeriods(Date.now())))?.card.limits;
  }

  describe('PUT (the whole state)', () => {
    it('sets plain limits and recomputes availableBalance', async () => {
      const limits = { daily: 200_000, monthly: 1_000_000, atm: 100_000, approvalBased: null };
      // min(200000 - 100000, 1000000 - 100000, 100000 - 40000) = 60000
      await expectCard(await send('PUT', plain, { daily: 200_000, monthly: 1_000_000, atm: 100_000 }), limits, 60_000);
      expect(await storedLimits(plain)).toEqual(limits);
    });

    it('accepts approvalBased: null with plain limits', async () => {
      await expectCard(
        await send('PUT', plain, { daily: 1, monthly: 2, atm: 3, approvalBased: null }),
        { daily: 1, monthly: 2, atm: 3, approvalBased: null },
        0,
      );
    });

    it('makes a card approval-based with the other limits at their maxima', async () => {
      // 2,500,000 approved, 1,000 EGP spent today: 2,400,000 left.
      await expectCard(
        await send('PUT', plain, { approvalBased: 2_500_000 }),
        { ...LIMIT_MAXIMA, approvalBased: 2_500_000 },
        2_400_000,
      );
    });

    it('turns an approval-based card back into a plain card', async () => {
      await expectCard(
        await send('PUT', approval, { daily: 300_000, monthly: 600_000, atm: 50_000 }),
        { daily: 300_000, monthly: 600_000, atm: 50_000, approvalBased: null },
        50_000,
      );
    });

    it.each([
      ['both shapes at once', { daily: 1, monthly: 1, atm: 1, approvalBased: 5 }],
      ['approvalBased with one plain limit', { approvalBased: 5, daily: 1 }],
      ['a negative daily limit', { daily: -1, monthly: 1, atm: 1 }],
      ['a negative approved amount', { approvalBased: -1 }],
      ['a limit above its maximum', { daily: LIMIT_MAXIMA.daily + 1, monthly: 1, atm: 1 }],
      ['an approved amount above its maximum', { approvalBased: LIMIT_MAXIMA.approvalBased + 1 }],
      ['a missing plain limit', { daily: 1, monthly: 1 }],
      ['approvalBased null alone', { approvalBased: null }],
      ['an empty body', {}],
      ['an unknown property', { daily: 1, monthly: 1, atm: 1, weekly: 1 }],
      ['a fractional amount', { daily: 1.5, monthly: 1, atm: 1 }],
      ['a string amount', { daily: '100', monthly: 1, atm: 1 }],
    ])('responds with 400 InvalidRequest for %s and changes nothing', async (_name, body) => {
      await expectInvalid(await send('PUT', plain, body));
      expect(await storedLimits(plain)).toEqual(PLAIN);
    });

    it('sets the limits of a card that is not activated, whose balance stays null', async () => {
      const inactive = await addCard(app.db, partner.organizationId, holder, { last4: null });
      const card = await expectCard(
        await send('PUT', inactive, { daily: 10, monthly: 20, atm: 30 }),
        { daily: 10, monthly: 20, atm: 30, approvalBased: null },
        null,
      );
      expect(card.last4).toBeNull();
    });
  });

  describe('PATCH (amounts to add)', () => {
    it('adds each amount present and leaves the others', async () => {
      // daily 600000, monthly 2000000, atm 250000: min(500000, 1900000, 210000)
      await expectCard(
        await send('PATCH', plain, { daily: 100_000, atm: -50_000 }),
        { ...PLAIN, daily: 600_000, atm: 250_000 },
        210_000,
      );
    });

    it('may take a limit exactly to 0 or to its maximum', async () => {
      await expectCard(
        await send('PATCH', plain, { daily: -PLAIN.daily, monthly: LIMIT_MAXIMA.monthly - PLAIN.monthly }),
        { ...PLAIN, daily: 0, monthly: LIMIT_MAXIMA.monthly },
        0,
      );
    });

    it('adds to the approved amount of an approval-based card', async () => {
      // 4,500,000 approved, 1,500 EGP pending: 4,350,000 left.
      await expectCard(
        await send('PATCH', approval, { approvalBased: 500_000 }),
        { ...APPROVAL, approvalBased: 4_500_000 },
        4_350_000,
      );
    });

    it.each([
      ['a daily limit below 0', { daily: -(PLAIN.daily + 1) }],
      ['a monthly limit above its maximum', { monthly: LIMIT_MAXIMA.monthly - PLAIN.monthly + 1 }],
      ['one result out of range among valid ones', { daily: 1, monthly: 1, atm: -(PLAIN.atm + 1) }],
    ])(
      'responds with 400 InvalidRequest when the result is out of range (%s) and changes nothing',
      async (_name, body) => {
        const error = await expectInvalid(await send('PATCH', plain, body));
        expect(error.message).toMatch(/between 0 and/);
        expect(await storedLimits(plain)).toEqual(PLAIN);
      },
    );

    it('responds with 400 for approvalBased on a plain card, and for a plain limit on an approval-based card', async () => {
      await expectInvalid(await send('PATCH', plain, { approvalBased: 1_000 }));
      await expectInvalid(await send('PATCH', approval, { daily: 1_000 }));
      await expectInvalid(await send('PATCH', approval, { daily: 1_000, approvalBased: 1_000 }));
      // null is not an amount (PUT switches the kind of card), not even on an approval-based card.
      await expectInvalid(await send('PATCH', approval, { approvalBased: null }));
      expect(await storedLimits(plain)).toEqual(PLAIN);
      expect(await storedLimits(approval)).toEqual(APPROVAL);
    });

    it.each([
      ['an empty body', {}],
      ['approvalBased null', { approvalBased: null }],
      ['a change beyond its range', { daily: LIMIT_MAXIMA.daily + 1 }],
      ['an unknown property', { weekly: 1 }],
    ])('responds with 400 InvalidRequest for %s', async (_name, body) => {
      await expectInvalid(await send('PATCH', plain, body));
      expect(await storedLimits(plain)).toEqual(PLAIN);
    });

    it('replays a retry with the same Idempotency-Key without adding the amount twice', async () => {
      const key = randomUUID();
      const first = await send('PATCH', plain, { daily: 1_000 }, { idempotencyKey: key });
      const card = await expectCard(first, { ...PLAIN, daily: 501_000 }, 260_000);
      const retry = await send('PATCH', plain, { daily: 1_000 }, { idempotencyKey: key });
      expect(retry.status).toBe(200);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(await retry.json()).toEqual(card);
      expect(await storedLimits(plain)).toEqual({ ...PLAIN, daily: 501_000 });
      // Same key, other body: rejected, and still nothing added.
      await expectInvalid(
        await send('PATCH', plain, { daily: 2_000 }, { idempotencyKey: key }),
        422,
        'DuplicateIdempotencyKey',
      );
      expect(await storedLimits(plain)).toEqual({ ...PLAIN, daily: 501_000 });
    });

    it('replays a rejected change with the same key too', async () => {
      const key = randomUUID();
      const first = await expectInvalid(await send('PATCH', plain, { daily: -10_000_000 }, { idempotencyKey: key }));
      const retry = await send('PATCH', plain, { daily: -10_000_000 }, { idempotencyKey: key });
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(await expectInvalid(retry)).toEqual(first);
    });

    it('never loses one of many concurrent changes of one card', async () => {
      const changes = 12;
      const responses = await Promise.all(
        Array.from({ length: changes }, () => send('PATCH', plain, { daily: 1_000, monthly: 2_000 })),
      );
      expect(responses.map((response) => response.status)).toEqual(Array(changes).fill(200));
      expect(await storedLimits(plain)).toEqual({
        ...PLAIN,
        daily: PLAIN.daily + changes * 1_000,
        monthly: PLAIN.monthly + changes * 2_000,
      });
      // Every response saw a different state: the changes ran one after the other.
      const dailies = await Promise.all(
        responses.map(async (response) => ((await response.json()) as Card).limits.daily),
      );
      expect(new Set(dailies).size).toBe(changes);
    });
  });

  describe('both', () => {
    it.each(['PUT', 'PATCH'] as const)('%s responds with 415 to application/json', async (method) => {
      await expectInvalid(
        await send(method, plain, { daily: 1, monthly: 1, atm: 1 }, { contentType: 'application/json' }),
        415,
      );
      expect(await storedLimits(plain)).toEqual(PLAIN);
    });

    it.each(['PUT', 'PATCH'] as const)(
      "%s responds with 404 NotFound for an unknown card and for another organization's card",
      async (method) => {
        const body = method === 'PUT' ? { daily: 1, monthly: 1, atm: 1 } : { daily: 1 };
        await expectInvalid(await send(method, 'crd_doesnotexist000000000000', body), 404, 'NotFound');
        await expectInvalid(await send(method, plain, body, { as: other }), 404, 'NotFound');
        expect(await storedLimits(plain)).toEqual(PLAIN);
      },
    );

    it.each(['PUT', 'PATCH'] as const)('%s needs cards:write', async (method) => {
      const token = await partner.token('cards:read');
      const response = await partner.request(method, `/v1/card/${plain}/limits`, {
        body: { daily: 1, monthly: 1, atm: 1 },
        contentType: MERGE_PATCH,
        token,
      });
      expect(response.status).toBe(403);
      expect(await storedLimits(plain)).toEqual(PLAIN);
    });

    it('responds with the balance of the current Cairo day: usage of yesterday no longer counts against the daily limit', async () => {
      const dayStart = cairoPeriods(NOW).dayStartMs;
      const card = await addCard(app.db, partner.organizationId, holder, {
        limits: { daily: 100_000, monthly: 1_000_000, atm: 1_000_000, approvalBased: null },
      });
      await addRecords(app.db, partner.organizationId, [
        { cardId: card, personId: holder, authorizationDate: dayStart - 1, amountCents: 70_000 },
        { cardId: card, personId: holder, authorizationDate: dayStart, amountCents: 20_000 },
      ]);
      // daily 100000 - 20000 today; monthly 1000000 - 90000; atm untouched.
      await expectCard(
        await send('PATCH', card, { monthly: 0 }),
        { daily: 100_000, monthly: 1_000_000, atm: 1_000_000, approvalBased: null },
        80_000,
      );
    });
  });
});
