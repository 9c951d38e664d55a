import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

// The whole first schema, as plain SQL that PGlite and PostgreSQL both run unchanged.
// Money is integer cents in bigint; record times are Unix milliseconds in bigint.
// Bounds that the OpenAPI document fixes are also check constraints, so that a bug in a
// layer above cannot store an impossible value.

export const initialMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`
      create table organizations (
        id text primary key,
        name text not null,
        -- the available balance; execute reserves with a conditional update, and this check
        -- is the last line of defence against spending the same cents twice (README, "Design")
        balance_cents bigint not null check (balance_cents >= 0),
        created_at bigint not null
      )
    `.execute(db);

    await sql`
      create table clients (
        id text primary key,
        organization_id text not null references organizations (id),
        secret_hash text not null,
        scopes text[] not null,
        created_at bigint not null
      )
    `.execute(db);
    await sql`create index clients_organization_idx on clients (organization_id)`.execute(db);

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

    await sql`
      create table idempotency_keys (
        client_id text not null references clients (id),
        key text not null,
        fingerprint text not null,
        lock_id text,
        locked_at bigint,
        response_status integer,
        -- the answer's JSON text exactly as first sent: text, not jsonb, which would reorder
        -- keys, so that a replay is byte for byte the original
        response_body text,
        created_at bigint not null,
        primary key (client_id, key),
        -- a row is either running (locked) or finished (answer stored), never both
        check ((lock_id is null) = (locked_at is null)),
        check (lock_id is null or response_status is null),
        check ((response_status is null) = (response_body is null))
      )
    `.execute(db);
    await sql`create index idempotency_keys_created_idx on idempotency_keys (created_at)`.execute(db);

    // No foreign key: failures are counted for unknown client ids too, so that unknown and known
    // ids answer alike, 429 included.
    await sql`
      create table auth_failures (
        client_id text primary key,
        window_start bigint not null,
        failures integer not null check (failures >= 0)
      )
    `.execute(db);

    await sql`
      create table transfers (
        id text primary key,
        organization_id text not null references organizations (id),
        client_id text not null references clients (id),
        idempotency_key text not null,
        amount_cents bigint not null check (amount_cents between 1 and 99999999999),
        currency text not null check (currency = 'EGP'),
        status text not null
          check (status in ('PENDING', 'CANCELLED', 'REJECTED', 'PROCESSING', 'FAILED', 'SUCCEEDED')),
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
        check (status <> 'PROCESSING' or settle_after is not null)
      )
    `.execute(db);
    // The list order of listTransfers: newest first, ties by id, keyset pagination.
    await sql`
      create index transfers_list_idx on transfers (organization_id, submission_date desc, id desc)
    `.execute(db);
    // The settlement worker's queue: only PROCESSING rows, by due time.
    await sql`
      create index transfers_due_idx on transfers (settle_after) where status = 'PROCESSING'
    `.execute(db);

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
        department_id text references departments (id)
      )
    `.execute(db);
    await sql`create index card_holders_organization_idx on card_holders (organization_id)`.execute(db);

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
        created_at bigint not null
      )
    `.execute(db);
    await sql`create index cards_list_idx on cards (organization_id, created_at desc, id desc)`.execute(db);

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
        cleared boolean not null
      )
    `.execute(db);
    // The list order of listTransactions: newest first, ties by id.
    await sql`
      create index transactions_list_idx
        on transactions (organization_id, authorization_date desc, id desc)
    `.execute(db);
    // A card's usage in the current day and month (availableBalance).
    await sql`
      create index transactions_card_usage_idx on transactions (card_id, authorization_date)
        where card_id is not null
    `.execute(db);
  },
};
