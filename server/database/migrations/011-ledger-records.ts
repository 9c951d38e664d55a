import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

// Each ledger row carries, in transactions.record, the record a ledger page shows: its own columns
// and its card holder with the holder's department, as one JSON value (the store's record of then;
// migration 012 makes it the API's Transaction). A page then joins nothing and builds no JSON: it
// hands over the stored values in order (server/decisions/0011-ledger-and-card-records-are-stored-as-the-api-shows-them.md).
//
// The database keeps the value, whoever writes: it is computed from the row before every insert
// and update of a ledger row, and written again for the holder's rows when a card holder or a
// department changes. `json`, not `jsonb`: its text is stored as written, and an aggregate of
// `json` values copies that text instead of printing each value again.

export const RECORD_FUNCTION = sql`
  create function transaction_record(t transactions) returns json
  language sql stable
  as $$
    select json_build_object(
      'id', t.id,
      'authorizationDate', t.authorization_date,
      'merchant', t.merchant,
      'person', json_build_object(
        'id', h.id,
        'fullName', h.full_name,
        'userExternalIdOne', h.user_external_id_one,
        'userExternalIdTwo', h.user_external_id_two,
        'userExternalIdThree', h.user_external_id_three,
        'department', case when d.id is null then null else json_build_object('id', d.id, 'name', d.name) end
      ),
      'method', t.method,
      'category', t.category,
      'reviewStatus', t.review_status,
      'status', t.status,
      'currency', t.currency,
      'amountCents', t.amount_cents,
      'tags', t.tags,
      'note', t.note,
      'description', t.description,
      'refund', t.refund,
      'authorizationCode', t.authorization_code,
      'last4', t.last4,
      'cleared', t.cleared
    )
    from card_holders h left join departments d on d.id = h.department_id
    where h.id = t.person_id
  $$
`;

export const ledgerRecordsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`alter table transactions add column record json`.execute(db);
    await RECORD_FUNCTION.execute(db);
    await sql`
      create function transactions_write_record() returns trigger
      language plpgsql
      as $$
      begin
        new.record := transaction_record(new);
        return new;
      end
      $$
    `.execute(db);
    await sql`
      create trigger transactions_write_record before insert or update on transactions
      for each row execute function transactions_write_record()
    `.execute(db);
    // A holder's or a department's change reaches the records that show it.
    await sql`
      create function card_holders_rewrite_records() returns trigger
      language plpgsql
      as $$
      begin
        update transactions t set record = transaction_record(t) where t.person_id = new.id;
        return null;
      end
      $$
    `.execute(db);
    await sql`
      create trigger card_holders_rewrite_records after update on card_holders
      for each row when (old is distinct from new) execute function card_holders_rewrite_records()
    `.execute(db);
    await sql`
      create function departments_rewrite_records() returns trigger
      language plpgsql
      as $$
      begin
        update transactions t set record = transaction_record(t)
        where t.person_id in (select h.id from card_holders h where h.department_id = new.id);
        return null;
      end
      $$
    `.execute(db);
    await sql`
      create trigger departments_rewrite_records after update on departments
      for each row when (old is distinct from new) execute function departments_rewrite_records()
    `.execute(db);
    // The records of the rows already there (the insert-and-update trigger computes them).
    await sql`update transactions set record = null`.execute(db);
    await sql`alter table transactions alter column record set not null`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`drop trigger departments_rewrite_records on departments`.execute(db);
    await sql`drop function departments_rewrite_records()`.execute(db);
    await sql`drop trigger card_holders_rewrite_records on card_holders`.execute(db);
    await sql`drop function card_holders_rewrite_records()`.execute(db);
    await sql`drop trigger transactions_write_record on transactions`.execute(db);
    await sql`drop function transactions_write_record()`.execute(db);
    await sql`drop function transaction_record(transactions)`.execute(db);
    await sql`alter table transactions drop column record`.execute(db);
  },
};
