import { describe, expect, it } from 'vitest';
import { WALK_FILTER_SETS } from './traffic.js';
import {
  cardStatementScript,
  parsePgbenchOutput,
  pgbenchScript,
  textArray,
  paginationStatementScript,
} from './pgbench.js';

const NOW = Date.UTC(2026, 10, 27, 13, 30);

describe('pgbenchScript', () => {
  it('binds numbers with \\set, texts with -D, and puts the substitutes in their places', () => {
    const script = pgbenchScript(
      {
        sql: 'select * from t where a = $1 and b = $2 and c in ($3, $10) and d = $4',
        parameters: [42, 'SUCCEEDED', 'x', 'pick', 5, 6, 7, 8, 9, 'y'],
      },
      {
        prefix: 's_',
        head: ['\\set n random(1, 3)'],
        substitute: (value) => (value === 'pick' ? "('{a,b,c}'::text[])[:n]" : undefined),
      },
    );
    expect(script.text).toBe(
      [
        '\\set n random(1, 3)',
        '\\set s_p1 42',
        '\\set s_p5 5',
        '\\set s_p6 6',
        '\\set s_p7 7',
        '\\set s_p8 8',
        '\\set s_p9 9',
        "select * from t where a = :s_p1 and b = :s_p2 and c in (:s_p3, :s_p10) and d = ('{a,b,c}'::text[])[:n];",
        '',
      ].join('\n'),
    );
    expect(script.defines).toEqual({ s_p2: 'SUCCEEDED', s_p3: 'x', s_p10: 'y' });
  });

  it('rejects a value it cannot bind', () => {
    expect(() =>
      pgbenchScript({ sql: 'select $1', parameters: [1.5] }, { prefix: '', head: [], substitute: () => undefined }),
    ).toThrow(/number/);
  });
});

describe('textArray', () => {
  it('lists ids, and rejects anything that would need quoting', () => {
    expect(textArray(['crd_a1', 'crd_b2'])).toBe("'{crd_a1,crd_b2}'::text[]");
    expect(() => textArray(["x'; drop table cards; --"])).toThrow(/not an id/);
  });
});

describe("the spread reads' statements, as the store builds them", () => {
  it('getCard: one statement, its card and organization picked together at random', async () => {
    const script = await cardStatementScript(
      [
        { organizationId: 'org_a', cardId: 'crd_1' },
        { organizationId: 'org_b', cardId: 'crd_2' },
      ],
      NOW,
    );
    expect(script.text.startsWith('\\set n random(1, 2)\n')).toBe(true);
    expect(script.text).toContain("c.organization_id = ('{org_a,org_b}'::text[])[:n]");
    expect(script.text).toContain("and c.id = ('{crd_1,crd_2}'::text[])[:n]");
    expect(script.text).not.toMatch(/\$\d/);
    expect(script.defines).toEqual({});
  });

  it('listTransactions: a page after a random position in a random organization, under the filter set', async () => {
    const filterSet = WALK_FILTER_SETS[1];
    if (filterSet === undefined) throw new Error('no second filter set');
    const script = await paginationStatementScript(filterSet, 1, {
      organizations: ['org_a', 'org_b'],
      now: NOW,
      ledgerStart: NOW - 1000,
      limit: 100,
    });
    expect(script.text).toContain(`\\set d random(${NOW - 1000}, ${NOW})`);
    expect(script.text).toContain(`"t"."organization_id" = ('{org_a,org_b}'::text[])[:o]`);
    expect(script.text).toContain(`("t"."authorization_date", "t"."id") < (:d, 'txn_`);
    expect(script.text).toMatch(
      /^select t.record::text as "json" from "transactions" as "t" where .* limit :walk1_p\d+;\n$/m,
    );
    expect(Object.values(script.defines).sort()).toEqual(['DECLINED', 'REVERSED']);
    expect(script.text).not.toMatch(/\$\d/);
  });
});

describe('parsePgbenchOutput', () => {
  it("reads pgbench 15's report", () => {
    const output = [
      'transaction type: multiple scripts',
      'scaling factor: 1',
      'query mode: prepared',
      'number of clients: 10',
      'number of threads: 2',
      'duration: 10 s',
      'number of transactions actually processed: 16790',
      'number of failed transactions: 0 (0.000%)',
      'latency average = 5.958 ms',
      'initial connection time = 12.345 ms',
      'tps = 1678.912345 (without initial connection time)',
    ].join('\n');
    expect(parsePgbenchOutput(output)).toEqual({ transactions: 16790, tps: 1678.912345, latencyAverageMs: 5.958 });
    expect(() => parsePgbenchOutput('pgbench: error: connection failed')).toThrow(/transaction count/);
  });
});
