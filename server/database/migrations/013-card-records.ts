import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

// A card read joins nothing but its own ledger sums
// (server/decisions/0011-ledger-and-card-records-are-stored-as-the-api-shows-them.md):
//
// - cards.record is the card as the API shows it (the Card schema,
//   openapi/components/schemas/Card.yaml) but for its availableBalance, which depends on the day:
//   its holder with the holder's department, and its limits. The database writes it before every
//   insert and update of a card, and again for a holder's cards when the holder or its department
//   changes, as migration 011 does for the ledger's records.
// - card_holders.outstanding_cash_cents is the sum of the holder's outstanding cash (the
//   approvalOutstandingCash rule of server/domain/available-balance.ts: SUCCEEDED CASH that is
//   not a refund and not yet BALANCE_SETTLED or REJECTED), kept by the database as ledger rows
//   are inserted, updated, deleted or truncated. test/cards/card-usage.test.ts compares it with
//   the rule after each kind of change.
//
// Migration 011 rewrote a holder's ledger records on any change of the holder's row; it now does
// so only when what a record shows changes, not when the holder's outstanding cash moves.

const HOLDER_SHOWN = sql.raw(
  '(old.full_name, old.user_external_id_one, old.user_external_id_two, old.user_external_id_three, old.department_id)',
);
const HOLDER_SHOWN_NOW = sql.raw(
  '(new.full_name, new.user_external_id_one, new.user_external_id_two, new.user_external_id_three, new.department_id)',
);

/** Migration 011's trigger, as it was and as it becomes. */
const HOLDER_RECORDS_TRIGGER = sql`
  create trigger card_holders_rewrite_records after update on card_holders
  for each row when (old is distinct from new) execute function card_holders_rewrite_records()
`;
const HOLDER_RECORDS_TRIGGER_WHEN_SHOWN = sql`
  create trigger card_holders_rewrite_records after update on card_holders
  for each row when (${HOLDER_SHOWN} is distinct from ${HOLDER_SHOWN_NOW}) execute function card_holders_rewrite_records()
`;

/** Migration 002's index, which the card read's sum of outstanding cash used. */
const OUTSTANDING_CASH_INDEX = sql`
  create index transactions_outstanding_cash_idx
    on transactions (person_id)
    include (amount_cents)
    where method = 'CASH' and status = 'SUCCEEDED' and not refund
      and (review_status is null or review_status not in ('BALANCE_SETTLED', 'REJECTED'))
`;

export const cardRecordsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`drop trigger card_holders_rewrite_records on card_holders`.execute(db);
    await HOLDER_RECORDS_TRIGGER_WHEN_SHOWN.execute(db);

    // The card as the API shows it: the external ids the CardHolder schema leaves out when unset
    // are left out (jsonb's `||` adds them only when set), the department is null when there is none.
    await sql`alter table cards add column record json`.execute(db);
    await sql`
      create function card_record(c cards) returns json
      language sql stable
      as $$
        select (
          jsonb_build_object(
            'id', c.id,
            'nickname', c.nickname,
            'last4', c.last4,
            'cardHolder', jsonb_build_object(
              'id', h.id,
              'fullName', h.full_name,
              'department', case when d.id is null then null else jsonb_build_object('id', d.id, 'name', d.name) end
            ) || jsonb_strip_nulls(jsonb_build_object(
              'userExternalIdOne', h.user_external_id_one,
              'userExternalIdTwo', h.user_external_id_two,
              'userExternalIdThree', h.user_external_id_three
            )),
            'limits', jsonb_build_object(
              'daily', c.daily_limit,
              'monthly', c.monthly_limit,
              'atm', c.atm_limit,
              'approvalBased', c.approval_based_limit
            )
          )
        )::json
        from card_holders h left join departments d on d.id = h.department_id
        where h.id = c.card_holder_id
      $$
    `.execute(db);
    await sql`
      create function cards_write_record() returns trigger
      language plpgsql
      as $$
      begin
        new.record := card_record(new);
        return new;
      end
      $$
    `.execute(db);
    await sql`
      create trigger cards_write_record before insert or update on cards
      for each row execute function cards_write_record()
    `.execute(db);
    await sql`
      create function card_holders_rewrite_card_records() returns trigger
      language plpgsql
      as $$
      begin
        update cards c set record = card_record(c) where c.card_holder_id = new.id;
        return null;
      end
      $$
    `.execute(db);
    await sql`
      create trigger card_holders_rewrite_card_records after update on card_holders
      for each row when (${HOLDER_SHOWN} is distinct from ${HOLDER_SHOWN_NOW}) execute function card_holders_rewrite_card_records()
    `.execute(db);
    await sql`
      create function departments_rewrite_card_records() returns trigger
      language plpgsql
      as $$
      begin
        update cards c set record = card_record(c)
        where c.card_holder_id in (select h.id from card_holders h where h.department_id = new.id);
        return null;
      end
      $$
    `.execute(db);
    await sql`
      create trigger departments_rewrite_card_records after update on departments
      for each row when (old is distinct from new) execute function departments_rewrite_card_records()
    `.execute(db);
    await sql`update cards set record = null`.execute(db);
    await sql`alter table cards alter column record set not null`.execute(db);

    // The holder's outstanding cash, kept as the ledger changes.
    await sql`alter table card_holders add column outstanding_cash_cents bigint not null default 0
      check (outstanding_cash_cents >= 0)`.execute(db);
    await sql`
      create function outstanding_cash_of(t transactions) returns bigint
      language sql immutable
      as $$
        select case
          when t.method = 'CASH' and t.status = 'SUCCEEDED' and not t.refund
            and (t.review_status is null or t.review_status not in ('BALANCE_SETTLED', 'REJECTED'))
          then t.amount_cents else 0 end
      $$
    `.execute(db);
    await sql`
      create function transactions_count_outstanding_cash() returns trigger
      language plpgsql
      as $$
      begin
        if tg_op in ('UPDATE', 'DELETE') then
          update card_holders set outstanding_cash_cents = outstanding_cash_cents - outstanding_cash_of(old)
          where id = old.person_id and outstanding_cash_of(old) <> 0;
        end if;
        if tg_op in ('INSERT', 'UPDATE') then
          update card_holders set outstanding_cash_cents = outstanding_cash_cents + outstanding_cash_of(new)
          where id = new.person_id and outstanding_cash_of(new) <> 0;
        end if;
        return null;
      end
      $$
    `.execute(db);
    // Only the rows that count (or counted) reach the function: a bulk load of settled records
    // costs no more than before.
    await sql`
      create trigger transactions_count_outstanding_cash_insert after insert on transactions
      for each row when (outstanding_cash_of(new) <> 0) execute function transactions_count_outstanding_cash()
    `.execute(db);
    await sql`
      create trigger transactions_count_outstanding_cash_update after update on transactions
      for each row when (outstanding_cash_of(old) <> 0 or outstanding_cash_of(new) <> 0)
      execute function transactions_count_outstanding_cash()
    `.execute(db);
    await sql`
      create trigger transactions_count_outstanding_cash_delete after delete on transactions
      for each row when (outstanding_cash_of(old) <> 0) execute function transactions_count_outstanding_cash()
    `.execute(db);
    await sql`
      create function transactions_forget_outstanding_cash() returns trigger
      language plpgsql
      as $$
      begin
        update card_holders set outstanding_cash_cents = 0 where outstanding_cash_cents <> 0;
        return null;
      end
      $$
    `.execute(db);
    await sql`
      create trigger transactions_forget_outstanding_cash after truncate on transactions
      for each statement execute function transactions_forget_outstanding_cash()
    `.execute(db);
    await sql`
      update card_holders h set outstanding_cash_cents = cash.cents
      from (
        select t.person_id, sum(outstanding_cash_of(t)) as cents
        from transactions t where outstanding_cash_of(t) <> 0 group by t.person_id
      ) cash
      where h.id = cash.person_id
    `.execute(db);
    await sql`drop index transactions_outstanding_cash_idx`.execute(db);
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await OUTSTANDING_CASH_INDEX.execute(db);
    await sql`drop trigger transactions_forget_outstanding_cash on transactions`.execute(db);
    await sql`drop function transactions_forget_outstanding_cash()`.execute(db);
    for (const event of ['insert', 'update', 'delete']) {
      await sql`drop trigger ${sql.id(`transactions_count_outstanding_cash_${event}`)} on transactions`.execute(db);
    }
    await sql`drop function transactions_count_outstanding_cash()`.execute(db);
    await sql`drop function outstanding_cash_of(transactions)`.execute(db);
    await sql`alter table card_holders drop column outstanding_cash_cents`.execute(db);

    await sql`drop trigger departments_rewrite_card_records on departments`.execute(db);
    await sql`drop function departments_rewrite_card_records()`.execute(db);
    await sql`drop trigger card_holders_rewrite_card_records on card_holders`.execute(db);
    await sql`drop function card_holders_rewrite_card_records()`.execute(db);
    await sql`drop trigger cards_write_record on cards`.execute(db);
    await sql`drop function cards_write_record()`.execute(db);
    await sql`drop function card_record(cards)`.execute(db);
    await sql`alter table cards drop column record`.execute(db);

    await sql`drop trigger card_holders_rewrite_records on card_holders`.execute(db);
    await HOLDER_RECORDS_TRIGGER.execute(db);
  },
};
