import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { components } from '../../generated/openapi-types.js';
import { categoryLabel, type Category } from '../../server/domain/categories.js';
import { seedSandboxData } from '../../server/sandbox/demo-organization.js';
import type { TransactionRow } from '../../server/database/schema.js';
import { startTestApp, testClock, type Partner, type TestApp } from '../../scripts/proof/app.js';
import { addCard, addHolder, addRecords, ledgerRows } from '../helpers/ledger.js';

type Transaction = components['schemas']['Transaction'];
type TransactionListPage = components['schemas']['TransactionListPage'];
type ErrorBody = components['schemas']['Error'];

// The ledger over HTTP (listTransactions, getTransaction): every filter alone and combined
// against the same filter applied to the stored rows, keyset traversal under concurrent inserts,
// cursor misuse, and tenancy. The real app on a real database, response validation on.

const NOW = Date.parse('2025-03-17T10:30:00Z');
const DAY = 86_400_000;

async function json<T>(response: Response): Promise<{ status: number; body: T }> {
  return { status: response.status, body: (await response.json()) as T };
}

type Query = Record<string, string>;

/** Percent-encoding (RFC 3986), as openapi-fetch and most SDKs send it: a space is %20. */
function queryString(query: Query): string {
  return Object.entries(query)
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
    .join('&');
}

async function collect(
  partner: Partner,
  query: Query,
  limit = 100,
  between?: (page: number) => Promise<void>,
): Promise<Transaction[]> {
  const all: Transaction[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 1_000; page += 1) {
    const { status, body } = await json<TransactionListPage>(
      await partner.request(
        'GET',
        `/v1/transaction?${queryString({ ...query, limit: String(limit), ...(cursor !== undefined ? { cursor } : {}) })}`,
      ),
    );
    expect(status, JSON.stringify(body)).toBe(200);
    all.push(...body.transactions);
    cursor = body.nextCursor;
    if (cursor === undefined) return all;
    expect(body.transactions).toHaveLength(limit);
    await between?.(page);
  }
  throw new Error('the traversal did not end');
}

describe('transactions', () => {
  let app: TestApp;
  let partner: Partner;
  let other: Partner;
  /** Stored rows of the partner, newest first (the database's order), and each person's department. */
  let rows: TransactionRow[];
  let departmentOf: Map<string, string | null>;
  let departments: { id: string; name: string }[];

  async function refresh(): Promise<void> {
    rows = await ledgerRows(app.db, partner.organizationId);
    const holders = await app.db
      .selectFrom('card_holders')
      .select(['id', 'department_id'])
      .where('organization_id', '=', partner.organizationId)
      .execute();
    departmentOf = new Map(holders.map((holder) => [holder.id, holder.department_id]));
    departments = await app.db
      .selectFrom('departments')
      .select(['id', 'name'])
      .where('organization_id', '=', partner.organizationId)
      .orderBy('name')
      .execute();
  }

  beforeAll(async () => {
    app = await startTestApp({ clock: testClock(NOW) });
    partner = await app.onboard({ name: 'Nile Trading' });
    other = await app.onboard({ name: 'Delta Foods' });
    await seedSandboxData(app.db, { organizationId: partner.organizationId, now: NOW });
    await seedSandboxData(app.db, { organizationId: other.organizationId, now: NOW });
    // Merchant names with LIKE wildcards and the escape character, to check they match literally.
    const holder = await addHolder(app.db, partner.organizationId);
    const card = await addCard(app.db, partner.organizationId, holder, { last4: '1234' });
    await addRecords(
      app.db,
      partner.organizationId,
      ['100% Fresh_Juice', '1000 Fresh Juice', 'Back\\slash Kiosk', 'Backslash Kiosk', 'Ahmed_Store'].map(
        (merchant, i) => ({
          cardId: card,
          last4: '1234',
          personId: holder,
          merchant,
          authorizationDate: NOW - (i + 1) * 3_600_000,
        }),
      ),
    );
    await refresh();
  });
  afterAll(async () => {
    await app?.close();
  });

  const ids = (list: readonly { id: string }[]): string[] => list.map((item) => item.id);
  const where = (predicate: (row: TransactionRow) => boolean): string[] => ids(rows.filter(predicate));
  const dateAt = (index: number): number => {
    const row = rows[index];
    if (row === undefined) throw new Error(`no row ${index}`);
    return row.authorization_date;
  };

  it('lists newest first, 10 by default, each record shaped as the Transaction schema', async () => {
    const { status, body } = await json<TransactionListPage>(await partner.request('GET', '/v1/transaction'));
    expect(status).toBe(200);
    expect(ids(body.transactions)).toEqual(ids(rows.slice(0, 10)));
    expect(body.nextCursor).toEqual(expect.any(String));
    for (const txn of body.transactions) {
      expect(txn.categoryLabel).toBe(categoryLabel(txn.category as Category));
      expect(txn.department).toBe(txn.person.department?.name ?? null);
      expect(txn.currency).toBe('EGP');
    }
  });

  it('lists every record of the organization once, and only those', async () => {
    const all = await collect(partner, {});
    expect(ids(all)).toEqual(ids(rows));
    const theirs = await collect(other, {});
    expect(theirs.some((txn) => rows.some((row) => row.id === txn.id))).toBe(false);
  });

  describe('each filter alone', () => {
    const cases: [string, () => Query, () => string[]][] = [
      [
        'fromDate (inclusive)',
        () => ({ fromDate: String(dateAt(40)) }),
        () => where((r) => r.authorization_date >= dateAt(40)),
      ],
      [
        'toDate (inclusive)',
        () => ({ toDate: String(dateAt(40)) }),
        () => where((r) => r.authorization_date <= dateAt(40)),
      ],
      [
        'fromDate and toDate, both inclusive',
        () => ({ fromDate: String(dateAt(80)), toDate: String(dateAt(20)) }),
        () => where((r) => r.authorization_date >= dateAt(80) && r.authorization_date <= dateAt(20)),
      ],
      [
        'fromDate equal to toDate',
        () => ({ fromDate: String(dateAt(5)), toDate: String(dateAt(5)) }),
        () => where((r) => r.authorization_date === dateAt(5)),
      ],
      ['one status', () => ({ statuses: 'DECLINED' }), () => where((r) => r.status === 'DECLINED')],
      ['two statuses', () => ({ statuses: 'SUCCEEDED,REVERSED' }), () => where((r) => r.status !== 'DECLINED')],
      ['one category', () => ({ categories: 'FOOD_BEVERAGE' }), () => where((r) => r.category === 'FOOD_BEVERAGE')],
      [
        'two categories',
        () => ({ categories: 'TRAVEL,HOSPITALITY' }),
        () => where((r) => r.category === 'TRAVEL' || r.category === 'HOSPITALITY'),
      ],
      ['one review status', () => ({ reviewStatuses: 'REJECTED' }), () => where((r) => r.review_status === 'REJECTED')],
      [
        'two review statuses (records without one never match)',
        () => ({ reviewStatuses: 'NOT_REVIEWED,UNDER_REVIEW' }),
        () => where((r) => r.review_status === 'NOT_REVIEWED' || r.review_status === 'UNDER_REVIEW'),
      ],
      [
        'merchant, ignoring case',
        () => ({ merchant: 'cARREFOUR' }),
        () => where((r) => r.merchant.toLowerCase().includes('carrefour')),
      ],
      [
        'merchant in the middle of the name',
        () => ({ merchant: 'atm' }),
        () => where((r) => r.merchant.toLowerCase().includes('atm')),
      ],
      [
        'merchant with %, matched literally',
        () => ({ merchant: '0% f' }),
        () => where((r) => r.merchant === '100% Fresh_Juice'),
      ],
      [
        'merchant with _, matched literally',
        () => ({ merchant: 'h_j' }),
        () => where((r) => r.merchant === '100% Fresh_Juice'),
      ],
      ['merchant _ alone', () => ({ merchant: '_' }), () => where((r) => r.merchant.includes('_'))],
      [
        'merchant with a backslash',
        () => ({ merchant: 'k\\s' }),
        () => where((r) => r.merchant === 'Back\\slash Kiosk'),
      ],
      ['merchant that matches nothing', () => ({ merchant: 'Starbucks Reserve' }), () => []],
      [
        'one department',
        () => ({ departmentIds: departments[0]?.id ?? '' }),
        () => where((r) => departmentOf.get(r.person_id) === departments[0]?.id),
      ],
      [
        'two departments',
        () => ({ departmentIds: `${departments[1]?.id ?? ''},${departments[2]?.id ?? ''}` }),
        () =>
          where((r) => [departments[1]?.id, departments[2]?.id].includes(departmentOf.get(r.person_id) ?? undefined)),
      ],
      ['an unknown department', () => ({ departmentIds: 'dep_unknown' }), () => []],
    ];
    it.each(cases)('%s', async (_name, query, expected) => {
      const want = expected();
      const got = await collect(partner, query());
      expect(ids(got)).toEqual(want);
    });

    it('matches at least one record for most filters (the sandbox data is worth filtering)', () => {
      const matched = cases.filter(([, , expected]) => expected().length > 0).length;
      expect(matched).toBeGreaterThanOrEqual(cases.length - 3);
    });
  });

  describe('filters combined', () => {
    const cases: [string, () => Query, (r: TransactionRow) => boolean][] = [
      [
        'dates, statuses and categories',
        () => ({
          fromDate: String(NOW - 30 * DAY),
          toDate: String(NOW - DAY),
          statuses: 'SUCCEEDED',
          categories: 'FOOD_BEVERAGE,TRANSPORTATION,RETAIL',
        }),
        (r) =>
          r.authorization_date >= NOW - 30 * DAY &&
          r.authorization_date <= NOW - DAY &&
          r.status === 'SUCCEEDED' &&
          ['FOOD_BEVERAGE', 'TRANSPORTATION', 'RETAIL'].includes(r.category),
      ],
      [
        'review statuses and departments',
        () => ({
          reviewStatuses: 'APPROVED,BALANCE_SETTLED',
          departmentIds: departments
            .slice(0, 3)
            .map((d) => d.id)
            .join(','),
        }),
        (r) =>
          ['APPROVED', 'BALANCE_SETTLED'].includes(r.review_status ?? '') &&
          departments.slice(0, 3).some((d) => d.id === departmentOf.get(r.person_id)),
      ],
      [
        'merchant and statuses',
        () => ({ merchant: 'egypt', statuses: 'SUCCEEDED,DECLINED' }),
        (r) => r.merchant.toLowerCase().includes('egypt') && r.status !== 'REVERSED',
      ],
      [
        'all nine parameters',
        () => ({
          fromDate: String(NOW - 60 * DAY),
          toDate: String(NOW),
          statuses: 'SUCCEEDED,REVERSED,DECLINED',
          categories: 'CASH,FOOD_BEVERAGE,TRANSPORTATION',
          reviewStatuses: 'NOT_REVIEWED,UNDER_REVIEW,APPROVED,BALANCE_SETTLED',
          merchant: 'a',
          departmentIds: departments.map((d) => d.id).join(','),
        }),
        (r) =>
          r.authorization_date >= NOW - 60 * DAY &&
          r.authorization_date <= NOW &&
          ['CASH', 'FOOD_BEVERAGE', 'TRANSPORTATION'].includes(r.category) &&
          ['NOT_REVIEWED', 'UNDER_REVIEW', 'APPROVED', 'BALANCE_SETTLED'].includes(r.review_status ?? '') &&
          r.merchant.toLowerCase().includes('a') &&
          departmentOf.get(r.person_id) !== null,
      ],
    ];
    it.each(cases)('%s, page by page', async (_name, query, predicate) => {
      const want = where(predicate);
      expect(want.length).toBeGreaterThan(0);
      expect(ids(await collect(partner, query(), 3))).toEqual(want);
    });
  });

  it('collects each record once, skipping none, while records are added between pages', async () => {
    const before = ids(rows);
    const holder = await addHolder(app.db, partner.organizationId);
    const newest: string[] = [];
    const oldest: string[] = [];
    const all = await collect(partner, {}, 25, async (page) => {
      // Newer than the first page: belongs to the next traversal. Older than all: reached by this one.
      newest.push(
        ...(await addRecords(app.db, partner.organizationId, [
          { personId: holder, method: 'CASH', authorizationDate: NOW + page + 1 },
        ])),
      );
      oldest.push(
        ...(await addRecords(app.db, partner.organizationId, [
          { personId: holder, method: 'CASH', authorizationDate: 1_000 + page },
        ])),
      );
    });
    const got = ids(all);
    expect(new Set(got).size).toBe(got.length);
    expect(got.slice(0, before.length)).toEqual(before);
    expect(got.slice(before.length).sort()).toEqual([...oldest].sort());
    expect(got.filter((id) => newest.includes(id))).toEqual([]);
    await refresh();
  });

  it('breaks ties of authorizationDate by id, across pages', async () => {
    const holder = await addHolder(app.db, partner.organizationId);
    const tie = 5_000;
    await addRecords(
      app.db,
      partner.organizationId,
      Array.from({ length: 9 }, () => ({ personId: holder, method: 'CASH' as const, authorizationDate: tie })),
    );
    await refresh();
    const got = await collect(partner, { fromDate: String(tie), toDate: String(tie) }, 2);
    expect(got).toHaveLength(9);
    expect(ids(got)).toEqual(where((r) => r.authorization_date === tie));
  });

  it('accepts a space in the merchant filter sent as + (HTML form encoding, the default of many HTTP clients)', async () => {
    const { status, body } = await json<TransactionListPage>(
      await partner.request('GET', '/v1/transaction?limit=100&merchant=uber+egypt'),
    );
    expect(status, JSON.stringify(body)).toBe(200);
    expect(ids(body.transactions)).toEqual(where((r) => r.merchant.toLowerCase().includes('uber egypt')).slice(0, 100));
  });

  it('treats list filters as sets: another order of the same values keeps the cursor valid', async () => {
    const first = await json<TransactionListPage>(
      await partner.request('GET', '/v1/transaction?limit=5&statuses=SUCCEEDED,DECLINED'),
    );
    const cursor = encodeURIComponent(first.body.nextCursor ?? '');
    const next = await partner.request(
      'GET',
      `/v1/transaction?limit=5&statuses=DECLINED,SUCCEEDED,DECLINED&cursor=${cursor}`,
    );
    expect(next.status).toBe(200);
  });

  it('rejects a tampered cursor, and a cursor sent with other filters, another limit or to another list', async () => {
    const first = await json<TransactionListPage>(
      await partner.request('GET', '/v1/transaction?limit=5&statuses=SUCCEEDED'),
    );
    const cursor = first.body.nextCursor;
    if (cursor === undefined) throw new Error('expected a next page');
    const at = cursor.length - 3;
    const tampered = `${cursor.slice(0, at)}${cursor[at] === 'x' ? 'y' : 'x'}${cursor.slice(at + 1)}`;
    const cards = await json<{ nextCursor?: string }>(await partner.request('GET', '/v1/card?limit=5'));
    const c = encodeURIComponent;
    for (const path of [
      `/v1/transaction?limit=5&statuses=SUCCEEDED&cursor=${c(tampered)}`,
      `/v1/transaction?limit=5&cursor=${c(cursor)}`,
      `/v1/transaction?limit=5&statuses=SUCCEEDED,DECLINED&cursor=${c(cursor)}`,
      `/v1/transaction?limit=5&statuses=SUCCEEDED&merchant=a&cursor=${c(cursor)}`,
      `/v1/transaction?limit=6&statuses=SUCCEEDED&cursor=${c(cursor)}`,
      `/v1/transaction?statuses=SUCCEEDED&cursor=${c(cursor)}`,
      `/v1/transaction?limit=5&cursor=${c(cards.body.nextCursor ?? 'x')}`,
    ]) {
      const { status, body } = await json<ErrorBody>(await partner.request('GET', path));
      expect(status, path).toBe(400);
      expect(body.type).toBe('InvalidRequest');
    }
  });

  it.each([
    ['fromDate after toDate', '?fromDate=2000&toDate=1999'],
    ['an unknown status in a list', '?statuses=SUCCEEDED,BOGUS'],
    ['an empty element in a list', '?statuses=SUCCEEDED,'],
    ['an unknown category', '?categories=FOOD'],
    ['null as a review status', '?reviewStatuses=null'],
    ['a lower-case enum value', '?statuses=succeeded'],
    ['a malformed department id', '?departmentIds=dep%20one'],
    ['an empty merchant', '?merchant='],
    ['a date that is not a number', '?fromDate=yesterday'],
    ['limit 0', '?limit=0'],
    ['limit 101', '?limit=101'],
    ['an unknown parameter', '?person=me'],
  ])('responds with 400 InvalidRequest for %s', async (_name, query) => {
    const { status, body } = await json<ErrorBody>(await partner.request('GET', `/v1/transaction${query}`));
    expect(status).toBe(400);
    expect(body.type).toBe('InvalidRequest');
  });

  it('gets each record the same as the list sends it', async () => {
    // The list reads its records as one JSON value the database aggregates (listTransactions),
    // getTransaction as a row: both must give the same Transaction, field for field.
    const listed = await collect(partner, {});
    for (const sample of listed) {
      const { status, body } = await json<Transaction>(await partner.request('GET', `/v1/transaction/${sample.id}`));
      expect(status).toBe(200);
      expect(body).toStrictEqual(sample);
    }
    // Every way a record's optional and nullable fields can be is among them.
    const has = (predicate: (txn: Transaction) => boolean): boolean => listed.some(predicate);
    for (const field of ['note', 'description', 'authorizationCode'] as const) {
      expect([has((txn) => field in txn), has((txn) => !(field in txn))], field).toEqual([true, true]);
    }
    for (const field of ['userExternalIdOne', 'userExternalIdTwo', 'userExternalIdThree'] as const) {
      expect([has((txn) => field in txn.person), has((txn) => !(field in txn.person))], field).toEqual([true, true]);
    }
    expect([has((txn) => txn.department === null), has((txn) => txn.department !== null)]).toEqual([true, true]);
    expect([has((txn) => txn.reviewStatus === null), has((txn) => txn.reviewStatus !== null)]).toEqual([true, true]);
    expect([has((txn) => txn.last4 === null), has((txn) => txn.tags.length > 0)]).toEqual([true, true]);
    expect(has((txn) => txn.merchant.includes('\\'))).toBe(true);
    const samples = [
      listed.find((txn) => txn.method === 'CARD' && txn.category === 'FOOD_BEVERAGE'),
      listed.find((txn) => txn.method === 'CASH' && txn.refund),
      listed.find((txn) => txn.method === 'PARTNER_FEES'),
    ];
    expect(samples[0]?.categoryLabel).toBe('Food & Beverage');
    expect(samples[1]?.last4).toBeNull();
    expect(samples[2]?.last4).toBeNull();
  });

  it("responds with 404 NotFound for an unknown record and for another organization's", async () => {
    const theirs = (await ledgerRows(app.db, other.organizationId))[0];
    if (theirs === undefined) throw new Error('no record');
    for (const id of ['txn_doesnotexist00000000000', theirs.id]) {
      const { status, body } = await json<ErrorBody>(await partner.request('GET', `/v1/transaction/${id}`));
      expect(status).toBe(404);
      expect(body.type).toBe('NotFound');
    }
  });

  it('needs a token with cards:read', async () => {
    expect((await partner.request('GET', '/v1/transaction', { token: null })).status).toBe(401);
    expect(
      (await partner.request('GET', '/v1/transaction', { token: await partner.token('transfers:read') })).status,
    ).toBe(403);
    expect(
      (
        await partner.request('GET', `/v1/transaction/${rows[0]?.id ?? ''}`, {
          token: await partner.token('cards:read'),
        })
      ).status,
    ).toBe(200);
  });
});
