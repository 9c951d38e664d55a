import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

// What a card read and a ledger page show is a function of the organization's cards, card
// holders, departments and ledger (and, for a card's balance, of the day). organization_versions
// holds, per organization, a number that changes in the same transaction as any of those rows:
// triggers on the four tables take a new value from one sequence for every organization a
// statement touched, so a version never comes back, not even after a table is emptied and
// filled again, and a rolled-back change leaves the version as it was (the kept reads, since
// removed, served a read again while its organization's version was the one it was read at).
// Migration 010 drops all of it.
//
// Statement-level triggers with transition tables: one upsert a statement, however many rows it
// wrote (onboarding inserts the ledger 500 rows a statement). TRUNCATE names no rows, so it
// moves every organization's version.

const WATCHED_TABLES = ['transactions', 'cards', 'card_holders', 'departments'] as const;

/** A trigger for each event, as a transition table exists only for the events that have one. */
const TRANSITION_TABLES: Readonly<Record<string, string>> = {
  insert: 'referencing new table as changed_rows_new',
  update: 'referencing old table as changed_rows_old new table as changed_rows_new',
  delete: 'referencing old table as changed_rows_old',
  truncate: '',
};

const triggerName = (table: string, event: string): string => `${table}_${event}_moves_organization_version`;

export const organizationVersionsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`create sequence organization_version_seq`.execute(db);
    await sql`
      create table organization_versions (
        organization_id text primary key references organizations (id) on delete cascade,
        version bigint not null
      )
    `.execute(db);
    await sql`
      create function move_organization_versions() returns trigger
      language plpgsql
      as $$
      begin
        if tg_op = 'TRUNCATE' then
          update organization_versions set version = nextval('organization_version_seq');
          return null;
        end if;
        -- Each branch reads only the transition tables its event has. A row that exists takes its
        -- value once it is locked: a value taken before waiting for another writer's commit could
        -- be older than the one that writer committed, and the version would go back.
        if tg_op = 'INSERT' then
          insert into organization_versions (organization_id, version)
          select organization_id, nextval('organization_version_seq') from (select distinct organization_id from changed_rows_new) touched
          on conflict (organization_id) do update set version = nextval('organization_version_seq');
        elsif tg_op = 'DELETE' then
          insert into organization_versions (organization_id, version)
          select organization_id, nextval('organization_version_seq') from (select distinct organization_id from changed_rows_old) touched
          on conflict (organization_id) do update set version = nextval('organization_version_seq');
        else
          insert into organization_versions (organization_id, version)
          select organization_id, nextval('organization_version_seq')
          from (select organization_id from changed_rows_new union select organization_id from changed_rows_old) touched
          on conflict (organization_id) do update set version = nextval('organization_version_seq');
        end if;
        return null;
      end
      $$
    `.execute(db);
    for (const table of WATCHED_TABLES) {
      for (const [event, transitionTables] of Object.entries(TRANSITION_TABLES)) {
        await sql`
          create trigger ${sql.id(triggerName(table, event))} after ${sql.raw(event)} on ${sql.table(table)}
          ${sql.raw(transitionTables)}
          for each statement execute function move_organization_versions()
        `.execute(db);
      }
    }
  },
  async down(db: Kysely<unknown>): Promise<void> {
    for (const table of WATCHED_TABLES) {
      for (const event of Object.keys(TRANSITION_TABLES)) {
        await sql`drop trigger ${sql.id(triggerName(table, event))} on ${sql.table(table)}`.execute(db);
      }
    }
    await sql`drop function move_organization_versions()`.execute(db);
    await sql`drop table organization_versions`.execute(db);
    await sql`drop sequence organization_version_seq`.execute(db);
  },
};
