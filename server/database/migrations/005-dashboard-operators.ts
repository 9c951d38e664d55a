import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

// The partner dashboard's people and sessions (openapi/dashboard/dashboard.yaml), and who
// decided each transfer.
//
// - operators: a person of an organization with a username (unique ignoring case across all
//   organizations: the login form asks for no organization), a scrypt password hash and a role;
//   a disabled operator keeps their row (decisions point at it) and loses their sessions.
// - operator_sessions: a session is stored by the SHA-256 of its cookie value, never the value;
//   it ends at logout (ended_at) or when it expires.
// - transfers.reviewed_by_operator_id: the operator who approved or rejected the transfer;
//   null for a transfer approved by the partner API's execute. rejection_reason: the reason
//   given for REJECTED, and only for it.

export const dashboardOperatorsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
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
      alter table transfers
        add column reviewed_by_operator_id text references operators (id),
        add column rejection_reason text check (char_length(rejection_reason) between 1 and 500),
        add check ((status = 'REJECTED') = (rejection_reason is not null))
    `.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`alter table transfers drop column rejection_reason, drop column reviewed_by_operator_id`.execute(db);
    await sql`drop table operator_sessions`.execute(db);
    await sql`drop table operators`.execute(db);
  },
};
