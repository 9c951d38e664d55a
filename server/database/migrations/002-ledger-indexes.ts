import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

// Indexes that keep the ledger fast with a million rows and more: a filtered page of the
// transaction list, and a page of cards with their availableBalance, each in a few ms.
//
// Migration 001 has transactions_list_idx (organization_id, authorization_date desc, id desc):
// a page walks it from the cursor and stops after `limit` matches, which is quick whenever the
// filters match often. The indexes below are for filters that match rarely or never, where
// that walk would read most of the ledger to fill one page:
//
// - One index per equality filter of listTransactions: (organization_id, category), (organization_id,
//   status), (organization_id, review_status), (organization_id, merchant), and (person_id) for
//   the department filter (it matches the person's department, so the store resolves
//   departments to their people first, through card_holders_department_idx). The planner takes them when
//   a value is rare: a bitmap of its few rows and a top-N sort. Two columns only, on purpose:
//   their keys repeat, so PostgreSQL's b-tree deduplication keeps each one a few MB per million
//   rows, against 150 MB or more with the list order appended; measured on a bulk insert, they
//   cost a fifth less CPU than the longer ones, and the plans stay fast (see
//   test/transactions/query-plans.test.ts).
// - The merchant filter is a case-insensitive substring, which no b-tree serves, and pg_trgm is
//   not available on every database this runs on (the embedded one has no extensions by
//   default; a trigram GIN index also added about two thirds to the time of a bulk insert).
//   The store first finds the organization's distinct merchant names containing the text by a
//   skip scan of (organization_id, merchant), one index probe per distinct name, then lists by
//   `merchant in (those names)`: a text no name contains is answered without the ledger.
// - availableBalance sums one card's transactions of the current month (a range
//   of 001's transactions_card_usage_idx) and its holder's outstanding cash, of any date: a
//   partial index holding exactly the rows that can count (the predicate of store/cards.ts
//   cardUsages, literally) and covering the amount, so the sum never reads cash settled long ago.

export const ledgerIndexesMigration: Migration = {
  // The statements stay inside up() and down(): scripts/proof/database.ts keys its cached
  // template databases on the text of these functions.
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`create index transactions_category_idx on transactions (organization_id, category)`.execute(db);
    await sql`create index transactions_status_idx on transactions (organization_id, status)`.execute(db);
    await sql`create index transactions_review_status_idx on transactions (organization_id, review_status)`.execute(db);
    await sql`create index transactions_merchant_idx on transactions (organization_id, merchant)`.execute(db);
    await sql`create index transactions_person_idx on transactions (person_id)`.execute(db);
    await sql`
      create index transactions_outstanding_cash_idx
        on transactions (person_id)
        include (amount_cents)
        where method = 'CASH' and status = 'SUCCEEDED' and not refund
          and (review_status is null or review_status not in ('BALANCE_SETTLED', 'REJECTED'))
    `.execute(db);
    await sql`create index cards_holder_idx on cards (card_holder_id)`.execute(db);
    await sql`create index card_holders_department_idx on card_holders (department_id)`.execute(db);
  },

  async down(db: Kysely<unknown>): Promise<void> {
    for (const name of [
      'card_holders_department_idx',
      'cards_holder_idx',
      'transactions_outstanding_cash_idx',
      'transactions_person_idx',
      'transactions_merchant_idx',
      'transactions_review_status_idx',
      'transactions_status_idx',
      'transactions_category_idx',
    ]) {
      await sql`drop index if exists ${sql.id(name)}`.execute(db);
    }
  },
};
