import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Compilable, Kysely, RawBuilder } from 'kysely';
import { ConditionNotMet, executeAtCommit, withAlongside } from '../../server/database/at-commit.js';
import { createOperator } from '../../server/store/operators.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../server/database/open.js';
import { DEFAULT_MAX_CONNECTIONS, openDatabase } from '../../server/database/open.js';
import { lastOfItsTransaction } from '../../server/database/last-statement.js';
import {
  IDEMPOTENCY_RETENTION_MS,
  findStoredResponse,
  purgeExpiredIdempotencyKeys,
  type StoreResponseInput,
} from '../../server/store/idempotency.js';
import { outcomeOf, storeResponse } from '../helpers/store-response.js';
import { startResponseHoldingProxy } from '../helpers/response-holding-proxy.js';
import { MigrationError, migrateToLatest, migrations } from '../../server/database/migrate.js';
import { Migrator } from 'kysely/migration';
import { addCard, addDepartment, addHolder, addOrganization, addRecords, PLAIN_LIMITS } from '../helpers/ledger.js';
import { findCardWithUsage } from '../../server/store/cards.js';
import { cairoPeriods } from '../../server/domain/available-balance.js';
import {
  addClientKey,
  authFailureCount,
  clearAuthFailures,
  countOrganizations,
  createClient,
  createOrganization,
  deactivateClientKey,
  findClient,
  getAuthFailureWindow,
  getBalance,
  getOrganization,
  listActiveClientKeys,
  recordAuthFailure,
} from '../../server/store/organizations.js';
import type { DB, TransferStatus } from '../../server/database/schema.js';
import { getOrCreateSecret } from '../../server/store/secrets.js';
import { findTransaction, listTransactions, positionOfRecord } from '../../server/store/transactions.js';
import { CATEGORIES, categoryLabel } from '../../server/domain/categories.js';
import {
  cancelTransfer,
  claimDueSettlements,
  executeTransfer,
  getTransfer,
  insertTransfer,
  listTransfers,
} from '../../server/store/transfers.js';
import type { NewTransfer, TransferRecord } from '../../server/store/transfers.js';
import { createTestDatabaseOf, databaseKinds } from '../../scripts/proof/database.js';
import type { TestDatabase } from '../../scripts/proof/database.js';

// One store suite, run on every database kind (kysely's habit): PGlite always, PostgreSQL
// when DATABASE_URL is set. Each kind gets one database; every test makes its own
// organization, so tests never see each other's rows.

const T0 = 1_750_000_000_000;

/** `statement` as the last of the transaction it runs in (server/database/last-statement.ts). */
function committing(statement: RawBuilder<unknown>): { execute: (tx: Kysely<DB>) => Promise<unknown> } {
  return { execute: (tx) => tx.executeQuery(lastOfItsTransaction(statement.compile(tx))) };
}
const MINUTE = 60_000;
/** PostgreSQL's ReadyForQuery message when a transaction is open: 'Z', its length (5), 'T'. */
const READY_IN_TRANSACTION = 'Z\u0000\u0000\u0000\u0005T';

/** An organization with a Sales department, its holder Mona Adel with a card, and one ledger record at T0. */
async function addSalesRecord(db: Kysely<DB>): Promise<{
  organizationId: string;
  departmentId: string;
  holderId: string;
  cardId: string;
  recordId: string | undefined;
}> {
  const organizationId = await addOrganization(db, T0);
  const departmentId = await addDepartment(db, organizationId, 'Sales');
  const holderId = await addHolder(db, organizationId, { departmentId, fullName: 'Mona Adel', externalIds: ['E1'] });
  const cardId = await addCard(db, organizationId, holderId);
  const [recordId] = await addRecords(db, organizationId, [
    { personId: holderId, cardId, authorizationDate: T0, amountCents: 12_345 },
  ]);
  return { organizationId, departmentId, holderId, cardId, recordId };
}

/** A ledger row's stored record, as the driver parses it. */
async function storedRecord(db: Kysely<DB>, id: string): Promise<unknown> {
  return (await sql<{ record: unknown }>`select record from transactions where id = ${id}`.execute(db)).rows[0]?.record;
}

function newId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}

async function seedOrganization(
  db: Kysely<DB>,
  balanceCents = 1_000_000,
): Promise<{ organizationId: string; clientId: string }> {
  const organizationId = newId('org');
  const clientId = newId('cli');
  await createOrganization(db, { id: organizationId, name: 'Nile Traders', balanceCents, now: T0 });
  await createClient(db, {
    id: clientId,
    organizationId,
    secretHash: 'scrypt$test',
    scopes: ['cards:read', 'transfers:read'],
    now: T0,
  });
  return { organizationId, clientId };
}

function newTransfer(
  owner: { organizationId: string; clientId: string },
  overrides: Partial<NewTransfer> = {},
): NewTransfer {
  return {
    id: newId('trf'),
    organizationId: owner.organizationId,
    clientId: owner.clientId,
    idempotencyKey: newId('idem'),
    amountCents: 1_000,
    currency: 'EGP',
    category: 'OTHER',
    submissionDate: T0,
    bankId: 'nbe',
    accountNumber: '1234567890',
    accountName: 'Amal Hassan',
    ...overrides,
  };
}

async function walkTransfers(
  db: Kysely<DB>,
  organizationId: string,
  filters: { status?: TransferStatus; minAmountCents?: number; maxAmountCents?: number },
  limit: number,
  between: () => Promise<void> = async () => {},
): Promise<TransferRecord[][]> {
  const pages: TransferRecord[][] = [];
  let after: { sort: number; id: string } | undefined;
  for (;;) {
    const rows = await listTransfers(db, organizationId, { ...filters, after, limit });
    const page = rows.slice(0, limit);
    pages.push(page);
    const last = page.at(-1);
    if (rows.length <= limit || last === undefined) return pages;
    after = { sort: last.submissionDate, id: last.id };
    await between();
  }
}

describe.each(databaseKinds())('store on %s', (kind) => {
  let database: TestDatabase;
  let db: Kysely<DB>;

  beforeAll(async () => {
    database = await createTestDatabaseOf(kind);
    db = database.db;
  });
  afterAll(async () => {
    await database?.close();
  });

  describe('migrations', () => {
    /** The migrations folded into 001-baseline, as a database migrated before the fold records them. */
    const FOLDED = [
      '001-initial',
      '002-ledger-indexes',
      '003-token-revocation',
      '004-idempotency-in-one-transaction',
      '005-dashboard-operators',
      '006-pending-first-index',
      '007-idempotency-key-taken',
      '008-condition-holds',
      '009-organization-versions',
      '010-drop-organization-versions',
      '011-ledger-records',
      '012-ledger-answers',
      '013-card-records',
      '014-money-domains',
    ];

    /** The rows of a database's migration table, by name. */
    const recorded = async (of: Kysely<DB>): Promise<{ name: string; timestamp: string }[]> =>
      (
        await sql<{
          name: string;
          timestamp: string;
        }>`select name, timestamp from kysely_migration order by name`.execute(of)
      ).rows;

    /** Makes a database's migration table record `names` instead of what it holds, one minute apart from T0. */
    const recording = async (of: Kysely<DB>, names: readonly string[]): Promise<string[]> => {
      const times = names.map((_, i) => new Date(T0 + i * MINUTE).toISOString());
      await sql`delete from kysely_migration`.execute(of);
      await sql`insert into kysely_migration (name, timestamp) values ${sql.join(
        names.map((name, i) => sql`(${name}, ${times[i]})`),
      )}`.execute(of);
      return times;
    };

    it('apply every migration once; a second run applies nothing', async () => {
      const empty = await createTestDatabaseOf(kind, { migrated: false });
      try {
        expect(await migrateToLatest(empty.db)).toEqual({ applied: Object.keys(migrations).sort() });
        expect(await migrateToLatest(empty.db)).toEqual({ applied: [] });
      } finally {
        await empty.close();
      }
    });

    it('leave an up-to-date database alone', async () => {
      expect(await migrateToLatest(db)).toEqual({ applied: [] });
    });

    it("the baseline's down leaves nothing of it behind, and its up builds the schema again", async () => {
      const fresh = await createTestDatabaseOf(kind);
      try {
        // Relations (tables, indexes), functions and types (domains, rows) of the schema, but Kysely's own.
        const left = async (): Promise<string[]> =>
          (
            await sql<{ name: string }>`
              select 'relation ' || relname as name from pg_class
                where relnamespace = 'public'::regnamespace and relname !~ '^kysely_'
              union all select 'function ' || proname from pg_proc where pronamespace = 'public'::regnamespace
              union all select 'type ' || typname from pg_type
                where typnamespace = 'public'::regnamespace and typname !~ '^_?kysely_'
              order by 1`.execute(fresh.db)
          ).rows.map((row) => row.name);
        expect(await left()).toEqual(
          expect.arrayContaining(['relation transactions', 'function condition_holds', 'type transfer_status']),
        );
        const migrator = new Migrator({ db: fresh.db, provider: { getMigrations: async () => ({ ...migrations }) } });
        const { error, results } = await migrator.migrateDown();
        expect(error).toBeUndefined();
        expect(results?.map((result) => [result.migrationName, result.status])).toEqual([['001-baseline', 'Success']]);
        expect(await left()).toEqual([]);

        expect(await migrateToLatest(fresh.db)).toEqual({ applied: ['001-baseline'] });
        const { organizationId, recordId } = await addSalesRecord(fresh.db);
        expect(await findTransaction(fresh.db, organizationId, recordId ?? '')).toContain('"categoryLabel"');
      } finally {
        await fresh.close();
      }
    });

    it('takes a database migrated by the folded migrations as the baseline', async () => {
      const older = await createTestDatabaseOf(kind);
      try {
        const times = await recording(older.db, FOLDED);
        expect(await migrateToLatest(older.db)).toEqual({ applied: [] });
        expect(await recorded(older.db)).toEqual([{ name: '001-baseline', timestamp: times.at(-1) }]);
        expect(await migrateToLatest(older.db)).toEqual({ applied: [] });
      } finally {
        await older.close();
      }
    });

    it('rejects a database migrated by only some of the folded migrations, and leaves it as it was', async () => {
      const older = await createTestDatabaseOf(kind);
      try {
        const times = await recording(older.db, FOLDED.slice(0, 13));
        const rejected = migrateToLatest(older.db);
        await expect(rejected).rejects.toBeInstanceOf(MigrationError);
        await expect(rejected).rejects.toThrow(
          /migrated by 13 of the 14 migrations that were folded into 001-baseline before the first release.*Create it again: delete the embedded database's directory \(\.\/\.data\/pglite\).*or drop and create the PostgreSQL database/,
        );
        expect(await recorded(older.db)).toEqual(FOLDED.slice(0, 13).map((name, i) => ({ name, timestamp: times[i] })));
      } finally {
        await older.close();
      }
    });

    it.runIf(kind === 'postgres')(
      'takes a database migrated by the folded migrations as the baseline once when two instances start at once',
      async () => {
        const older = await createTestDatabaseOf(kind);
        const other = await openDatabase({ url: older.url ?? '' });
        try {
          const times = await recording(older.db, FOLDED);
          const results = await Promise.all([migrateToLatest(older.db), migrateToLatest(other.db)]);
          expect(results).toEqual([{ applied: [] }, { applied: [] }]);
          expect(await recorded(older.db)).toEqual([{ name: '001-baseline', timestamp: times.at(-1) }]);
        } finally {
          await other.close();
          await older.close();
        }
      },
    );

    // transactions.record is the Transaction the API shows, written by the database whoever
    // writes, and kept in step with every change a page shows, whichever statement makes it.
    it('keeps each ledger record the Transaction the API shows, in step with its row, holder and department', async () => {
      const { organizationId, departmentId, holderId, recordId: id } = await addSalesRecord(db);
      await sql`update transactions set tags = '[{"id":"tag_1","name":"Trip"}]', note = 'Lunch' where id = ${id ?? ''}`.execute(
        db,
      );
      const shown = async (): Promise<unknown> =>
        JSON.parse((await findTransaction(db, organizationId, id ?? '')) ?? 'null') as unknown;
      const record = {
        id,
        authorizationDate: T0,
        merchant: 'Talabat',
        person: {
          id: holderId,
          fullName: 'Mona Adel',
          userExternalIdOne: 'E1',
          department: { id: departmentId, name: 'Sales' },
        },
        department: 'Sales',
        method: 'CARD',
        category: 'FOOD_BEVERAGE',
        categoryLabel: 'Food & Beverage',
        reviewStatus: null,
        status: 'SUCCEEDED',
        currency: 'EGP',
        amountCents: 12_345,
        tags: [{ id: 'tag_1', name: 'Trip' }],
        note: 'Lunch',
        refund: false,
        last4: '4242',
        cleared: true,
      };
      // The texts the schema leaves out when unset are absent, not null; a page sends the row's record.
      expect(await shown()).toStrictEqual(record);
      expect(await storedRecord(db, id ?? '')).toStrictEqual(record);
      const [first] = await listTransactions(db, { organizationId, filters: {}, after: undefined, take: 10 });
      expect(JSON.parse(first ?? 'null')).toStrictEqual(record);
      expect(positionOfRecord(first ?? '')).toEqual({ sort: T0, id });

      const [after] = await addRecords(db, organizationId, [{ personId: holderId, authorizationDate: T0 + MINUTE }]);
      const page = async (): Promise<unknown[]> =>
        (await listTransactions(db, { organizationId, filters: {}, after: undefined, take: 10 })).map(
          (text) => JSON.parse(text) as unknown,
        );
      expect(await page()).toMatchObject([{ id: after, person: { fullName: 'Mona Adel' } }, { id }]);

      await sql`update transactions set review_status = 'UNDER_REVIEW', tags = '[{"id":"tag_2","name":"Visit"}]' where id = ${id ?? ''}`.execute(
        db,
      );
      await sql`update departments set name = 'Field sales' where id = ${departmentId}`.execute(db);
      await sql`update card_holders set full_name = 'Mona Adel Fahmy' where id = ${holderId}`.execute(db);
      const renamed = {
        ...record.person,
        fullName: 'Mona Adel Fahmy',
        department: { id: departmentId, name: 'Field sales' },
      };
      expect(await page()).toMatchObject([
        { id: after, person: renamed, department: 'Field sales' },
        {
          id,
          person: renamed,
          department: 'Field sales',
          reviewStatus: 'UNDER_REVIEW',
          tags: [{ id: 'tag_2', name: 'Visit' }],
        },
      ]);
      await sql`update card_holders set department_id = null where id = ${holderId}`.execute(db);
      await sql`delete from departments where id = ${departmentId}`.execute(db);
      expect(await page()).toMatchObject([
        { person: { department: null }, department: null },
        { person: { department: null }, department: null },
      ]);
      expect(await storedRecord(db, id ?? '')).toStrictEqual(await shown());
    });

    it("gives every category the domain's label (a label changed there needs a migration)", async () => {
      const { rows: labels } = await sql<{ category: string; label: string | null }>`
        select c as category, category_label(c) as label from unnest(${[...CATEGORIES]}::text[]) as c`.execute(db);
      expect(labels).toEqual(CATEGORIES.map((category) => ({ category, label: categoryLabel(category) })));
    });

    // cards.record is the card the API shows but for its balance, and card_holders.outstanding_cash_cents
    // the holder's outstanding cash: both kept in step by the database.
    it('keeps each card its record and each holder its outstanding cash, in step', async () => {
      const { organizationId, departmentId, holderId, cardId, recordId } = await addSalesRecord(db);
      const cash = (amountCents: number, reviewStatus: 'UNDER_REVIEW' | 'BALANCE_SETTLED'): Promise<string[]> =>
        addRecords(db, organizationId, [
          { personId: holderId, authorizationDate: T0, method: 'CASH', reviewStatus, amountCents },
        ]);
      const [withdrawn] = await cash(500, 'UNDER_REVIEW');
      await cash(70, 'BALANCE_SETTLED');
      const read = async () => findCardWithUsage(db, organizationId, cardId, cairoPeriods(T0));
      const holder = {
        id: holderId,
        fullName: 'Mona Adel',
        userExternalIdOne: 'E1',
        department: { id: departmentId, name: 'Sales' },
      };
      expect(await read()).toStrictEqual({
        card: { id: cardId, nickname: 'Test card', last4: '4242', cardHolder: holder, limits: PLAIN_LIMITS },
        createdAt: expect.any(Number) as number,
        figures: {
          usage: { dayCardAndAtm: 12_345, monthCardAndAtm: 12_345, monthAtm: 0 },
          approval: { spent: 12_345, pending: 0, outstandingCash: 500 },
        },
      });
      const outstanding = async (): Promise<number | undefined> => (await read())?.figures.approval.outstandingCash;

      // The holder's cash moving leaves the ledger's records as they are (the row's version stays).
      const version = async (): Promise<string | undefined> =>
        (
          await sql<{
            version: string;
          }>`select xmin::text as version from transactions where id = ${recordId ?? ''}`.execute(db)
        ).rows[0]?.version;
      const before = await version();
      const [added] = await cash(25, 'UNDER_REVIEW');
      expect(await version()).toBe(before);
      expect(await outstanding()).toBe(525);
      await sql`update transactions set review_status = 'BALANCE_SETTLED' where id = ${added ?? ''}`.execute(db);
      expect(await outstanding()).toBe(500);
      await sql`delete from transactions where id = ${withdrawn ?? ''}`.execute(db);
      expect(await outstanding()).toBe(0);
      expect(await version()).toBe(before);

      // What a card shows of its holder, department and limits reaches it, and the ledger's records.
      await sql`update card_holders set full_name = 'Mona Adel Fahmy' where id = ${holderId}`.execute(db);
      expect((await read())?.card.cardHolder.fullName).toBe('Mona Adel Fahmy');
      expect(await storedRecord(db, recordId ?? '')).toMatchObject({ person: { fullName: 'Mona Adel Fahmy' } });
      await sql`update departments set name = 'Field sales' where id = ${departmentId}`.execute(db);
      expect((await read())?.card.cardHolder.department).toEqual({ id: departmentId, name: 'Field sales' });
      await sql`update card_holders set department_id = null where id = ${holderId}`.execute(db);
      await sql`delete from departments where id = ${departmentId}`.execute(db);
      expect((await read())?.card.cardHolder.department).toBeNull();
      // The largest limits SetCardLimitsRequest allows.
      const largest = { daily: 100_000_000, monthly: 300_000_000, atm: 300_000_000, approvalBased: 99_999_999_999 };
      await db
        .updateTable('cards')
        .set({
          daily_limit: largest.daily,
          monthly_limit: largest.monthly,
          atm_limit: largest.atm,
          approval_based_limit: largest.approvalBased,
        })
        .where('id', '=', cardId)
        .execute();
      expect((await read())?.card.limits).toEqual(largest);
    });

    // Every money rule rejects what it should with check_violation (23514), as a domain or a check
    // constraint, and a transfer's client is one of its organization (23503); the largest values
    // each allows are stored and read back as they are.
    it("rejects what every money rule forbids, and a transfer's client is one of its organization", async () => {
      const owner = await seedOrganization(db, 5_000);
      const other = await seedOrganization(db, 5_000);
      const kept = newTransfer(owner, { amountCents: 1_234 });
      await insertTransfer(db, kept);
      const rejected = async (statement: Promise<unknown>, code: string): Promise<void> => {
        await expect(statement).rejects.toMatchObject({ code });
      };
      const byId = (id: string) => db.updateTable('transfers').where('id', '=', id);
      await rejected(insertTransfer(db, newTransfer(owner, { amountCents: 0 })), '23514');
      await rejected(insertTransfer(db, newTransfer(owner, { amountCents: 100_000_000_000 })), '23514');
      await rejected(insertTransfer(db, newTransfer(owner, { currency: 'USD' as 'EGP' })), '23514');
      await rejected(
        byId(kept.id)
          .set({ status: 'LOST' as TransferStatus })
          .execute(),
        '23514',
      );
      await rejected(byId(kept.id).set({ status: 'REJECTED', rejection_reason: '' }).execute(), '23514');
      await rejected(
        byId(kept.id)
          .set({ status: 'REJECTED', rejection_reason: 'x'.repeat(501) })
          .execute(),
        '23514',
      );
      await rejected(byId(kept.id).set({ status: 'REJECTED' }).execute(), '23514');
      await rejected(byId(kept.id).set({ rejection_reason: 'Not this one' }).execute(), '23514');
      await rejected(byId(kept.id).set({ status: 'PROCESSING' }).execute(), '23514');
      await rejected(
        db
          .updateTable('organizations')
          .set((eb) => ({ balance_cents: eb('balance_cents', '-', 5_001) }))
          .where('id', '=', owner.organizationId)
          .execute(),
        '23514',
      );
      // Another organization's client, and an organization or client that does not exist.
      await rejected(
        insertTransfer(db, newTransfer({ organizationId: owner.organizationId, clientId: other.clientId })),
        '23503',
      );
      await rejected(
        insertTransfer(db, newTransfer({ organizationId: newId('org'), clientId: owner.clientId })),
        '23503',
      );
      await rejected(
        insertTransfer(db, newTransfer({ organizationId: owner.organizationId, clientId: newId('cli') })),
        '23503',
      );
      // A ledger record's amount and date outside what the Transaction schema shows.
      const holderId = await addHolder(db, owner.organizationId);
      await rejected(addRecords(db, owner.organizationId, [{ personId: holderId, authorizationDate: -1 }]), '23514');
      await rejected(
        addRecords(db, owner.organizationId, [{ personId: holderId, authorizationDate: T0, amountCents: 0 }]),
        '23514',
      );

      // The largest of each.
      await byId(kept.id)
        .set({ status: 'REJECTED', rejection_reason: 'x'.repeat(500) })
        .execute();
      expect(await getTransfer(db, owner.organizationId, kept.id)).toMatchObject({
        status: 'REJECTED',
        amountCents: 1_234,
      });
      const { rows } = await sql<{
        reason: string;
      }>`select rejection_reason as reason from transfers where id = ${kept.id}`.execute(db);
      expect(rows).toEqual([{ reason: 'x'.repeat(500) }]);
      const largest = newTransfer(owner, { amountCents: 99_999_999_999 });
      await insertTransfer(db, largest);
      expect(await getTransfer(db, owner.organizationId, largest.id)).toMatchObject({ amountCents: 99_999_999_999 });
      const [recordId] = await addRecords(db, owner.organizationId, [
        { personId: holderId, authorizationDate: Number.MAX_SAFE_INTEGER, amountCents: 99_999_999_999 },
      ]);
      expect(JSON.parse((await findTransaction(db, owner.organizationId, recordId ?? '')) ?? 'null')).toMatchObject({
        authorizationDate: Number.MAX_SAFE_INTEGER,
        amountCents: 99_999_999_999,
      });
    });
  });

  describe('int8 and constraints', () => {
    it('round-trips the largest amount and sums as numbers', async () => {
      const owner = await seedOrganization(db, 99_999_999_999);
      expect(await getBalance(db, owner.organizationId)).toBe(99_999_999_999);
      await insertTransfer(db, newTransfer(owner, { amountCents: 99_999_999_999 }));
      await insertTransfer(db, newTransfer(owner, { amountCents: 99_999_999_999 }));
      const row = await db
        .selectFrom('transfers')
        .select((eb) => [
          sql<number>`sum(amount_cents)::bigint`.as('total'),
          eb.fn.countAll<number>().as('count'),
          eb.fn.max('amount_cents').as('largest'),
        ])
        .where('organization_id', '=', owner.organizationId)
        .executeTakeFirstOrThrow();
      expect(row).toEqual({ total: 199_999_999_998, count: 2, largest: 99_999_999_999 });
      expect(typeof row.total).toBe('number');
    });

    it('rejects an int8 that is not a safe integer, and the connection stays usable', async () => {
      await expect(sql`select 9007199254740993::bigint as big`.execute(db)).rejects.toThrow(/not a safe integer/);
      const { rows } = await sql<{ one: number }>`select 1::bigint as one`.execute(db);
      expect(rows).toEqual([{ one: 1 }]);
    });

    it('rejects a negative balance and an out-of-range amount', async () => {
      await expect(
        createOrganization(db, { id: newId('org'), name: 'Overdrawn', balanceCents: -1, now: T0 }),
      ).rejects.toThrow(/check constraint/);
      const owner = await seedOrganization(db, 10);
      await expect(
        db.updateTable('organizations').set({ balance_cents: -5 }).where('id', '=', owner.organizationId).execute(),
      ).rejects.toThrow(/check constraint/);
      expect(await getBalance(db, owner.organizationId)).toBe(10);
      await expect(insertTransfer(db, newTransfer(owner, { amountCents: 0 }))).rejects.toThrow(/check constraint/);
      await expect(insertTransfer(db, newTransfer(owner, { amountCents: 100_000_000_000 }))).rejects.toThrow(
        /check constraint/,
      );
    });
  });

  describe('organizations and clients', () => {
    it('stores an organization, its client and its keys', async () => {
      const owner = await seedOrganization(db, 5_000);
      expect(await getOrganization(db, owner.organizationId)).toEqual({
        id: owner.organizationId,
        name: 'Nile Traders',
        balanceCents: 5_000,
        createdAt: T0,
      });
      expect(await getOrganization(db, newId('org'))).toBeUndefined();
      expect(await countOrganizations(db)).toBeGreaterThan(0);
      expect(await findClient(db, owner.clientId)).toEqual({
        id: owner.clientId,
        organizationId: owner.organizationId,
        secretHash: 'scrypt$test',
        scopes: ['cards:read', 'transfers:read'],
      });
      expect(await findClient(db, newId('cli'))).toBeUndefined();

      const first = newId('key');
      const second = newId('key');
      await addClientKey(db, { id: first, clientId: owner.clientId, publicKeyPem: 'PEM-1', now: T0 });
      await addClientKey(db, { id: second, clientId: owner.clientId, publicKeyPem: 'PEM-2', now: T0 + 1 });
      expect(await listActiveClientKeys(db, owner.clientId)).toEqual([
        { id: first, publicKeyPem: 'PEM-1' },
        { id: second, publicKeyPem: 'PEM-2' },
      ]);
      expect(await deactivateClientKey(db, { clientId: owner.clientId, keyId: first, now: T0 + 2 })).toBe(true);
      expect(await deactivateClientKey(db, { clientId: owner.clientId, keyId: first, now: T0 + 3 })).toBe(false);
      expect(await listActiveClientKeys(db, owner.clientId)).toEqual([{ id: second, publicKeyPem: 'PEM-2' }]);
    });

    it('counts failed authentications per client in a window', async () => {
      const clientId = newId('cli');
      for (let i = 1; i <= 3; i += 1) {
        expect(await recordAuthFailure(db, clientId, T0 + i, MINUTE)).toBe(i);
      }
      expect(await authFailureCount(db, clientId, T0 + 10, MINUTE)).toBe(3);
      expect(await getAuthFailureWindow(db, clientId, T0 + 10, MINUTE)).toEqual({
        failures: 3,
        windowEndsAt: T0 + 1 + MINUTE,
      });
      // The window is over: the count starts again.
      expect(await authFailureCount(db, clientId, T0 + 1 + MINUTE, MINUTE)).toBe(0);
      expect(await recordAuthFailure(db, clientId, T0 + 2 * MINUTE, MINUTE)).toBe(1);
      await clearAuthFailures(db, clientId);
      expect(await authFailureCount(db, clientId, T0 + 2 * MINUTE, MINUTE)).toBe(0);
    });

    it('counts concurrent failures without losing any', async () => {
      const clientId = newId('cli');
      const counts = await Promise.all(Array.from({ length: 12 }, () => recordAuthFailure(db, clientId, T0, MINUTE)));
      expect([...counts].sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    });
  });

  describe('service secrets', () => {
    it('agree on one value when created concurrently', async () => {
      const name = newId('secret');
      const values = await Promise.all(
        Array.from({ length: 5 }, (_, i) => getOrCreateSecret(db, name, () => `value-${i}`, T0)),
      );
      expect(new Set(values).size).toBe(1);
      let called = false;
      const again = await getOrCreateSecret(db, name, () => ((called = true), 'other'), T0);
      expect(again).toBe(values[0]);
      expect(called).toBe(false);
    });
  });

  describe("a transaction's last statement (lastOfItsTransaction)", () => {
    // VACUUM refuses to run inside a transaction block: it runs only in a transaction of its own.
    const vacuum = committing(sql`vacuum organizations`);

    it('as the only statement runs by itself, committed when it returns or not at all; after others, inside their transaction', async () => {
      const owner = await seedOrganization(db);
      const before = (await getBalance(db, owner.organizationId)) ?? 0;
      const set = (cents: number) =>
        sql`update organizations set balance_cents = ${cents} where id = ${owner.organizationId}`;
      await db.transaction().execute((tx) => vacuum.execute(tx));
      await expect(
        db.transaction().execute(async (tx) => {
          await set(before + 1).execute(tx);
          await vacuum.execute(tx);
        }),
      ).rejects.toMatchObject({ code: '25001' });
      expect(await getBalance(db, owner.organizationId)).toBe(before);

      await db.transaction().execute((tx) => committing(set(before + 2)).execute(tx));
      expect(await getBalance(db, owner.organizationId)).toBe(before + 2);
      // It fails (a check constraint): nothing of it is kept, and the next transaction runs as usual.
      await expect(db.transaction().execute((tx) => committing(set(-1)).execute(tx))).rejects.toMatchObject({
        code: '23514',
      });
      expect(await getBalance(db, owner.organizationId)).toBe(before + 2);
      // A statement after it is rejected, not run outside a transaction; alone or after others.
      for (const first of [false, true]) {
        await expect(
          db.transaction().execute(async (tx) => {
            if (first) await set(before + 3).execute(tx);
            await committing(set(before + 4)).execute(tx);
            await set(before + 5).execute(tx);
          }),
        ).rejects.toThrow('The transaction was committed by its last statement');
        expect(await getBalance(db, owner.organizationId)).toBe(before + 4);
        await set(before + 2).execute(db);
      }
      // A transaction that runs nothing, or fails before its first statement, leaves the database as it was.
      await db.transaction().execute(async () => {});
      await expect(db.transaction().execute(async () => Promise.reject(new Error('before anything')))).rejects.toThrow(
        'before anything',
      );
      await db.transaction().execute((tx) => set(before + 6).execute(tx));
      expect(await getBalance(db, owner.organizationId)).toBe(before + 6);
    });

    it('carries a statement alongside (withAlongside): both commit, or neither when either fails', async () => {
      // Each changes rows of its own: PostgreSQL keeps only one of two changes to a row in one statement.
      const owner = await seedOrganization(db);
      const other = await seedOrganization(db);
      const add = (cents: number) =>
        sql`update organizations set balance_cents = balance_cents + ${cents} where id = ${owner.organizationId}`;
      const set = (cents: number) =>
        sql`update organizations set balance_cents = ${cents} where id = ${other.organizationId}`;
      const balances = async () => [
        await getBalance(db, owner.organizationId),
        await getBalance(db, other.organizationId),
      ];
      const run = (deferred: ReturnType<typeof sql>, alongside: ReturnType<typeof sql>) =>
        db
          .transaction()
          .execute((tx) => executeAtCommit(tx, withAlongside(deferred.compile(tx), alongside.compile(tx))));
      const [before] = await balances();
      // A deferred statement with no WITH, and one with a WITH (RECURSIVE, too) of its own, whose parameters come first.
      await run(add(1), set(1));
      expect(await balances()).toEqual([(before ?? 0) + 1, 1]);
      await run(sql`with added as (${add(2)} returning id) select ${'x'} as x from added`, set(2));
      expect(await balances()).toEqual([(before ?? 0) + 3, 2]);
      await run(
        sql`WITH RECURSIVE added as (${add(3)} returning id) select count(*) from added where ${4} > 0`,
        set(3),
      );
      expect(await balances()).toEqual([(before ?? 0) + 6, 3]);
      // Either fails: neither is kept.
      await expect(run(add(-1_000_000_000), set(4))).rejects.toMatchObject({ code: '23514' });
      await expect(run(add(4), set(-1))).rejects.toMatchObject({ code: '23514' });
      expect(await balances()).toEqual([(before ?? 0) + 6, 3]);
    });
  });

  describe('idempotency keys', () => {
    const key = (): string => newId('key').slice(0, 36);
    const store = (input: Omit<StoreResponseInput, 'status' | 'body'> & Partial<StoreResponseInput>): Promise<string> =>
      outcomeOf(db.transaction().execute((tx) => storeResponse(tx, { status: 200, body: '{}', ...input })));

    it('stores a key with its response; the same request finds it as a replay, another as a mismatch', async () => {
      const { clientId } = await seedOrganization(db);
      const k = key();
      expect(await findStoredResponse(db, { clientId, key: k, fingerprint: 'A', nowMs: T0 })).toBeUndefined();
      // Key order as sent, which jsonb would not keep.
      const body = JSON.stringify({ id: 'trf_1', amountCents: 99_999_999_999, note: null, tags: ['a'], a: 1 });
      expect(await store({ clientId, key: k, fingerprint: 'A', nowMs: T0, body })).toBe('stored');
      expect(await findStoredResponse(db, { clientId, key: k, fingerprint: 'A', nowMs: T0 + 1 })).toEqual({
        kind: 'replay',
        status: 200,
        body,
      });
      expect(await findStoredResponse(db, { clientId, key: k, fingerprint: 'B', nowMs: T0 + 1 })).toEqual({
        kind: 'mismatch',
      });
      // A stored response is replayed however long ago it was stored, within the retention.
      expect(
        await findStoredResponse(db, { clientId, key: k, fingerprint: 'A', nowMs: T0 + IDEMPOTENCY_RETENTION_MS - 1 }),
      ).toMatchObject({
        kind: 'replay',
        status: 200,
      });
      // A second response for the key is not stored, whatever its request.
      expect(await store({ clientId, key: k, fingerprint: 'A', nowMs: T0 + 2, body: '{"second":true}' })).toBe(
        'exists',
      );
      expect(await store({ clientId, key: k, fingerprint: 'B', nowMs: T0 + 2 })).toBe('exists');
      // Nor in the retention's last millisecond (IDEMPOTENCY_RETENTION_MS, 24 hours).
      expect(await store({ clientId, key: k, fingerprint: 'B', nowMs: T0 + IDEMPOTENCY_RETENTION_MS - 1 })).toBe(
        'exists',
      );
      expect(await findStoredResponse(db, { clientId, key: k, fingerprint: 'A', nowMs: T0 + 3 })).toEqual({
        kind: 'replay',
        status: 200,
        body,
      });
    });

    it('commits the key only with the transaction that stored it: a rollback leaves the key free', async () => {
      const owner = await seedOrganization(db);
      const k = key();
      const transfer = newTransfer(owner, { idempotencyKey: k, amountCents: 99_999_999_999, memo: 'rent' });
      await expect(
        db.transaction().execute(async (tx) => {
          await insertTransfer(tx, transfer);
          expect(
            await outcomeOf(
              storeResponse(tx, {
                clientId: owner.clientId,
                key: k,
                fingerprint: 'A',
                nowMs: T0,
                status: 200,
                body: '{}',
              }),
            ),
          ).toBe('stored');
          throw new Error('the request died before its commit');
        }),
      ).rejects.toThrow('the request died before its commit');
      expect(await getTransfer(db, owner.organizationId, transfer.id)).toBeUndefined();
      expect(
        await findStoredResponse(db, { clientId: owner.clientId, key: k, fingerprint: 'A', nowMs: T0 }),
      ).toBeUndefined();

      const kept = await db.transaction().execute(async (tx) => {
        const row = await insertTransfer(tx, transfer);
        await storeResponse(tx, {
          clientId: owner.clientId,
          key: k,
          fingerprint: 'A',
          nowMs: T0,
          status: 200,
          body: JSON.stringify(row),
        });
        return row;
      });
      expect(await getTransfer(db, owner.organizationId, transfer.id)).toEqual(kept);
    });

    it('keeps key spaces of two clients apart', async () => {
      const a = await seedOrganization(db);
      const b = await seedOrganization(db);
      const k = key();
      expect(await store({ clientId: a.clientId, key: k, fingerprint: 'A', nowMs: T0 })).toBe('stored');
      expect(await store({ clientId: b.clientId, key: k, fingerprint: 'Z', nowMs: T0 })).toBe('stored');
      expect(await findStoredResponse(db, { clientId: b.clientId, key: k, fingerprint: 'Z', nowMs: T0 })).toMatchObject(
        {
          kind: 'replay',
        },
      );
    });

    it('stores a 4xx answer verbatim', async () => {
      const { clientId } = await seedOrganization(db);
      const k = key();
      const body = '{"message":"Only a PENDING transfer can be executed.","type":"InvalidRequest"}';
      await store({ clientId, key: k, fingerprint: 'A', nowMs: T0, status: 400, body });
      expect(await findStoredResponse(db, { clientId, key: k, fingerprint: 'A', nowMs: T0 + 1 })).toEqual({
        kind: 'replay',
        status: 400,
        body,
      });
    });

    it('forgets a key after the retention, even with another fingerprint', async () => {
      const { clientId } = await seedOrganization(db);
      const k = key();
      await store({ clientId, key: k, fingerprint: 'A', nowMs: T0, body: '{"n":1}' });
      const later = T0 + IDEMPOTENCY_RETENTION_MS;
      expect(await findStoredResponse(db, { clientId, key: k, fingerprint: 'B', nowMs: later })).toBeUndefined();
      expect(await store({ clientId, key: k, fingerprint: 'B', nowMs: later, body: '{"n":2}' })).toBe('stored');
      expect(await findStoredResponse(db, { clientId, key: k, fingerprint: 'B', nowMs: later + 1 })).toEqual({
        kind: 'replay',
        status: 200,
        body: '{"n":2}',
      });
    });

    it('purges expired keys', async () => {
      const { clientId } = await seedOrganization(db);
      const old = key();
      const fresh = key();
      await store({ clientId, key: old, fingerprint: 'A', nowMs: T0 - IDEMPOTENCY_RETENTION_MS });
      await store({ clientId, key: fresh, fingerprint: 'A', nowMs: T0 });
      expect(await purgeExpiredIdempotencyKeys(db, T0, IDEMPOTENCY_RETENTION_MS)).toBeGreaterThanOrEqual(1);
      const left = await db.selectFrom('idempotency_keys').select('key').where('client_id', '=', clientId).execute();
      expect(left.map((row) => row.key)).toEqual([fresh]);
    });
  });

  describe('transfers', () => {
    it('inserts and reads a transfer only for its own organization', async () => {
      const owner = await seedOrganization(db);
      const other = await seedOrganization(db);
      const stored = await insertTransfer(db, newTransfer(owner, { memo: 'Invoice 7', amountCents: 12_345 }));
      expect(stored).toMatchObject({
        status: 'PENDING',
        amountCents: 12_345,
        memo: 'Invoice 7',
        note: null,
        reviewedAt: null,
        cancelledAt: null,
        settleAfter: null,
      });
      expect(await getTransfer(db, owner.organizationId, stored.id)).toEqual(stored);
      expect(await getTransfer(db, other.organizationId, stored.id)).toBeUndefined();
      expect(await getTransfer(db, owner.organizationId, newId('trf'))).toBeUndefined();
    });

    it('lists newest first by keyset with filters, no skip or repeat while transfers are added', async () => {
      const owner = await seedOrganization(db);
      const statuses: TransferStatus[] = ['PENDING', 'CANCELLED', 'PENDING', 'SUCCEEDED'];
      const originals: TransferRecord[] = [];
      for (let i = 0; i < 23; i += 1) {
        originals.push(
          await insertTransfer(
            db,
            newTransfer(owner, {
              // pairs share a submission date: the id breaks the tie
              submissionDate: T0 + Math.floor(i / 2) * 1000,
              amountCents: 100 * (i + 1),
              status: statuses[i % statuses.length] ?? 'PENDING',
              ...(statuses[i % statuses.length] === 'CANCELLED' ? { cancelledAt: T0 } : {}),
              ...(statuses[i % statuses.length] === 'SUCCEEDED'
                ? { reviewedAt: T0, settleAfter: T0, settledAt: T0 }
                : {}),
            }),
          ),
        );
      }
      const byListOrder = (a: TransferRecord, b: TransferRecord): number =>
        b.submissionDate - a.submissionDate || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
      const expected = [...originals].sort(byListOrder);

      // Exactly `limit` left: the last full page has no successor.
      const exact = await walkTransfers(db, owner.organizationId, { status: 'PENDING' }, 6);
      const pending = expected.filter((t) => t.status === 'PENDING');
      expect(pending).toHaveLength(12);
      expect(exact.map((page) => page.length)).toEqual([6, 6]);
      expect(exact.flat().map((t) => t.id)).toEqual(pending.map((t) => t.id));

      const ranged = await walkTransfers(
        db,
        owner.organizationId,
        { minAmountCents: 500, maxAmountCents: 1_500, status: 'PENDING' },
        2,
      );
      expect(ranged.flat().map((t) => t.id)).toEqual(
        pending.filter((t) => t.amountCents >= 500 && t.amountCents <= 1_500).map((t) => t.id),
      );
      expect(
        ranged
          .flat()
          .map((t) => t.amountCents)
          .sort((a, b) => a - b),
      ).toEqual([500, 700, 900, 1100, 1300, 1500]);

      let added = 0;
      const pages = await walkTransfers(db, owner.organizationId, {}, 5, async () => {
        // Newer transfers arrive between pages; they belong before the cursor and must not
        // shift the pages still to come.
        added += 1;
        await insertTransfer(db, newTransfer(owner, { submissionDate: T0 + 1_000_000 + added }));
      });
      expect(pages.map((page) => page.length)).toEqual([5, 5, 5, 5, 3]);
      expect(pages.flat().map((t) => t.id)).toEqual(expected.map((t) => t.id));

      const other = await seedOrganization(db);
      expect(await listTransfers(db, other.organizationId, { limit: 10 })).toEqual([]);
    });

    it('cancels a PENDING transfer once', async () => {
      const owner = await seedOrganization(db);
      const other = await seedOrganization(db);
      const transfer = await insertTransfer(db, newTransfer(owner));
      expect(await cancelTransfer(db, other.organizationId, transfer.id, T0 + 5)).toEqual({ kind: 'not-found' });
      const done = await cancelTransfer(db, owner.organizationId, transfer.id, T0 + 5);
      expect(done).toEqual({ kind: 'done', transfer: { ...transfer, status: 'CANCELLED', cancelledAt: T0 + 5 } });
      expect(await cancelTransfer(db, owner.organizationId, transfer.id, T0 + 6)).toMatchObject({
        kind: 'not-pending',
        transfer: { status: 'CANCELLED', cancelledAt: T0 + 5 },
      });
      expect(await executeTransfer(db, owner.organizationId, transfer.id, T0 + 7, T0 + 8)).toMatchObject({
        kind: 'not-pending',
      });
    });

    it('executes with sufficient funds only; insufficient funds leave it PENDING and the balance unchanged', async () => {
      const owner = await seedOrganization(db, 1_000);
      const big = await insertTransfer(db, newTransfer(owner, { amountCents: 1_500 }));
      expect(await executeTransfer(db, owner.organizationId, big.id, T0 + 10, T0 + 2_010)).toEqual({
        kind: 'insufficient-funds',
        transfer: big,
        availableCents: 1_000,
      });
      expect(await getTransfer(db, owner.organizationId, big.id)).toEqual(big);
      expect(await getBalance(db, owner.organizationId)).toBe(1_000);

      const small = await insertTransfer(db, newTransfer(owner, { amountCents: 600 }));
      const done = await db
        .transaction()
        .execute((tx) => executeTransfer(tx, owner.organizationId, small.id, T0 + 20, T0 + 2_020));
      expect(done).toEqual({
        kind: 'done',
        transfer: { ...small, status: 'PROCESSING', reviewedAt: T0 + 20, settleAfter: T0 + 2_020 },
      });
      expect(await getBalance(db, owner.organizationId)).toBe(400);
      expect(await executeTransfer(db, owner.organizationId, small.id, T0 + 30, T0 + 2_030)).toMatchObject({
        kind: 'not-pending',
      });
      expect(await cancelTransfer(db, owner.organizationId, small.id, T0 + 30)).toMatchObject({ kind: 'not-pending' });
      expect(await getBalance(db, owner.organizationId)).toBe(400);
    });

    it('with atCommit, the reservation is the statement sent at the commit, and the response is the transfer it makes', async () => {
      const owner = await seedOrganization(db, 1_000);
      const transfer = await insertTransfer(db, newTransfer(owner, { amountCents: 600 }));
      const operatorId = `opr_${randomBytes(8).toString('hex')}`;
      expect(
        await createOperator(db, {
          id: operatorId,
          organizationId: owner.organizationId,
          username: operatorId,
          passwordHash: 'x',
          role: 'approver',
          now: T0,
        }),
      ).toMatchObject({ kind: 'created' });
      const answered = await db.transaction().execute(async (tx) => {
        const deferred: Compilable<unknown>[] = [];
        const outcome = await executeTransfer(
          tx,
          owner.organizationId,
          transfer.id,
          T0 + 40,
          T0 + 2_040,
          operatorId,
          (statement) => deferred.push(statement),
        );
        // Nothing is reserved until the deferred statement runs.
        expect(await getBalance(tx, owner.organizationId)).toBe(1_000);
        expect(deferred).toHaveLength(1);
        for (const statement of deferred) await executeAtCommit(tx, statement);
        return outcome;
      });
      expect(answered).toEqual({
        kind: 'done',
        transfer: {
          ...transfer,
          status: 'PROCESSING',
          reviewedAt: T0 + 40,
          settleAfter: T0 + 2_040,
          reviewedByOperatorId: operatorId,
        },
      });
      expect(answered.kind === 'done' ? answered.transfer : undefined).toEqual(
        await getTransfer(db, owner.organizationId, transfer.id),
      );
      expect(await getBalance(db, owner.organizationId)).toBe(400);

      // The balance now falls short: the deferred statement fails and nothing of its transaction commits.
      const big = await insertTransfer(db, newTransfer(owner, { amountCents: 500 }));
      await expect(
        db.transaction().execute(async (tx) => {
          let deferred: Compilable<unknown> | undefined;
          await executeTransfer(
            tx,
            owner.organizationId,
            big.id,
            T0 + 50,
            T0 + 2_050,
            undefined,
            (statement) => (deferred = statement),
          );
          await sql`update organizations set name = 'changed in the same transaction' where id = ${owner.organizationId}`.execute(
            tx,
          );
          if (deferred !== undefined) await executeAtCommit(tx, deferred);
        }),
      ).rejects.toEqual(new ConditionNotMet('insufficient funds'));
      expect(await getTransfer(db, owner.organizationId, big.id)).toEqual(big);
      expect(await getBalance(db, owner.organizationId)).toBe(400);
      const { rows } = await sql<{
        name: string;
      }>`select name from organizations where id = ${owner.organizationId}`.execute(db);
      expect(rows[0]?.name).not.toBe('changed in the same transaction');
    });

    it('rolls the reservation back with the caller’s transaction', async () => {
      const owner = await seedOrganization(db, 1_000);
      const transfer = await insertTransfer(db, newTransfer(owner, { amountCents: 700 }));
      await expect(
        db.transaction().execute(async (tx) => {
          await executeTransfer(tx, owner.organizationId, transfer.id, T0, T0 + 1);
          throw new Error('handler failed after execute');
        }),
      ).rejects.toThrow('handler failed');
      expect(await getBalance(db, owner.organizationId)).toBe(1_000);
      expect((await getTransfer(db, owner.organizationId, transfer.id))?.status).toBe('PENDING');
    });

    it('settles due transfers once: SUCCEEDED keeps the debit, FAILED gives it back', async () => {
      const owner = await seedOrganization(db, 10_000);
      const ok = await insertTransfer(db, newTransfer(owner, { amountCents: 1_000 }));
      const failing = await insertTransfer(db, newTransfer(owner, { amountCents: 3_000, accountNumber: '9990002' }));
      const later = await insertTransfer(db, newTransfer(owner, { amountCents: 500 }));
      // Far in the future so that no other test's PROCESSING transfer is due before these.
      const base = T0 + 1_000 * MINUTE;
      await executeTransfer(db, owner.organizationId, ok.id, base, base + 2_000);
      await executeTransfer(db, owner.organizationId, failing.id, base, base + 2_000);
      await executeTransfer(db, owner.organizationId, later.id, base, base + 10_000);
      expect(await getBalance(db, owner.organizationId)).toBe(5_500);

      const outcome = (t: TransferRecord): 'SUCCEEDED' | 'FAILED' =>
        t.accountNumber.endsWith('0002') ? 'FAILED' : 'SUCCEEDED';
      const mine = (rows: TransferRecord[]): TransferRecord[] =>
        rows.filter((t) => t.organizationId === owner.organizationId);

      expect(mine(await claimDueSettlements(db, base + 1_999, 100, outcome))).toEqual([]);
      const settled = mine(await claimDueSettlements(db, base + 2_000, 100, outcome));
      expect(settled.map((t) => [t.id, t.status, t.settledAt]).sort()).toEqual(
        [
          [ok.id, 'SUCCEEDED', base + 2_000],
          [failing.id, 'FAILED', base + 2_000],
        ].sort(),
      );
      expect(await getBalance(db, owner.organizationId)).toBe(8_500);
      // Never twice.
      expect(mine(await claimDueSettlements(db, base + 5_000, 100, outcome))).toEqual([]);
      expect(await getBalance(db, owner.organizationId)).toBe(8_500);
      expect((await getTransfer(db, owner.organizationId, later.id))?.status).toBe('PROCESSING');
      expect(mine(await claimDueSettlements(db, base + 10_000, 100, outcome)).map((t) => t.id)).toEqual([later.id]);
      // start − sum(SUCCEEDED) − sum(PROCESSING) = 10 000 − 1 000 − 500
      expect(await getBalance(db, owner.organizationId)).toBe(8_500);
    });
  });
});

// Concurrency across processes needs a real server: PGlite is one backend, so transactions
// run one at a time and SKIP LOCKED never skips (README, "Design").
const postgresUrl = process.env['DATABASE_URL'];
if (!postgresUrl) {
  console.info('PostgreSQL concurrency tests skipped: set DATABASE_URL=postgres://… to run them.');
}

describe.skipIf(!postgresUrl)('store concurrency on PostgreSQL (two pools, as two instances)', () => {
  let database: TestDatabase;
  let second: Database;

  beforeAll(async () => {
    database = await createTestDatabaseOf('postgres');
    if (database.url === undefined) throw new Error('a PostgreSQL test database has a url');
    second = await openDatabase({ url: database.url, maxConnections: 20 });
  });
  afterAll(async () => {
    await second?.close();
    await database?.close();
  });

  const pools = (): [Kysely<DB>, Kysely<DB>] => [database.db, second.db];

  it('migrates once when two instances start at once', async () => {
    const empty = await createTestDatabaseOf('postgres', { migrated: false });
    const other = await openDatabase({ url: empty.url ?? '' });
    try {
      const results = await Promise.all([migrateToLatest(empty.db), migrateToLatest(other.db)]);
      expect(results.flatMap((r) => r.applied).sort()).toEqual(Object.keys(migrations).sort());
    } finally {
      await other.close();
      await empty.close();
    }
  });

  it('opens at most DEFAULT_MAX_CONNECTIONS connections when not told how many, however many statements wait', async () => {
    const pool = await openDatabase({ url: database.url ?? '' });
    try {
      const backends = await Promise.all(
        Array.from({ length: 3 * DEFAULT_MAX_CONNECTIONS }, () =>
          sql<{ pid: number }>`select pg_backend_pid() as pid from pg_sleep(0.05)`
            .execute(pool.db)
            .then(({ rows }) => rows[0]?.pid),
        ),
      );
      expect(new Set(backends).size).toBe(DEFAULT_MAX_CONNECTIONS);
    } finally {
      await pool.close();
    }
  });

  it('sends statements as named prepared statements, bulk writes excepted', async () => {
    const one = await openDatabase({ url: database.url ?? '', maxConnections: 1 });
    try {
      await one.db.selectFrom('organizations').select('id').where('id', '=', 'org_prepared').execute();
      const bulk = Array.from({ length: 120 }, (_, i) => sql`${`v${i}`}`);
      await sql`select ${sql.join(bulk)}`.execute(one.db);
      const { rows } = await sql<{
        name: string;
        statement: string;
      }>`select name, statement from pg_prepared_statements`.execute(one.db);
      const texts = rows.filter((row) => row.name.startsWith('pps_')).map((row) => row.statement);
      expect(texts.some((text) => text.includes('"organizations"'))).toBe(true);
      expect(texts.some((text) => text.includes('$120'))).toBe(false);
    } finally {
      await one.close();
    }
  });

  it("sends a transaction's begin with its first statement, which then runs inside it", async () => {
    const one = await openDatabase({ url: database.url ?? '', maxConnections: 1 });
    try {
      const owner = await seedOrganization(database.db);
      const balance = () => getBalance(database.db, owner.organizationId);
      const before = (await balance()) ?? 0;
      // The first statement's change is undone with the transaction: it ran after the begin.
      const undone = one.db.transaction().execute(async (tx) => {
        await tx
          .updateTable('organizations')
          .set({ balance_cents: 1 })
          .where('id', '=', owner.organizationId)
          .execute();
        throw new Error('undo');
      });
      await expect(undone).rejects.toThrow('undo');
      expect(await balance()).toBe(before);
      // A first statement that fails (here a check constraint) leaves nothing, and the connection,
      // with that statement prepared, serves the next transactions.
      const rejected = () =>
        one.db
          .transaction()
          .execute((tx) =>
            tx.updateTable('organizations').set({ balance_cents: -1 }).where('id', '=', owner.organizationId).execute(),
          );
      await expect(rejected()).rejects.toMatchObject({ code: '23514' });
      await expect(rejected()).rejects.toMatchObject({ code: '23514' });
      // A first statement PostgreSQL cannot even parse, on a statement never prepared before.
      await expect(
        one.db.transaction().execute((tx) => sql`select * from no_such_table`.execute(tx)),
      ).rejects.toMatchObject({ code: '42P01' });
      // A transaction that runs no statement sends nothing and ends cleanly.
      await one.db.transaction().execute(async () => undefined);
      const committed = await one.db.transaction().execute(async (tx) => {
        await tx
          .updateTable('organizations')
          .set({ balance_cents: before + 5 })
          .where('id', '=', owner.organizationId)
          .execute();
        const { rows } = await sql<{
          inside: boolean;
        }>`select pg_current_xact_id_if_assigned() is not null as inside`.execute(tx);
        return rows[0]?.inside;
      });
      expect(committed).toBe(true);
      expect(await balance()).toBe(before + 5);
    } finally {
      await one.close();
    }
  });

  it("commits right after a transaction's last statement: committed when it returns, or not at all", async () => {
    const one = await openDatabase({ url: database.url ?? '', maxConnections: 1 });
    try {
      const owner = await seedOrganization(database.db);
      const balance = () => getBalance(database.db, owner.organizationId);
      const before = (await balance()) ?? 0;
      const set = (cents: number) =>
        sql`update organizations set balance_cents = ${cents} where id = ${owner.organizationId}`;
      // Committed in its own round trip: another connection sees the change before Kysely's commit,
      // and this connection is out of its transaction (the commit that follows sends nothing).
      await one.db.transaction().execute(async (tx) => {
        const { rows: backend } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(tx);
        await set(before + 1).execute(tx);
        await committing(set(before + 2)).execute(tx);
        expect(await balance()).toBe(before + 2);
        const { rows } = await sql<{
          state: string;
        }>`select state from pg_stat_activity where pid = ${backend[0]?.pid}`.execute(database.db);
        expect(rows).toEqual([{ state: 'idle' }]);
      });
      expect(await balance()).toBe(before + 2);
      // As the only statement: it runs by itself (the suite on both databases, above, proves how).
      await one.db.transaction().execute((tx) => committing(set(before + 3)).execute(tx));
      expect(await balance()).toBe(before + 3);
      // A statement after it is rejected, not run outside the transaction.
      await expect(
        one.db.transaction().execute(async (tx) => {
          await committing(set(before + 4)).execute(tx);
          await set(before + 5).execute(tx);
        }),
      ).rejects.toThrow('The transaction was committed by its last statement');
      expect(await balance()).toBe(before + 4);
      // It fails (a check constraint): the commit sent with it ends the transaction with a rollback, and the earlier statements are undone.
      await expect(
        one.db.transaction().execute(async (tx) => {
          await set(before + 6).execute(tx);
          await committing(set(-1)).execute(tx);
        }),
      ).rejects.toMatchObject({ code: '23514' });
      expect(await balance()).toBe(before + 4);
      // The commit fails (a deferred constraint): the statement fails with it, and nothing is kept.
      await sql`create table if not exists deferred_check (id int unique deferrable initially deferred)`.execute(
        database.db,
      );
      await expect(
        one.db.transaction().execute(async (tx) => {
          await set(before + 7).execute(tx);
          await sql`insert into deferred_check values (1)`.execute(tx);
          await committing(sql`insert into deferred_check values (1)`).execute(tx);
        }),
      ).rejects.toMatchObject({ code: '23505' });
      expect(await balance()).toBe(before + 4);
      expect(
        (await sql<{ n: number }>`select count(*)::int as n from deferred_check`.execute(database.db)).rows,
      ).toEqual([{ n: 0 }]);
      // The connection serves the next transaction as usual.
      await one.db.transaction().execute((tx) => set(before + 8).execute(tx));
      expect(await balance()).toBe(before + 8);
    } finally {
      await one.close();
    }
  });

  it("sends a transaction's begin with its first statement and its commit with its last, waiting for no response between them", async () => {
    // PostgreSQL's responses are held in a proxy: what reaches it meanwhile went without waiting.
    const proxy = await startResponseHoldingProxy(database.url ?? '');
    const one = await openDatabase({ url: proxy.url, maxConnections: 1 });
    try {
      const owner = await seedOrganization(one.db);
      const before = (await getBalance(one.db, owner.organizationId)) ?? 0;
      const set = (cents: number) =>
        sql`update organizations set balance_cents = ${cents} where id = ${owner.organizationId}`;
      proxy.hold();
      const atHold = proxy.sent().length;
      const marker = `pipelined_${randomBytes(4).toString('hex')}`;
      const transaction = one.db.transaction().execute(async (tx) => {
        await sql`select ${sql.lit(marker)} as first`.execute(tx);
        await committing(set(before + 1)).execute(tx);
      });
      // The first statement went out after its begin, before the response to the begin came back...
      const first = await proxy.whenSent(`'${marker}' as first`, atHold, 5_000);
      expect(proxy.sent().slice(atHold, first)).toContain('begin');
      // Once both are served (held in the proxy: the first's row, then PostgreSQL's ReadyForQuery
      // inside a transaction), the responses go and the next ones are held.
      await proxy.whenResponded(READY_IN_TRANSACTION, await proxy.whenResponded(marker, 0, 5_000), 5_000);
      const atLast = proxy.sent().length;
      proxy.release({ holdAgain: true });
      // ...and the commit after the last statement, before the response to the statement came back.
      const commit = await proxy.whenSent('commit', atLast, 5_000);
      expect(proxy.sent().slice(atLast, commit)).toContain('update organizations');
      proxy.release();
      await transaction;
      expect(await getBalance(one.db, owner.organizationId)).toBe(before + 1);
      // A last statement that fails is responded with its own error; the commit sent with it ends the
      // transaction without keeping anything, and the connection serves the next one.
      await expect(
        one.db.transaction().execute(async (tx) => {
          await set(before + 2).execute(tx);
          await committing(set(-1)).execute(tx);
        }),
      ).rejects.toMatchObject({ code: '23514' });
      expect(await getBalance(one.db, owner.organizationId)).toBe(before + 1);
    } finally {
      proxy.release();
      await one.close();
      await proxy.close();
    }
  });

  it('a connection the server ends while a transaction holds it fails that transaction, not the process; the next one works', async () => {
    const failures: Error[] = [];
    const one = await openDatabase({
      url: database.url ?? '',
      maxConnections: 1,
      onConnectionError: (error) => failures.push(error),
    });
    try {
      const dying = one.db.transaction().execute(async (tx) => {
        const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(tx);
        await sql`select pg_terminate_backend(${rows[0]?.pid ?? 0})`.execute(database.db);
        // Idle in its transaction when the server ends it: the client hears of it as an 'error' event.
        await new Promise((resolve) => setTimeout(resolve, 200));
        await sql`select 1`.execute(tx);
      });
      await expect(dying).rejects.toThrow();
      expect(failures.length).toBeGreaterThan(0);
      expect(await one.db.selectFrom('organizations').select('id').where('id', '=', 'org_none').execute()).toEqual([]);
    } finally {
      await one.close();
    }
  });

  it('a prepared statement outlived by a migration of another instance fails once, then works again', async () => {
    const fresh = await createTestDatabaseOf('postgres');
    const one = await openDatabase({ url: fresh.url ?? '', maxConnections: 1 });
    try {
      const read = () => one.db.selectFrom('organizations').selectAll().where('id', '=', 'org_none').execute();
      expect(await read()).toEqual([]);
      // Another instance adds a column: the prepared `select *` now returns another row type.
      await sql`alter table organizations add column added_later text`.execute(fresh.db);
      await expect(read()).rejects.toMatchObject({ code: '0A000' });
      expect(await read()).toEqual([]);
      expect(await read()).toEqual([]);
    } finally {
      await one.close();
      await fresh.close();
    }
  });

  it('stores one of 20 concurrent responds on one key, with its change; the rest are told in-flight or find the key', async () => {
    const [a, b] = pools();
    const owner = await seedOrganization(a);
    const key = 'concurrent-key-0002';
    const transfers = Array.from({ length: 20 }, () => newTransfer(owner, { idempotencyKey: key }));
    const outcomes = await Promise.all(
      transfers.map((transfer, i) =>
        (i % 2 === 0 ? a : b)
          .transaction()
          .execute(async (tx) => {
            await insertTransfer(tx, transfer);
            const outcome = await outcomeOf(
              storeResponse(tx, {
                clientId: owner.clientId,
                key,
                fingerprint: 'F',
                nowMs: T0 + i,
                status: 200,
                body: JSON.stringify({ id: transfer.id }),
              }),
            );
            if (outcome !== 'stored') throw new Error(outcome);
            // Hold the lock a moment, as a request between its response and its commit.
            await sql`select pg_sleep(0.02)`.execute(tx);
            return outcome;
          })
          .catch((error: unknown) => (error as Error).message),
      ),
    );
    expect(outcomes.filter((outcome) => outcome === 'stored')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome === 'in-flight').length).toBeGreaterThan(0);
    expect(outcomes.every((outcome) => ['stored', 'in-flight', 'exists'].includes(outcome))).toBe(true);
    const winner = transfers[outcomes.indexOf('stored')];
    const rows = await a.selectFrom('transfers').select('id').where('idempotency_key', '=', key).execute();
    expect(rows.map((row) => row.id)).toEqual([winner?.id]);
    const replay = await findStoredResponse(b, { clientId: owner.clientId, key, fingerprint: 'F', nowMs: T0 + 30 });
    expect(replay).toEqual({ kind: 'replay', status: 200, body: JSON.stringify({ id: winner?.id }) });
  });

  it('never spends the same cents twice under 20 concurrent executes', async () => {
    const [a, b] = pools();
    const start = 10_000;
    const owner = await seedOrganization(a, start);
    const transfers: TransferRecord[] = [];
    for (let i = 0; i < 20; i += 1) {
      transfers.push(await insertTransfer(a, newTransfer(owner, { amountCents: 700 + 37 * i })));
    }
    const results = await Promise.all(
      transfers.map((t, i) =>
        (i % 2 === 0 ? a : b).transaction().execute((tx) => executeTransfer(tx, owner.organizationId, t.id, T0, T0)),
      ),
    );
    const executed = results.flatMap((r) => (r.kind === 'done' ? [r.transfer.amountCents] : []));
    const spent = executed.reduce((sum, amount) => sum + amount, 0);
    expect(results.every((r) => r.kind === 'done' || r.kind === 'insufficient-funds')).toBe(true);
    expect(executed.length).toBeGreaterThan(0);
    expect(executed.length).toBeLessThan(20);
    expect(spent).toBeLessThanOrEqual(start);
    expect(await getBalance(a, owner.organizationId)).toBe(start - spent);
    const processing = await a
      .selectFrom('transfers')
      .select(sql<number>`coalesce(sum(amount_cents), 0)::bigint`.as('total'))
      .where('organization_id', '=', owner.organizationId)
      .where('status', '=', 'PROCESSING')
      .executeTakeFirstOrThrow();
    expect(processing.total).toBe(spent);
  });

  it('settles each transfer exactly once with two workers', async () => {
    const [a, b] = pools();
    const start = 1_000_000;
    const owner = await seedOrganization(a, start);
    const ids = new Set<string>();
    for (let i = 0; i < 40; i += 1) {
      const t = await insertTransfer(
        a,
        newTransfer(owner, { amountCents: 1_000 + i, accountNumber: i % 4 === 0 ? '5550002' : '5551234' }),
      );
      await executeTransfer(a, owner.organizationId, t.id, T0, T0 + 1);
      ids.add(t.id);
    }
    const outcome = (t: TransferRecord): 'SUCCEEDED' | 'FAILED' =>
      t.accountNumber.endsWith('0002') ? 'FAILED' : 'SUCCEEDED';
    const worker = async (db: Kysely<DB>): Promise<TransferRecord[]> => {
      const settled: TransferRecord[] = [];
      for (;;) {
        const batch = await claimDueSettlements(db, T0 + 1, 3, outcome);
        if (batch.length === 0) return settled;
        settled.push(...batch);
      }
    };
    const [fromA, fromB] = await Promise.all([worker(a), worker(b), worker(a), worker(b)]).then(
      ([w1, w2, w3, w4]) =>
        [
          [...w1, ...w3],
          [...w2, ...w4],
        ] as const,
    );
    const all = [...fromA, ...fromB].filter((t) => ids.has(t.id));
    expect(all).toHaveLength(40);
    expect(new Set(all.map((t) => t.id)).size).toBe(40);
    expect(fromA.length).toBeGreaterThan(0);
    expect(fromB.length).toBeGreaterThan(0);
    const succeeded = all.filter((t) => t.status === 'SUCCEEDED').reduce((sum, t) => sum + t.amountCents, 0);
    expect(all.filter((t) => t.status === 'FAILED')).toHaveLength(10);
    expect(await getBalance(a, owner.organizationId)).toBe(start - succeeded);
  });
});
