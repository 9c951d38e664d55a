import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import { organizationVersionsMigration } from './009-organization-versions.js';

// Migration 009's organization versions served only the reads kept between requests, which were
// removed (server/decisions/0014-reads-are-not-kept-between-requests.md). This drops what 009 made: its triggers first (each runs the
// function on every write of the four tables), then the function, the table and the sequence.
// Written out here rather than read from 009, so that this migration stays what it was when it ran.

const WATCHED_TABLES = ['transactions', 'cards', 'card_holders', 'departments'] as const;
const EVENTS = ['insert', 'update', 'delete', 'truncate'] as const;

export const dropOrganizationVersionsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    for (const table of WATCHED_TABLES) {
      for (const event of EVENTS) {
        await sql`drop trigger ${sql.id(`${table}_${event}_moves_organization_version`)} on ${sql.table(table)}`.execute(
          db,
        );
      }
    }
    await sql`drop function move_organization_versions()`.execute(db);
    await sql`drop table organization_versions`.execute(db);
    await sql`drop sequence organization_version_seq`.execute(db);
  },
  // Back to 009's schema; every organization's version starts again at 0, as after 009 itself.
  async down(db: Kysely<unknown>): Promise<void> {
    await organizationVersionsMigration.up(db);
  },
};
