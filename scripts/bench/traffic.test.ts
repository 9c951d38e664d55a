import { describe, expect, it } from 'vitest';
import {
  Rotation,
  WALK_FILTER_SETS,
  PageCursor,
  PaginationPlan,
  interleaveCards,
  mixSchedule,
  nextCursorOf,
  pagePath,
} from './traffic.js';

const NOW = Date.UTC(2026, 10, 27, 13, 30);

describe('interleaveCards', () => {
  it('takes card i of each organization in turn, and the rest of a longer list at the end', () => {
    const keys = interleaveCards([['a1', 'a2', 'a3'], ['b1'], ['c1', 'c2']]);
    expect(keys.map((key) => `${key.organization}:${key.cardId}`)).toEqual([
      '0:a1',
      '1:b1',
      '2:c1',
      '0:a2',
      '2:c2',
      '0:a3',
    ]);
  });

  it('asks for a card again only after every other card', () => {
    const byOrganization = Array.from({ length: 5 }, (_, organization) =>
      Array.from({ length: 208 }, (_, i) => `crd_${organization}_${i}`),
    );
    const rotation = new Rotation(interleaveCards(byOrganization));
    const seen = Array.from({ length: 1040 }, () => rotation.take().cardId);
    expect(new Set(seen).size).toBe(1040);
    expect(rotation.take().cardId).toBe(seen[0]);
  });
});

describe('PaginationPlan', () => {
  it('walks every filter set in every organization at 100 a page, then all again one record shorter', () => {
    const plan = new PaginationPlan(2);
    const first = Array.from({ length: 2 * WALK_FILTER_SETS.length }, () => plan.next());
    expect(first.map((walk) => [walk.organization, walk.filterSet.name, walk.limit])).toEqual(
      WALK_FILTER_SETS.flatMap((filterSet) => [
        [0, filterSet.name, 100],
        [1, filterSet.name, 100],
      ]),
    );
    expect(plan.next()).toMatchObject({ organization: 0, filterSet: WALK_FILTER_SETS[0], limit: 99 });
    expect(plan.paginationsStarted).toBe(2 * WALK_FILTER_SETS.length + 1);
  });

  it('after the round at 51 a page, walks at 100 again with a toDate bound that excludes nothing', () => {
    const plan = new PaginationPlan(1, [{ name: 'whole ledger' }]);
    const walks = Array.from({ length: 52 }, () => plan.next());
    expect(walks.slice(0, 3).map((walk) => walk.limit)).toEqual([100, 99, 98]);
    expect(walks[49]).toEqual({ organization: 0, filterSet: { name: 'whole ledger' }, limit: 51 });
    expect(walks[50]).toEqual({
      organization: 0,
      filterSet: { name: 'whole ledger' },
      limit: 100,
      toDate: Number.MAX_SAFE_INTEGER - 1,
    });
    expect(walks[51]?.limit).toBe(99);
  });

  it('starts where the plan before it stopped, so that no two plans share a round', () => {
    const first = new PaginationPlan(2);
    for (let i = 0; i < 9; i += 1) first.next();
    // Nine walks of eight a round: the second round was started.
    expect(first.nextFreeRound).toBe(2);
    const second = new PaginationPlan(2, WALK_FILTER_SETS, first.nextFreeRound);
    expect(second.next()).toMatchObject({ organization: 0, filterSet: WALK_FILTER_SETS[0], limit: 98 });
    expect(new PaginationPlan(2).nextFreeRound).toBe(0);
  });
});

describe('pagePath', () => {
  it('sends the filter set, the limit and, after the first page, the cursor', () => {
    const filterSet = WALK_FILTER_SETS[3];
    if (filterSet === undefined) throw new Error('no fourth filter set');
    const fromDate = Math.floor((NOW - 180 * 86_400_000) / 86_400_000) * 86_400_000;
    expect(pagePath({ organization: 0, filterSet, limit: 100 }, NOW)).toBe(
      `/v1/transaction?limit=100&categories=FOOD_BEVERAGE,TRANSPORTATION,TRAVEL&fromDate=${fromDate}`,
    );
    const exceptions = { name: 'exceptions', statuses: ['DECLINED'] } as const;
    expect(pagePath({ organization: 0, filterSet: exceptions, limit: 99 }, NOW, 'a+b/c')).toBe(
      '/v1/transaction?limit=99&statuses=DECLINED&cursor=a%2Bb%2Fc',
    );
    expect(pagePath({ organization: 0, filterSet: exceptions, limit: 99, toDate: 42 }, NOW)).toBe(
      '/v1/transaction?limit=99&statuses=DECLINED&toDate=42',
    );
  });
});

describe('nextCursorOf', () => {
  it("finds the page's own nextCursor, and none on the last page", () => {
    expect(nextCursorOf('{"transactions":[{"id":"txn_1"}],"nextCursor":"eyJr.c2ln"}')).toBe('eyJr.c2ln');
    expect(nextCursorOf('{"transactions":[{"id":"txn_1"}]}')).toBeUndefined();
    expect(nextCursorOf('{"transactions":[]}')).toBeUndefined();
  });

  it("does not take a record's text for the cursor", () => {
    expect(nextCursorOf('{"transactions":[{"note":"\\"nextCursor\\":\\"x\\""}]}')).toBeUndefined();
  });
});

describe('PageCursor', () => {
  const page = (cursor?: string): string =>
    `{"transactions":[{"id":"txn_1"}]${cursor === undefined ? '' : `,"nextCursor":"${cursor}"`}}`;

  it("follows each response's cursor, and starts the next walk after the last page", () => {
    const plan = new PaginationPlan(2, [{ name: 'whole ledger' }]);
    const paginator = new PageCursor(plan);
    expect(paginator.page(NOW)).toEqual({ organization: 0, path: '/v1/transaction?limit=100' });
    paginator.received(200, page('c1'));
    expect(paginator.page(NOW)).toEqual({ organization: 0, path: '/v1/transaction?limit=100&cursor=c1' });
    paginator.received(200, page());
    expect(paginator.page(NOW)).toEqual({ organization: 1, path: '/v1/transaction?limit=100' });
    expect(paginator.paginationsFinished).toBe(1);
    expect(paginator.pagesAsked).toBe(3);
  });

  it('gives up a walk whose page failed, without counting it finished', () => {
    const plan = new PaginationPlan(2, [{ name: 'whole ledger' }]);
    const paginator = new PageCursor(plan);
    paginator.page(NOW);
    paginator.received(200, page('c1'));
    paginator.page(NOW);
    paginator.received(400, '{"message":"The cursor is not valid for this request.","type":"InvalidRequest"}');
    expect(paginator.page(NOW).path).toBe('/v1/transaction?limit=100');
    expect(paginator.paginationsFinished).toBe(0);
  });

  it('shares the plan: two connections never walk the same walk', () => {
    const plan = new PaginationPlan(3, [{ name: 'whole ledger' }]);
    const a = new PageCursor(plan);
    const b = new PageCursor(plan);
    expect(a.page(NOW).organization).toBe(0);
    expect(b.page(NOW).organization).toBe(1);
    a.received(200, page());
    expect(a.page(NOW).organization).toBe(2);
  });
});

describe('mixSchedule', () => {
  it('gives each operation its weight in a cycle, spread out rather than in blocks', () => {
    const schedule = mixSchedule([
      { operation: 'card', weight: 8 },
      { operation: 'page', weight: 8 },
      { operation: 'create', weight: 3 },
      { operation: 'execute', weight: 1 },
    ]);
    expect(schedule).toHaveLength(20);
    const count = (operation: string): number => schedule.filter((each) => each === operation).length;
    expect([count('card'), count('page'), count('create'), count('execute')]).toEqual([8, 8, 3, 1]);
    // No two creates in a row, and reads never wait long for each other.
    schedule.forEach((operation, i) => {
      if (operation === 'create') expect(schedule[(i + 1) % 20]).not.toBe('create');
    });
  });

  it('rejects weights that make no cycle', () => {
    expect(() => mixSchedule([{ operation: 'card', weight: 0 }])).toThrow(RangeError);
    expect(() => mixSchedule([{ operation: 'card', weight: 1.5 }])).toThrow(RangeError);
  });
});
