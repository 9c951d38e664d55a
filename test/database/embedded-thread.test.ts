import { execFileSync } from 'node:child_process';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  databaseFromPGlite,
  startEmbeddedDatabase,
  type Database,
  type PGliteInstance,
} from '../../server/database/open.js';
import { pgliteTemplate } from '../../scripts/proof/database.js';

/** A new thread on the tests' dump of an empty database (scripts/proof/database.ts), which spares an initdb. */
const emptyDatabase = async () => ({ loadDataDir: await pgliteTemplate({ migrated: false }) });

/**
 * The embedded database in its own thread (server/database/embedded/thread.ts, whose program is
 * embedded/worker.ts), as the server and every other test run it, a test for each kind of message
 * that crosses (embedded/thread-messages.ts), and Kysely's connections to it (one per caller,
 * open.ts).
 */

let pglite: PGliteInstance;
beforeAll(async () => {
  pglite = await startEmbeddedDatabase(await emptyDatabase());
  await pglite.query('create table t (id int8 primary key, note text, amount int8 not null)');
  await pglite.query(`create function fail_with(code text, detail text) returns boolean language plpgsql as $$
    begin raise exception using errcode = code, message = 'failed on purpose', detail = detail; end $$`);
});
afterAll(async () => {
  await pglite.close();
});

/** Resolves to 'settled' once `promise` settles, or 'pending' after a few turns of the event loop and a wait. */
async function stateAfterAWhile(promise: Promise<unknown>): Promise<'settled' | 'pending'> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((resolve) => setTimeout(resolve, 100));
  return settled ? 'settled' : 'pending';
}

describe('the embedded database in its own thread', () => {
  it('returns rows with the int8 parser applied, and rejects an int8 a number cannot hold', async () => {
    await pglite.query('insert into t values ($1, $2, $3)', [1, 'one', 9_007_199_254_740_991]);
    expect((await pglite.query('select id, note, amount from t where id = $1', [1])).rows).toEqual([
      { id: 1, note: 'one', amount: 9_007_199_254_740_991 },
    ]);
    await expect(pglite.query('select 9007199254740993::int8 as too_big')).rejects.toThrow(/not a safe integer/);
    // The same text again, now sent as its id: the response is the same.
    expect((await pglite.query('select id, note, amount from t where id = $1', [1])).rows).toHaveLength(1);
  });

  it('returns json and jsonb values parsed, in rows of either mode and inside transactions', async () => {
    const text = `select '{"a": [1, {"b": null}], "c": "x"}'::json as j, '[1, "two"]'::jsonb as jb, null::json as none, 'text' as t`;
    const parsed = { j: { a: [1, { b: null }], c: 'x' }, jb: [1, 'two'], none: null, t: 'text' };
    expect((await pglite.query(text)).rows).toEqual([parsed]);
    expect((await pglite.query(text, [], { rowMode: 'array' })).rows).toEqual([Object.values(parsed)]);
    const inTransaction = await pglite.transaction(async (tx) => (await tx.query(text)).rows);
    expect(inTransaction).toEqual([parsed]);
  });

  it('keeps each statement text prepared, so that it is parsed and planned once', async () => {
    const byId = 'select note from t where id = $1';
    await pglite.query(byId, [1]);
    await pglite.query(byId, [1]);
    const { rows } = await pglite.query<{ statement: string }>('select statement from pg_prepared_statements');
    expect(rows.filter((row) => row.statement === byId)).toHaveLength(1);
  });

  it('rejects a parameter that cannot cross to the thread, and stays usable', async () => {
    await expect(pglite.query('select $1::text as x', [() => 'a function'])).rejects.toThrow(/could not be cloned/);
    expect((await pglite.query('select $1::text as x', ['text'])).rows).toEqual([{ x: 'text' }]);
  });

  it("hands a database error over with PostgreSQL's fields: code, detail, constraint", async () => {
    await pglite.query('insert into t values ($1, $2, $3)', [2, null, 5]);
    const duplicate = await pglite
      .query('insert into t values ($1, $2, $3)', [2, null, 5])
      .catch((error: unknown) => error);
    expect(duplicate).toBeInstanceOf(Error);
    expect(duplicate).toMatchObject({ code: '23505', constraint: 't_pkey', detail: 'Key (id)=(2) already exists.' });
    const raised = await pglite
      .query('select fail_with($1, $2)', ['PK002', 'insufficient funds'])
      .catch((error: unknown) => error);
    expect(raised).toMatchObject({ code: 'PK002', detail: 'insufficient funds', message: 'failed on purpose' });
  });

  it('keeps a transaction to itself: a statement from outside waits for its end, and sees what it committed', async () => {
    let outside: Promise<unknown> | undefined;
    await pglite.transaction(async (tx) => {
      await tx.query('insert into t values ($1, $2, $3)', [10, 'in a transaction', 1]);
      outside = pglite.query<{ note: string }>('select note from t where id = $1', [10]);
      expect(await stateAfterAWhile(outside)).toBe('pending');
      expect((await tx.query('select note from t where id = $1', [10])).rows).toEqual([{ note: 'in a transaction' }]);
    });
    expect(await outside).toMatchObject({ rows: [{ note: 'in a transaction' }] });
  });

  it('rolls a transaction back when its callback throws, and after a failed statement its commit fails', async () => {
    await expect(
      pglite.transaction(async (tx) => {
        await tx.query('insert into t values ($1, $2, $3)', [20, 'rolled back', 1]);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect((await pglite.query('select * from t where id = $1', [20])).rows).toEqual([]);

    await expect(
      pglite.transaction(async (tx) => {
        await tx.query('insert into t values ($1, $2, $3)', [21, 'kept?', 1]);
        await tx.query('insert into t values ($1, $2, $3)', [21, 'duplicate', 1]).catch(() => {});
      }),
    ).rejects.toMatchObject({ code: '25P02' });
    expect((await pglite.query('select * from t where id = $1', [21])).rows).toEqual([]);
  });

  it('rolls a transaction back on its rollback, and its end then commits nothing', async () => {
    await pglite.transaction(async (tx) => {
      await tx.query('insert into t values ($1, $2, $3)', [25, 'rolled back', 1]);
      await tx.rollback();
    });
    expect((await pglite.query('select * from t where id = $1', [25])).rows).toEqual([]);
  });

  it('commits with its last statement (queryAndCommit), and rejects one after it', async () => {
    await pglite.transaction(async (tx) => {
      await tx.query('insert into t values ($1, $2, $3)', [30, 'first', 1]);
      await tx.queryAndCommit(`insert into t values ($1, $2, $3)`, [31, 'last', 1]);
      // Committed already: a statement from outside does not wait.
      expect((await pglite.query('select count(*)::int8 as n from t where id in (30, 31)')).rows).toEqual([{ n: 2 }]);
      await expect(tx.query('insert into t values ($1, $2, $3)', [32, 'too late', 1])).rejects.toThrow(
        /came after it and was not run/,
      );
    });
    expect((await pglite.query('select id from t where id between 30 and 32 order by id')).rows).toEqual([
      { id: 30 },
      { id: 31 },
    ]);
  });

  it('dumps its data directory, and a new thread starts from the dump', async () => {
    const dump = await pglite.dumpDataDir('gzip');
    const lost: Error[] = [];
    const copy = await startEmbeddedDatabase({ loadDataDir: dump, onLost: (error) => lost.push(error) });
    try {
      expect((await copy.query('select note from t where id = $1', [1])).rows).toEqual([{ note: 'one' }]);
    } finally {
      await copy.close();
    }
    expect(copy.closed).toBe(true);
    await expect(copy.query('select 1')).rejects.toThrow(/closed/);
    // Closed, not lost.
    expect(lost).toEqual([]);
  });

  it('refuses to start when PGlite cannot open, with its reason, and the thread ends', async () => {
    const lost: Error[] = [];
    await expect(
      startEmbeddedDatabase({ loadDataDir: new Blob(['not a dump']), onLost: (error) => lost.push(error) }),
    ).rejects.toThrow(/PGlite failed to initialize/);
    expect(lost).toEqual([]);
  });

  it('does not keep a process alive that has nothing more to ask it', () => {
    const program = `
      import { startEmbeddedDatabase } from './server/database/open.ts';
      const pglite = await startEmbeddedDatabase();
      console.log(JSON.stringify((await pglite.query('select 1 as one')).rows));
    `;
    const started = Date.now();
    const output = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', program], {
      cwd: new URL('../..', import.meta.url),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(output.trim()).toBe('[{"one":1}]');
    expect(Date.now() - started).toBeLessThan(60_000);
  });
});

describe("Kysely's connections to the embedded database", () => {
  let database: Database;
  beforeAll(async () => {
    database = databaseFromPGlite(await startEmbeddedDatabase(await emptyDatabase()));
    await sql`create table counter (id int primary key, value int not null)`.execute(database.db);
    await sql`insert into counter values (1, 0)`.execute(database.db);
  });
  afterAll(async () => {
    await database.close();
  });

  it('runs transactions of concurrent callers one after another: no increment of a read-modify-write is lost', async () => {
    const increment = () =>
      database.db.transaction().execute(async (tx) => {
        const { rows } = await sql<{ value: number }>`select value from counter where id = 1`.execute(tx);
        await new Promise((resolve) => setTimeout(resolve, 1));
        await sql`update counter set value = ${(rows[0]?.value ?? 0) + 1} where id = 1`.execute(tx);
      });
    await Promise.all(Array.from({ length: 20 }, increment));
    const { rows } = await sql<{ value: number }>`select value from counter where id = 1`.execute(database.db);
    expect(rows).toEqual([{ value: 20 }]);
  });

  it("runs another caller's statement while a transaction has not sent its first one", async () => {
    // Kysely gives a dialect without several connections one lock for all its callers, held
    // for a whole transaction: this statement would wait for the transaction below to end.
    let go: () => void = () => {};
    const mayGo = new Promise<void>((resolve) => (go = resolve));
    const transaction = database.db.transaction().execute(async (tx) => {
      await mayGo;
      await sql`update counter set value = value + 1 where id = 1`.execute(tx);
    });
    const outside = sql<{ value: number }>`select value from counter where id = 1`.execute(database.db);
    expect(await stateAfterAWhile(outside)).toBe('settled');
    go();
    await transaction;
  });
});

describe('the embedded database with bounds (server/database/bounds.ts)', () => {
  let bounded: PGliteInstance;
  beforeAll(async () => {
    bounded = await startEmbeddedDatabase({
      ...(await emptyDatabase()),
      bounds: { statementMs: 5_000, lockMs: 5_000, acquireMs: 200, idleInTransactionMs: 800 },
    });
    await bounded.query('create table b (id int8 primary key)');
  });
  afterAll(async () => {
    await bounded.close();
  });

  it("rejects a call that waits past its bound with PostgreSQL's lock_not_available, running nothing, and serves the next", async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let begun: () => void = () => undefined;
    const holding = new Promise<void>((resolve) => (begun = resolve));
    const holder = bounded.transaction(async (tx) => {
      await tx.query('insert into b values (1)');
      begun();
      await held;
    });
    await holding;
    await expect(bounded.query('insert into b values (2)')).rejects.toMatchObject({ code: '55P03' });
    await expect(bounded.transaction((tx) => tx.query('insert into b values (3)'))).rejects.toMatchObject({
      code: '55P03',
    });
    release();
    await holder;
    expect((await bounded.query<{ id: number }>('select id from b order by id')).rows).toEqual([{ id: 1 }]);
  });

  it('rolls back a transaction left without a statement past its bound, releasing what it held, and rejects the rest of it', async () => {
    let goOn: () => void = () => undefined;
    const idle = new Promise<void>((resolve) => (goOn = resolve));
    const stalled = bounded.transaction(async (tx) => {
      await tx.query('insert into b values (10)');
      await idle;
      await tx.query('insert into b values (11)');
    });
    const caught = stalled.catch((error: unknown) => error);
    // Another caller gets the database once the stalled transaction is rolled back (its wait is
    // bounded by acquireMs: it asks after the roll back).
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await bounded.query<{ id: number }>('select id from b where id >= 10')).rows).toEqual([]);
    goOn();
    expect(await caught).toMatchObject({ code: '25P03' });
  });
});
