import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

// A write may send the statement that takes a contended row with its transaction's commit
// (at-commit.ts), answering as if the statement does its part; that is safe only if the statement
// fails when it cannot, so that nothing commits. `condition_holds(held, condition)` is true when
// `held` is, and otherwise raises SQLSTATE PK002 with `condition` as its detail (CONDITION_NOT_MET
// in at-commit.ts).

export const conditionHoldsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
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
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`drop function condition_holds(boolean, text)`.execute(db);
  },
};
