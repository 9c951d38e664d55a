import { sql } from 'kysely';
import type { Expression, Kysely, RawBuilder } from 'kysely';
import type { Migration } from 'kysely/migration';

// The rules on a single column of the tables every money movement writes become domains: the
// same rule, on the column's type instead of the table. PostgreSQL rebuilds a table's check
// constraints from their stored text, and plans them again, in every statement that writes a row
// of the table; a domain's checks are read once a connection and kept
// (server/decisions/0010-money-is-integer-cents-its-rules-postgresql-domains.md).
// A value outside a domain fails its statement with the same SQLSTATE as a check constraint
// (23514, check_violation), and the columns read back as their base types (bigint and text).
//
// The rules on two columns stay check constraints of transfers (a PROCESSING transfer has a
// settle_after; a REJECTED one, and only it, a rejection_reason).
//
// A transfer's client must be a client of the transfer's organization: one foreign key on both
// columns replaces the two that checked each alone (the organization exists because its client
// does), so a create checks one row where it checked two, and a transfer can no longer name
// another organization's client. idempotency_keys' last check compared two columns that are both
// NOT NULL since migration 004, so it held for every row; it is dropped.
//
// Changing a column's type to a domain rewrites the table (PostgreSQL checks every row against
// the domain as it does), so this migration holds transfers and organizations for as long as
// that takes.

/**
 * Each column that takes a domain: the domain's name and base type, its rule (on `value` in the
 * domain, on the column in the check constraint it replaces) and that constraint's name
 * (migrations 001 and 005). Written out, so that this migration stays what it was when it ran.
 */
const COLUMNS: readonly {
  table: string;
  column: string;
  domain: string;
  type: RawBuilder<unknown>;
  rule: (subject: Expression<unknown>) => RawBuilder<unknown>;
  constraint: string;
}[] = [
  {
    table: 'transfers',
    column: 'amount_cents',
    domain: 'transfer_amount_cents',
    type: sql`bigint`,
    rule: (subject) => sql`${subject} between 1 and 99999999999`,
    constraint: 'transfers_amount_cents_check',
  },
  {
    table: 'transfers',
    column: 'currency',
    domain: 'transfer_currency',
    type: sql`text`,
    rule: (subject) => sql`${subject} = 'EGP'`,
    constraint: 'transfers_currency_check',
  },
  {
    table: 'transfers',
    column: 'status',
    domain: 'transfer_status',
    type: sql`text`,
    rule: (subject) => sql`${subject} in ('PENDING', 'CANCELLED', 'REJECTED', 'PROCESSING', 'FAILED', 'SUCCEEDED')`,
    constraint: 'transfers_status_check',
  },
  {
    table: 'transfers',
    column: 'rejection_reason',
    domain: 'rejection_reason',
    type: sql`text`,
    rule: (subject) => sql`char_length(${subject}) between 1 and 500`,
    constraint: 'transfers_rejection_reason_check',
  },
  {
    table: 'organizations',
    column: 'balance_cents',
    domain: 'available_balance_cents',
    type: sql`bigint`,
    rule: (subject) => sql`${subject} >= 0`,
    constraint: 'organizations_balance_cents_check',
  },
];

/** COLUMNS by their table. */
function byTable(): Map<string, (typeof COLUMNS)[number][]> {
  const tables = new Map<string, (typeof COLUMNS)[number][]>();
  for (const column of COLUMNS) tables.set(column.table, [...(tables.get(column.table) ?? []), column]);
  return tables;
}

export const moneyDomainsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    for (const { domain, type, rule } of COLUMNS) {
      await sql`create domain ${sql.id(domain)} as ${type} check (${rule(sql`value`)})`.execute(db);
    }
    // One statement a table: each ALTER TABLE that changes a column's type rewrites the table once.
    for (const [table, columns] of byTable()) {
      const changes = columns.map(
        ({ column, domain, constraint }) =>
          sql`drop constraint ${sql.id(constraint)}, alter column ${sql.id(column)} type ${sql.id(domain)}`,
      );
      await sql`alter table ${sql.table(table)} ${sql.join(changes)}`.execute(db);
    }

    await sql`alter table clients add constraint clients_organization_id_id_key unique (organization_id, id)`.execute(
      db,
    );
    // The unique index serves every lookup by organization that this one served.
    await sql`drop index clients_organization_idx`.execute(db);
    await sql`
      alter table transfers
        drop constraint transfers_organization_id_fkey,
        drop constraint transfers_client_id_fkey,
        add constraint transfers_client_of_organization_fkey
          foreign key (organization_id, client_id) references clients (organization_id, id)
    `.execute(db);

    await sql`alter table idempotency_keys drop constraint idempotency_keys_check2`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`alter table idempotency_keys add constraint idempotency_keys_check2 check ((response_status is null) = (response_body is null))`.execute(
      db,
    );

    await sql`
      alter table transfers
        drop constraint transfers_client_of_organization_fkey,
        add constraint transfers_organization_id_fkey foreign key (organization_id) references organizations (id),
        add constraint transfers_client_id_fkey foreign key (client_id) references clients (id)
    `.execute(db);
    await sql`create index clients_organization_idx on clients (organization_id)`.execute(db);
    await sql`alter table clients drop constraint clients_organization_id_id_key`.execute(db);

    for (const [table, columns] of byTable()) {
      const changes = columns.map(
        ({ column, type, rule, constraint }) =>
          sql`alter column ${sql.id(column)} type ${type}, add constraint ${sql.id(constraint)} check (${rule(sql.id(column))})`,
      );
      await sql`alter table ${sql.table(table)} ${sql.join(changes)}`.execute(db);
    }
    for (const { domain } of COLUMNS) await sql`drop domain ${sql.id(domain)}`.execute(db);
  },
};
