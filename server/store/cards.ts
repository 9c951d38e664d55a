/**
 * Cards, their holders and departments (the Card, CardHolder and Department schemas), and the one
 * aggregate query that feeds `availableBalance`. Every read is scoped to the organization: another
 * organization's card is as absent as an unknown one.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import {
  SETTLED_CASH_REVIEW_STATUSES,
  type ApprovalUsage,
  type CairoPeriods,
  type CardUsage,
} from '../domain/available-balance.js';
import type { Limits } from '../domain/card-limits.js';
import type { CursorPosition } from '../domain/cursor.js';
import { int8FromJson } from './connection.js';
import type { DB, NewCardHolderRow, NewCardRow, NewDepartmentRow } from './schema.js';

export interface DepartmentRecord {
  readonly id: string;
  readonly name: string;
}

export interface CardHolderRecord {
  readonly id: string;
  readonly fullName: string;
  readonly userExternalIdOne: string | null;
  readonly userExternalIdTwo: string | null;
  readonly userExternalIdThree: string | null;
  readonly department: DepartmentRecord | null;
}

export interface CardRecord {
  readonly id: string;
  readonly nickname: string;
  /** Null while the card is not activated. */
  readonly last4: string | null;
  readonly limits: Limits;
  readonly createdAt: number;
  readonly holder: CardHolderRecord;
}

/** The usage figures of available-balance.ts for one card. */
export interface CardUsageFigures {
  readonly usage: CardUsage;
  readonly approval: ApprovalUsage;
}

/** Rows as read by `cardQuery`; also the holder part of a transaction's person. */
export interface HolderColumns {
  holder_id: string;
  holder_full_name: string;
  holder_external_id_one: string | null;
  holder_external_id_two: string | null;
  holder_external_id_three: string | null;
  department_id: string | null;
  department_name: string | null;
}

/** The columns `holderOf` reads, for any query joining `card_holders as h` and `departments as d`. */
export const HOLDER_SELECTION = [
  'h.id as holder_id',
  'h.full_name as holder_full_name',
  'h.user_external_id_one as holder_external_id_one',
  'h.user_external_id_two as holder_external_id_two',
  'h.user_external_id_three as holder_external_id_three',
  'd.id as department_id',
  'd.name as department_name',
] as const;

export function holderOf(row: HolderColumns): CardHolderRecord {
  return {
    id: row.holder_id,
    fullName: row.holder_full_name,
    userExternalIdOne: row.holder_external_id_one,
    userExternalIdTwo: row.holder_external_id_two,
    userExternalIdThree: row.holder_external_id_three,
    department:
      row.department_id !== null && row.department_name !== null ? { id: row.department_id, name: row.department_name } : null,
  };
}

function cardQuery(db: Kysely<DB>, organizationId: string) {
  return db
    .selectFrom('cards as c')
    .innerJoin('card_holders as h', 'h.id', 'c.card_holder_id')
    .leftJoin('departments as d', 'd.id', 'h.department_id')
    .where('c.organization_id', '=', organizationId)
    .select([
      'c.id',
      'c.nickname',
      'c.last4',
      'c.daily_limit',
      'c.monthly_limit',
      'c.atm_limit',
      'c.approval_based_limit',
      'c.created_at',
      ...HOLDER_SELECTION,
    ]);
}

type CardQueryRow = HolderColumns & {
  id: string;
  nickname: string;
  last4: string | null;
  daily_limit: number;
  monthly_limit: number;
  atm_limit: number;
  approval_based_limit: number | null;
  created_at: number;
};

/** Its integers checked: the row may have come inside a JSON value (cardWithUsageQuery's readers). */
function cardOf(row: CardQueryRow): CardRecord {
  return {
    id: row.id,
    nickname: row.nickname,
    last4: row.last4,
    limits: {
      daily: int8FromJson(row.daily_limit, 'cards.daily_limit'),
      monthly: int8FromJson(row.monthly_limit, 'cards.monthly_limit'),
      atm: int8FromJson(row.atm_limit, 'cards.atm_limit'),
      approvalBased: row.approval_based_limit === null ? null : int8FromJson(row.approval_based_limit, 'cards.approval_based_limit'),
    },
    createdAt: int8FromJson(row.created_at, 'cards.created_at'),
    holder: holderOf(row),
  };
}

/** A card with the usage figures of its availableBalance, read in the same statement. */
export interface CardWithUsage {
  readonly card: CardRecord;
  readonly figures: CardUsageFigures;
}

/**
 * Up to `take` cards of the organization with their usage in `periods`, newest first
 * (created_at desc, ties by id desc), strictly after the keyset position `after`. Served by
 * cards_list_idx; one statement for the page and its balances.
 */
export async function listCards(
  db: Kysely<DB>,
  options: { organizationId: string; periods: CairoPeriods; after: CursorPosition | undefined; take: number },
): Promise<CardWithUsage[]> {
  const { after } = options;
  const keyset = after === undefined ? sql`` : sql`and (c.created_at, c.id) < (${after.sort}, ${after.id})`;
  const query = cardWithUsageQuery(
    options.organizationId,
    options.periods,
    sql`${keyset} order by c.created_at desc, c.id desc limit ${options.take}`,
  );
  const { rows } = await sql<{ cards: CardWithUsageRow[] }>`
    select coalesce(json_agg(page order by page.created_at desc, page.id desc), '[]') as cards from (${query}) page`.execute(db);
  return (rows[0]?.cards ?? []).map(cardWithUsageOf);
}

/** The organization's card with its usage in `periods`, in one statement; undefined when unknown or foreign. */
export async function findCardWithUsage(
  db: Kysely<DB>,
  organizationId: string,
  cardId: string,
  periods: CairoPeriods,
): Promise<CardWithUsage | undefined> {
  const query = cardWithUsageQuery(organizationId, periods, sql`and c.id = ${cardId}`);
  const { rows } = await sql<{ card: CardWithUsageRow }>`select to_json(card) as card from (${query}) card`.execute(db);
  return rows[0] === undefined ? undefined : cardWithUsageOf(rows[0].card);
}

/**
 * Reads the card and locks its row until the caller's transaction ends, so that concurrent limit
 * changes of one card run one after the other and none is lost (as updateCardLimits promises).
 * Must run inside a transaction.
 */
export async function lockCard(db: Kysely<DB>, organizationId: string, cardId: string): Promise<CardRecord | undefined> {
  const row = await cardQuery(db, organizationId).where('c.id', '=', cardId).forUpdate('c').executeTakeFirst();
  return row === undefined ? undefined : cardOf(row);
}

/** Writes a card's whole limit state; the caller has locked the row and checked the limits. */
export async function saveCardLimits(db: Kysely<DB>, organizationId: string, cardId: string, limits: Limits): Promise<void> {
  const result = await db
    .updateTable('cards')
    .set({
      daily_limit: limits.daily,
      monthly_limit: limits.monthly,
      atm_limit: limits.atm,
      approval_based_limit: limits.approvalBased,
    })
    .where('id', '=', cardId)
    .where('organization_id', '=', organizationId)
    .executeTakeFirst();
  if (result.numUpdatedRows !== 1n) throw new Error(`saveCardLimits: card ${cardId} was not updated`);
}

/** Review statuses that end a cash item's outstanding life, as SQL literals (the partial index repeats them). */
const SETTLED_CASH = sql.join(SETTLED_CASH_REVIEW_STATUSES.map((status) => sql.lit(status)));

/**
 * The organization's cards with their holders and the usage figures of available-balance.ts
 * (USAGE_RULES), in ONE statement; `rest` narrows, orders and limits (`and …`). Per card, two
 * lateral aggregates: one over its own SUCCEEDED, non-refund CARD and ATM transactions of the
 * current Cairo month (the day is inside the month, so `filter` picks the day's share), and one
 * over its holder's outstanding CASH transactions. Each is an index range scan
 * (transactions_card_usage_idx, transactions_outstanding_cash_idx): the ledger is never loaded.
 *
 * The predicates must select exactly what `countsFor` accepts; test/cards compares the two.
 * Literals are inlined (not parameters) so that the planner can match the partial index.
 * Tenancy: the cards are the organization's, and a card's (or its holder's) transactions are
 * that organization's ledger, so the sums need no organization column of their own.
 * Written as SQL text rather than with the query builder: it is the card read's whole work,
 * and building it node by node cost more than running it (about 40 µs a request).
 * `sum()` of bigints is numeric: absent sums are 0, and all come back as int8.
 *
 * Its readers (findCardWithUsage, listCards) have the database return the rows as one JSON
 * value, as the ledger page does: a driver then parses one value instead of 21 columns, which
 * takes about a fifth off the statement's CPU in the server on either database (a loop of card
 * reads on a seeded organization: PGlite 368 → 296 µs, PostgreSQL 156 → 125 µs).
 */
export function cardWithUsageQuery(organizationId: string, periods: CairoPeriods, rest: RawBuilder<unknown>) {
  return sql<CardWithUsageRow>`
    select c.id, c.nickname, c.last4, c.daily_limit, c.monthly_limit, c.atm_limit, c.approval_based_limit, c.created_at,
      h.id as holder_id, h.full_name as holder_full_name, h.user_external_id_one as holder_external_id_one,
      h.user_external_id_two as holder_external_id_two, h.user_external_id_three as holder_external_id_three,
      d.id as department_id, d.name as department_name,
      coalesce(u.day_card_and_atm, 0)::bigint as day_card_and_atm,
      coalesce(u.month_card_and_atm, 0)::bigint as month_card_and_atm,
      coalesce(u.month_atm, 0)::bigint as month_atm,
      coalesce(u.approval_spent, 0)::bigint as approval_spent,
      coalesce(u.approval_pending, 0)::bigint as approval_pending,
      coalesce(cash.outstanding_cash, 0)::bigint as outstanding_cash
    from cards c
    join card_holders h on h.id = c.card_holder_id
    left join departments d on d.id = h.department_id
    left join lateral (
      select
        sum(t.amount_cents) filter (
          where t.authorization_date >= ${periods.dayStartMs} and t.authorization_date < ${periods.dayEndMs}
        ) as day_card_and_atm,
        sum(t.amount_cents) as month_card_and_atm,
        sum(t.amount_cents) filter (where t.method = 'ATM') as month_atm,
        sum(t.amount_cents) filter (where t.cleared) as approval_spent,
        sum(t.amount_cents) filter (where not t.cleared) as approval_pending
      from transactions t
      where t.card_id = c.id
        and t.status = 'SUCCEEDED' and not t.refund and t.method in ('CARD', 'ATM')
        and t.authorization_date >= ${periods.monthStartMs} and t.authorization_date < ${periods.monthEndMs}
    ) u on true
    left join lateral (
      select sum(t.amount_cents) as outstanding_cash
      from transactions t
      where t.person_id = c.card_holder_id
        and t.method = 'CASH' and t.status = 'SUCCEEDED' and not t.refund
        and (t.review_status is null or t.review_status not in (${SETTLED_CASH}))
    ) cash on true
    where c.organization_id = ${organizationId} ${rest}
  `;
}

type CardWithUsageRow = CardQueryRow & UsageColumns;

interface UsageColumns {
  day_card_and_atm: number;
  month_card_and_atm: number;
  month_atm: number;
  approval_spent: number;
  approval_pending: number;
  outstanding_cash: number;
}

function cardWithUsageOf(row: CardWithUsageRow): CardWithUsage {
  const sum = (value: number, column: string): number => int8FromJson(value, `card usage ${column}`);
  return {
    card: cardOf(row),
    figures: {
      usage: {
        dayCardAndAtm: sum(row.day_card_and_atm, 'day_card_and_atm'),
        monthCardAndAtm: sum(row.month_card_and_atm, 'month_card_and_atm'),
        monthAtm: sum(row.month_atm, 'month_atm'),
      },
      approval: {
        spent: sum(row.approval_spent, 'approval_spent'),
        pending: sum(row.approval_pending, 'approval_pending'),
        outstandingCash: sum(row.outstanding_cash, 'outstanding_cash'),
      },
    },
  };
}

/** Multi-row inserts in batches: one round trip per batch instead of one per row. */
const INSERT_BATCH = 1_000;

async function insertInBatches<T>(rows: readonly T[], insert: (batch: T[]) => Promise<unknown>): Promise<void> {
  for (let start = 0; start < rows.length; start += INSERT_BATCH) {
    await insert(rows.slice(start, start + INSERT_BATCH));
  }
}

export async function insertDepartments(db: Kysely<DB>, rows: readonly NewDepartmentRow[]): Promise<void> {
  await insertInBatches(rows, (batch) => db.insertInto('departments').values(batch).execute());
}

export async function insertCardHolders(db: Kysely<DB>, rows: readonly NewCardHolderRow[]): Promise<void> {
  await insertInBatches(rows, (batch) => db.insertInto('card_holders').values(batch).execute());
}

export async function insertCards(db: Kysely<DB>, rows: readonly NewCardRow[]): Promise<void> {
  await insertInBatches(rows, (batch) => db.insertInto('cards').values(batch).execute());
}

/** The organization's activated cards with their holder, for generating ledger records that belong to them. */
export async function activatedCards(
  db: Kysely<DB>,
  organizationId: string,
): Promise<{ id: string; last4: string; holderId: string }[]> {
  const rows = await db
    .selectFrom('cards')
    .where('organization_id', '=', organizationId)
    .where('last4', 'is not', null)
    .select(['id', 'last4', 'card_holder_id'])
    .orderBy('id')
    .execute();
  return rows.flatMap((row) => (row.last4 === null ? [] : [{ id: row.id, last4: row.last4, holderId: row.card_holder_id }]));
}

export async function cardHolderIds(db: Kysely<DB>, organizationId: string): Promise<string[]> {
  const rows = await db.selectFrom('card_holders').where('organization_id', '=', organizationId).select('id').orderBy('id').execute();
  return rows.map((row) => row.id);
}
