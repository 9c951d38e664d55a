import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

// The schema, as plain SQL that PGlite and PostgreSQL both run unchanged
// (server/decisions/0001-one-sql-on-the-embedded-database-or-postgresql.md).
//
// - Money is integer cents in bigint; record times are Unix milliseconds in bigint.
// - Bounds that the OpenAPI document fixes are also checks in the database, so that a bug in a
//   layer above cannot store an impossible value. The rules on a single column of the tables every
//   money movement writes (transfers, organizations) are domains; the others are check constraints
//   (server/decisions/0010-money-is-integer-cents-its-rules-postgresql-domains.md). Either rejects
//   a value with SQLSTATE 23514 (check_violation), and a domain's column reads back as its base type.
// - Ledger records and cards are stored as the API shows them, written by the database
//   (server/decisions/0011-ledger-and-card-records-are-stored-as-the-api-shows-them.md).
//
// The statements stay inside up() and down(): scripts/proof/database.ts keys its cached template
// databases on the text of these functions.

export const baselineMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    // The money rules, as domains.
    await sql`create domain transfer_amount_cents as bigint check (value between 1 and 99999999999)`.execute(db);
    await sql`create domain transfer_currency as text check (value = 'EGP')`.execute(db);
    await sql`
      create domain transfer_status as text
        check (value in ('PENDING', 'CANCELLED', 'REJECTED', 'PROCESSING', 'FAILED', 'SUCCEEDED'))
    `.execute(db);
    await sql`create domain rejection_reason as text check (char_length(value) between 1 and 500)`.execute(db);
    await sql`create domain available_balance_cents as bigint check (value >= 0)`.execute(db);

    await sql`
      create table organizations (
        id text primary key,
        name text not null,
        -- the available balance: start - sum(SUCCEEDED) - sum(PROCESSING); execute reserves with
        -- a conditional update, and the domain (never negative) is the last line of defence
        -- against spending the same cents twice (README, "Design")
        balance_cents available_balance_cents not null,
        created_at bigint not null
      )
    `.execute(db);

    await sql`
      create table clients (
        id text primary key,
        organization_id text not null references organizations (id),
        secret_hash text not null,
        scopes text[] not null,
        created_at bigint not null,
        -- every token of the client issued before this time (Unix ms) is rejected; null: none
        -- revoked (a client that no longer exists is rejected too)
        tokens_not_before bigint,
        -- the key a transfer names its client by (transfers_client_of_organization_fkey); it also
        -- serves every lookup of an organization's clients
        constraint clients_organization_id_id_key unique (organization_id, id)
      )
    `.execute(db);

    await sql`
      create table client_keys (
        id text primary key,
        client_id text not null references clients (id),
        public_key_pem text not null,
        active boolean not null default true,
        created_at bigint not null,
        deactivated_at bigint
      )
    `.execute(db);
    await sql`create index client_keys_active_idx on client_keys (client_id) where active`.execute(db);

    await sql`
      create table service_secrets (
        name text primary key,
        value text not null,
        created_at bigint not null
      )
    `.execute(db);

    // No foreign key: failures are counted for unknown client ids too, so that unknown and known
    // ids get the same responses, 429 included.
    await sql`
      create table auth_failures (
        client_id text primary key,
        window_start bigint not null,
        failures integer not null check (failures >= 0)
      )
    `.execute(db);

    // A key is stored only together with its response, in the transaction of the write it responds
    // to: a key row always holds a response, and a request in flight holds the key's advisory lock
    // instead of a row (server/decisions/0012-idempotency-keys-are-stored-with-their-response-in-the-write.md).
    await sql`
      create table idempotency_keys (
        client_id text not null references clients (id),
        key text not null,
        fingerprint text not null,
        response_status integer not null,
        -- the response's JSON text exactly as first sent: text, not jsonb, which would reorder
        -- keys, so that a replay is byte for byte the original
        response_body text not null,
        created_at bigint not null,
        primary key (client_id, key)
      )
    `.execute(db);
    await sql`create index idempotency_keys_created_idx on idempotency_keys (created_at)`.execute(db);

    // A statement sent with its transaction's commit must fail, rather than succeed, when it cannot
    // do its part, so that nothing commits (server/decisions/0004-a-write-sends-one-statement-with-its-commit.md).
    // SQL has no statement that raises an error, so these functions do.
    //
    // idempotency_key_taken(outcome): raised by the statement that stores a response when its key
    // is taken; SQLSTATE PK001 (IDEMPOTENCY_KEY_TAKEN in server/store/idempotency.ts), the outcome
    // as its detail.
    await sql`
      create function idempotency_key_taken(outcome text) returns boolean
      language plpgsql volatile
      as $$
      begin
        raise exception 'idempotency key %', outcome using errcode = 'PK001', detail = outcome;
      end
      $$
    `.execute(db);
    // condition_holds(held, condition): true when held is, and otherwise raises SQLSTATE PK002
    // (CONDITION_NOT_MET in server/database/at-commit.ts) with the condition as its detail.
    await sql`
      create function condition_holds(held boolean, condition text) returns boolean
      language plpgsql volatile
      as $$
      begin
        if held then
          return true;
        end if;
        raise exception 'condition not met: %', condition using errcode = 'PK002', detail = condition;
      end
      $$
    `.execute(db);

    // The partner dashboard's people (openapi/dashboard/dashboard.yaml): a username unique ignoring
    // case across all organizations (the login form asks for no organization), a scrypt password
    // hash and a role. A disabled operator keeps their row (decisions point at it) and loses their
    // sessions.
    await sql`
      create table operators (
        id text primary key,
        organization_id text not null references organizations (id),
        username text not null check (char_length(username) between 3 and 100),
        password_hash text not null,
        role text not null check (role in ('viewer', 'approver')),
        created_at bigint not null,
        disabled_at bigint
      )
    `.execute(db);
    await sql`create unique index operators_username_idx on operators (lower(username))`.execute(db);
    await sql`create index operators_organization_idx on operators (organization_id)`.execute(db);

    // A session is stored by the SHA-256 of its cookie value, never the value; it ends at logout
    // (ended_at) or when it expires.
    await sql`
      create table operator_sessions (
        token_hash text primary key,
        operator_id text not null references operators (id),
        created_at bigint not null,
        expires_at bigint not null,
        ended_at bigint
      )
    `.execute(db);
    await sql`create index operator_sessions_operator_idx on operator_sessions (operator_id)`.execute(db);
    await sql`create index operator_sessions_expires_idx on operator_sessions (expires_at)`.execute(db);

    await sql`
      create table transfers (
        id text primary key,
        organization_id text not null,
        client_id text not null,
        idempotency_key text not null,
        amount_cents transfer_amount_cents not null,
        currency transfer_currency not null,
        status transfer_status not null,
        category text not null,
        submission_date bigint not null,
        reviewed_at bigint,
        cancelled_at bigint,
        settle_after bigint,
        settled_at bigint,
        bank_id text not null,
        account_number text not null,
        account_name text not null,
        memo text,
        note text,
        -- the operator who approved or rejected it in the dashboard; null when undecided or
        -- approved by the partner API's execute
        reviewed_by_operator_id text references operators (id),
        rejection_reason rejection_reason,
        -- the transfer's client is a client of the transfer's organization (which therefore exists)
        constraint transfers_client_of_organization_fkey
          foreign key (organization_id, client_id) references clients (organization_id, id),
        -- a PROCESSING transfer has the time it is due for settlement
        constraint transfers_check check (status <> 'PROCESSING' or settle_after is not null),
        -- a REJECTED transfer, and only it, has the reason given
        constraint transfers_check1 check ((status = 'REJECTED') = (rejection_reason is not null))
      )
    `.execute(db);
    // The list order of listTransfers: newest first, ties by id, keyset pagination.
    await sql`
      create index transfers_list_idx on transfers (organization_id, submission_date desc, id desc)
    `.execute(db);
    // The dashboard's list, pending first (listTransfersPendingFirst, server/store/transfers.ts): a
    // page is a walk of this index from the cursor, never a sort of the organization's transfers.
    // The expression is the list's own, written the same way (PENDING_FIRST_OFFSET is 2^52): the
    // planner uses an index on an expression only when the query's expression is the same.
    await sql`
      create index transfers_pending_first_idx on transfers (
        organization_id,
        (case when status = 'PENDING' then submission_date + 4503599627370496::bigint else submission_date end) desc,
        id desc
      )
    `.execute(db);
    // The settlement worker's queue: only PROCESSING rows, by due time.
    await sql`create index transfers_due_idx on transfers (settle_after) where status = 'PROCESSING'`.execute(db);

    await sql`
      create table departments (
        id text primary key,
        organization_id text not null references organizations (id),
        name text not null
      )
    `.execute(db);
    await sql`create index departments_organization_idx on departments (organization_id)`.execute(db);

    await sql`
      create table card_holders (
        id text primary key,
        organization_id text not null references organizations (id),
        full_name text not null,
        user_external_id_one text,
        user_external_id_two text,
        user_external_id_three text,
        department_id text references departments (id),
        -- the sum of the holder's outstanding cash (the approvalOutstandingCash rule of
        -- server/domain/available-balance.ts), kept by the ledger's triggers below
        outstanding_cash_cents bigint not null default 0 check (outstanding_cash_cents >= 0)
      )
    `.execute(db);
    await sql`create index card_holders_organization_idx on card_holders (organization_id)`.execute(db);
    // The ledger's department filter resolves departments to their people first.
    await sql`create index card_holders_department_idx on card_holders (department_id)`.execute(db);

    // Limits hold the stored state, so the ranges are those of SetCardLimitsRequest: 0 to the maximum.
    await sql`
      create table cards (
        id text primary key,
        organization_id text not null references organizations (id),
        card_holder_id text not null references card_holders (id),
        nickname text not null,
        last4 text,
        daily_limit bigint not null check (daily_limit between 0 and 100000000),
        monthly_limit bigint not null check (monthly_limit between 0 and 300000000),
        atm_limit bigint not null check (atm_limit between 0 and 300000000),
        approval_based_limit bigint check (approval_based_limit between 0 and 99999999999),
        created_at bigint not null,
        -- the card as the API shows it (the Card schema), written by card_record() below
        record json not null
      )
    `.execute(db);
    await sql`create index cards_list_idx on cards (organization_id, created_at desc, id desc)`.execute(db);
    await sql`create index cards_holder_idx on cards (card_holder_id)`.execute(db);

    // The card as the API shows it (openapi/components/schemas/Card.yaml) but for its
    // availableBalance, which depends on the day: its holder with the holder's department, and its
    // limits. The external ids the CardHolder schema leaves out when unset are left out (jsonb's
    // `||` adds them only when set); the department is null when there is none. `json`, not
    // `jsonb`: its text is stored as written and sent as it is.
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
    // The database keeps each card's record, whoever writes: it is computed before every insert
    // and update of a card, and again for a holder's cards when what the card shows of the holder
    // or of the holder's department changes.
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
      for each row when (
        (old.full_name, old.user_external_id_one, old.user_external_id_two, old.user_external_id_three, old.department_id)
        is distinct from
        (new.full_name, new.user_external_id_one, new.user_external_id_two, new.user_external_id_three, new.department_id)
      )
      execute function card_holders_rewrite_card_records()
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

    // The ledger. The amounts and dates a record shows are held to the Transaction schema's bounds
    // where they are written, so that no client meets a number it cannot hold.
    await sql`
      create table transactions (
        id text primary key,
        organization_id text not null references organizations (id),
        card_id text references cards (id),
        person_id text not null references card_holders (id),
        authorization_date bigint not null,
        merchant text not null,
        method text not null,
        category text not null,
        review_status text,
        status text not null,
        currency text not null,
        amount_cents bigint not null,
        tags jsonb not null default '[]'::jsonb,
        note text,
        description text,
        refund boolean not null,
        authorization_code text,
        last4 text,
        cleared boolean not null,
        -- the record as the API shows it (the Transaction schema), written by transaction_record() below
        record json not null,
        constraint transactions_amount_cents_shown check (amount_cents between 1 and 99999999999),
        constraint transactions_authorization_date_shown check (authorization_date between 0 and 9007199254740991)
      )
    `.execute(db);
    // The list order of listTransactions: newest first, ties by id. A page walks it from the
    // cursor and stops after its limit of matches, which is quick whenever the filters match often.
    await sql`
      create index transactions_list_idx on transactions (organization_id, authorization_date desc, id desc)
    `.execute(db);
    // A card's usage in the current day and month (availableBalance).
    await sql`
      create index transactions_card_usage_idx on transactions (card_id, authorization_date)
        where card_id is not null
    `.execute(db);
    // One index per equality filter of listTransactions, for values that match rarely, where the
    // walk of the list order would read most of the ledger to fill one page: the planner takes a
    // bitmap of the value's few rows and a top-N sort. Two columns only: their keys repeat, so
    // PostgreSQL's b-tree deduplication keeps them small (test/transactions/query-plans.test.ts
    // checks the plans). transactions_person_idx serves the department filter, which matches the
    // people of the departments (card_holders_department_idx). The merchant filter is a
    // case-insensitive substring, which no b-tree serves (and pg_trgm is not on every database this
    // runs on): the store finds the organization's distinct merchant names containing the text by a
    // skip scan of transactions_merchant_idx, then lists `merchant in (those names)`.
    await sql`create index transactions_category_idx on transactions (organization_id, category)`.execute(db);
    await sql`create index transactions_status_idx on transactions (organization_id, status)`.execute(db);
    await sql`create index transactions_review_status_idx on transactions (organization_id, review_status)`.execute(db);
    await sql`create index transactions_merchant_idx on transactions (organization_id, merchant)`.execute(db);
    await sql`create index transactions_person_idx on transactions (person_id)`.execute(db);

    // A category's display label (the Transaction schema's categoryLabel). The labels are copied
    // here rather than read from server/domain/categories.ts, so that this migration stays what it
    // was when it ran; test/store/store.test.ts compares category_label() with the domain's labels,
    // so a label changed there needs a migration that changes this function and rewrites the records.
    const categoryLabels = {
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
    await sql`
      create function category_label(category text) returns text
      language sql immutable
      as $$ select ${sql.lit(JSON.stringify(categoryLabels))}::jsonb ->> category $$
    `.execute(db);

    // The ledger record exactly as the API shows it (openapi/components/schemas/Transaction.yaml):
    // a page or a read sends the stored text as it is, with nothing parsed or printed on the way.
    // The texts the schema leaves out when unset are left out, not null (jsonb builds the object:
    // `||` adds them only when set, and the stored json is its text).
    await sql`
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
    `.execute(db);
    // The database keeps each ledger record, whoever writes: it is computed before every insert
    // and update of a ledger row, and written again for the holder's rows when what a record shows
    // of the holder or of the holder's department changes (not when the holder's outstanding cash
    // moves).
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
      for each row when (
        (old.full_name, old.user_external_id_one, old.user_external_id_two, old.user_external_id_three, old.department_id)
        is distinct from
        (new.full_name, new.user_external_id_one, new.user_external_id_two, new.user_external_id_three, new.department_id)
      )
      execute function card_holders_rewrite_records()
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

    // The holder's outstanding cash (card_holders.outstanding_cash_cents), kept as ledger rows are
    // inserted, updated, deleted or truncated: a row counts its amount while it is SUCCEEDED CASH
    // that is not a refund and not yet BALANCE_SETTLED or REJECTED (the approvalOutstandingCash
    // rule of server/domain/available-balance.ts; test/cards/card-usage.test.ts compares the two).
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
    // Only the rows that count (or counted) reach the function, so a bulk load of settled records
    // pays nothing for it.
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
    // TRUNCATE names no rows: with the ledger empty, no holder has outstanding cash.
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
  },

  // Drops everything up() made. A table takes its indexes, keys and triggers with it, but the
  // functions that take a table's row depend on that table, and the ledger's outstanding-cash
  // triggers on outstanding_cash_of(): those triggers and functions go first.
  async down(db: Kysely<unknown>): Promise<void> {
    for (const event of ['insert', 'update', 'delete']) {
      await sql`drop trigger ${sql.id(`transactions_count_outstanding_cash_${event}`)} on transactions`.execute(db);
    }
    await sql`
      drop function outstanding_cash_of(transactions), transaction_record(transactions), card_record(cards)
    `.execute(db);
    await sql`
      drop table transactions, cards, card_holders, departments, transfers, operator_sessions, operators,
        idempotency_keys, auth_failures, service_secrets, client_keys, clients, organizations
    `.execute(db);
    await sql`
      drop function transactions_forget_outstanding_cash(), transactions_count_outstanding_cash(),
        departments_rewrite_records(), card_holders_rewrite_records(), transactions_write_record(),
        category_label(text), departments_rewrite_card_records(), card_holders_rewrite_card_records(),
        cards_write_record(), condition_holds(boolean, text), idempotency_key_taken(text)
    `.execute(db);
    await sql`
      drop domain available_balance_cents, rejection_reason, transfer_status, transfer_currency, transfer_amount_cents
    `.execute(db);
  },
};
