import { PGlite } from '@electric-sql/pglite';
import { afterEach, describe, expect, it } from 'vitest';
import { pgliteTemplate } from '../../scripts/proof/database.js';
import { INT8_OID, parseInt8 } from '../../server/database/open.js';

/**
 * The fix the project applies to PGlite (patches/@electric-sql+pglite+0.5.16+001+prepared-statements.patch,
 * applied by patch-package at install): query texts kept as named prepared statements. Every test
 * here but the one pinning the default fails on the library as released, which prepares nothing.
 */
type Instance = PGlite;

const open: Instance[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((instance) => instance.close()));
});

/**
 * PGlite in this thread, with the server's int8 parser, keeping up to `maxPreparedStatements`
 * texts; from the tests' dump of an empty database, which spares an initdb each.
 */
async function embedded(maxPreparedStatements = 2_000): Promise<Instance> {
  const instance = await PGlite.create({
    loadDataDir: await pgliteTemplate({ migrated: false }),
    parsers: { [INT8_OID]: parseInt8 },
  });
  open.push(instance);
  instance.maxPreparedStatements = maxPreparedStatements;
  await instance.exec(`create table t (id int8 primary key, note text, amount int8 not null);
    insert into t values (1, 'one', 100), (2, null, 9007199254740991)`);
  return instance;
}

/** The texts prepared on the instance, read by a simple query, which prepares nothing. */
async function preparedTexts(instance: Instance): Promise<string[]> {
  const [result] = await instance.exec('select statement from pg_prepared_statements order by prepare_time, name');
  return (result?.rows ?? []).map((row) => String(row.statement));
}

const BY_ID = 'select id, note, amount from t where id = $1';

describe('PGlite keeps query texts prepared', () => {
  it('prepares a text once and responds to every call with its own parameters, parsers applied', async () => {
    const db = await embedded();
    expect((await db.query(BY_ID, [1])).rows).toEqual([{ id: 1, note: 'one', amount: 100 }]);
    expect((await db.query(BY_ID, [2])).rows).toEqual([{ id: 2, note: null, amount: 9007199254740991 }]);
    expect((await db.query(BY_ID, [3])).rows).toEqual([]);
    expect((await db.query(BY_ID, [2], { rowMode: 'array' })).rows).toEqual([[2, null, 9007199254740991]]);
    expect(await preparedTexts(db)).toContain(BY_ID);
    expect((await preparedTexts(db)).filter((text) => text === BY_ID)).toHaveLength(1);
  });

  it('prepares nothing when the bound is 0, as released', async () => {
    const db = await embedded(0);
    await db.query(BY_ID, [1]);
    await db.query(BY_ID, [1]);
    expect(await preparedTexts(db)).toEqual([]);
  });

  it('closes the least recently used text beyond the bound', async () => {
    const db = await embedded(2);
    const texts = [
      'select 1 as a where $1::int = 1',
      'select 2 as b where $1::int = 1',
      'select 3 as c where $1::int = 1',
    ];
    await db.query(texts[0]!, [1]);
    await db.query(texts[1]!, [1]);
    await db.query(texts[0]!, [1]); // now the most recently used
    await db.query(texts[2]!, [1]);
    expect((await preparedTexts(db)).sort()).toEqual([texts[0], texts[2]].sort());
    expect((await db.query<{ b: number }>(texts[1]!, [1])).rows).toEqual([{ b: 2 }]);
  });

  it('prepares a text afresh after PostgreSQL rejects its prepared statement', async () => {
    const db = await embedded();
    const all = 'select * from t where id = $1';
    await db.query(all, [1]);
    await db.exec('alter table t add column extra int');
    // PostgreSQL rejects a prepared statement whose result changed; that one call fails, as with
    // any driver that prepares statements, and the next prepares the text again.
    await expect(db.query(all, [1])).rejects.toMatchObject({ code: '0A000' });
    expect((await db.query(all, [1])).rows).toEqual([{ id: 1, note: 'one', amount: 100, extra: null }]);
    await db.exec('deallocate all');
    expect((await db.query(BY_ID, [1])).rows).toHaveLength(1);
    await expect(db.query(all, [1])).rejects.toMatchObject({ code: '26000' });
    expect((await db.query(all, [2])).rows).toHaveLength(1);
  });

  it('keeps a statement prepared in a transaction that rolls back, and prepares none in a failed one', async () => {
    const db = await embedded();
    await db
      .transaction(async (tx) => {
        await tx.query(BY_ID, [1]);
        throw new Error('roll back');
      })
      .catch(() => undefined);
    expect(await preparedTexts(db)).toEqual([BY_ID]);
    expect((await db.query(BY_ID, [2])).rows).toHaveLength(1);
    await db
      .transaction(async (tx) => {
        await tx.query('select 1/0').catch(() => undefined);
        await expect(tx.query('select note from t where id = $1', [1])).rejects.toMatchObject({ code: '25P02' });
      })
      .catch(() => undefined);
    expect(await preparedTexts(db)).not.toContain('select note from t where id = $1');
    expect((await db.query<{ note: string }>('select note from t where id = $1', [1])).rows).toEqual([{ note: 'one' }]);
  });
});
