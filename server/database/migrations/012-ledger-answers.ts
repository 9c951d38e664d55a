import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import { RECORD_FUNCTION } from './011-ledger-records.js';

// transactions.record becomes the ledger record exactly as the API shows it (the Transaction
// schema, openapi/components/schemas/Transaction.yaml): a page or a read sends the stored text as
// it is, with nothing parsed or printed on the way (server/decisions/0011-…). The texts the
// schema leaves out when unset are left out, not null (jsonb builds the object: `||` adds them only
// when set, and the stored json is its text). The amounts and dates a record shows are held to the
// schema's bounds where they are written, so that no client meets a number it cannot hold.
//
// The category labels are server/domain/categories.ts's as this migration was written, copied so
// that the migration stays what it was when it ran; test/store/store.test.ts compares
// category_label() with the domain's labels, so a label changed there needs a migration here.

const CATEGORY_LABELS = {
  AGRICULTURE: 'Agriculture',
  ART: 'Art',
  AUTOMOTIVE: 'Automotive',
  CASH: 'Cash',
  CHARITY: 'Charity',
  CLOTHING: 'Clothing',
  CONSTRUCTION: 'Construction',
  DESIGN: 'Design',
  E_COMMERCE: 'E-commerce',
  EDUCATION: 'Education',
  ENERGY: 'Energy',
  ENGINEERING: 'Engineering',
  ENTERTAINMENT: 'Entertainment',
  FINANCIAL_SERVICES: 'Financial Services',
  FITNESS: 'Fitness',
  FUEL: 'Fuel',
  FOOD_BEVERAGE: 'Food & Beverage',
  GOVERNMENT: 'Government',
  HOSPITALITY: 'Hospitality',
  INSURANCE: 'Insurance',
  LEGAL: 'Legal',
  LOGISTICS: 'Logistics',
  MANUFACTURING: 'Manufacturing',
  MARKETING: 'Marketing',
  MEDIA: 'Media',
  MEDICAL: 'Medical',
  MEMBERSHIP: 'Membership',
  PHARMACEUTICAL: 'Pharmaceutical',
  PROFESSIONAL_SERVICES: 'Professional Services',
  REAL_ESTATE: 'Real Estate',
  RETAIL: 'Retail',
  TECHNOLOGY: 'Technology',
  TOWING: 'Towing',
  TRANSPORTATION: 'Transportation',
  TRAVEL: 'Travel',
  UTILITIES: 'Utilities',
  OTHER: 'Other',
};

const LABEL_FUNCTION = sql`
  create function category_label(category text) returns text
  language sql immutable
  as $$ select ${sql.lit(JSON.stringify(CATEGORY_LABELS))}::jsonb ->> category $$
`;

const ANSWER_FUNCTION = sql`
  create function transaction_record(t transactions) returns json
  language sql stable
  as $$
    select (
      jsonb_build_object(
        'id', t.id,
        'authorizationDate', t.authorization_date,
        'merchant', t.merchant,
        'person', jsonb_build_object(
          'id', h.id,
          'fullName', h.full_name,
          'department', case when d.id is null then null else jsonb_build_object('id', d.id, 'name', d.name) end
        ) || jsonb_strip_nulls(jsonb_build_object(
          'userExternalIdOne', h.user_external_id_one,
          'userExternalIdTwo', h.user_external_id_two,
          'userExternalIdThree', h.user_external_id_three
        )),
        'department', d.name,
        'method', t.method,
        'category', t.category,
        'categoryLabel', category_label(t.category),
        'reviewStatus', t.review_status,
        'status', t.status,
        'currency', t.currency,
        'amountCents', t.amount_cents,
        'tags', (
          select coalesce(jsonb_agg(jsonb_build_object('id', tag ->> 'id', 'name', tag ->> 'name') order by position), '[]'::jsonb)
          from jsonb_array_elements(t.tags) with ordinality as tags(tag, position)
        ),
        'refund', t.refund,
        'last4', t.last4,
        'cleared', t.cleared
      ) || jsonb_strip_nulls(jsonb_build_object(
        'note', t.note,
        'description', t.description,
        'authorizationCode', t.authorization_code
      ))
    )::json
    from card_holders h left join departments d on d.id = h.department_id
    where h.id = t.person_id
  $$
`;

export const ledgerAnswersMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`alter table transactions add constraint transactions_amount_cents_shown
      check (amount_cents between 1 and 99999999999)`.execute(db);
    await sql`alter table transactions add constraint transactions_authorization_date_shown
      check (authorization_date between 0 and 9007199254740991)`.execute(db);
    await LABEL_FUNCTION.execute(db);
    await sql`drop function transaction_record(transactions)`.execute(db);
    await ANSWER_FUNCTION.execute(db);
    // Every record again (the insert-and-update trigger of migration 011 computes it).
    await sql`update transactions set record = null`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`drop function transaction_record(transactions)`.execute(db);
    await RECORD_FUNCTION.execute(db);
    await sql`drop function category_label(text)`.execute(db);
    await sql`update transactions set record = null`.execute(db);
    await sql`alter table transactions drop constraint transactions_authorization_date_shown`.execute(db);
    await sql`alter table transactions drop constraint transactions_amount_cents_shown`.execute(db);
  },
};
