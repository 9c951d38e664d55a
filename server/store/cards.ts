/**
 * Cards, their holders and departments (the Card, CardHolder and Department schemas), and the one
 * query that feeds `availableBalance`. Every read is scoped to the organization: another
 * organization's card is as absent as an unknown one.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { ApprovalUsage, CairoPeriods, CardUsage } from '../domain/available-balance.js';
import type { Limits } from '../domain/card-limits.js';
import type { CursorPosition } from '../domain/cursor.js';
import {
  type DB,
  int8FromJson,
  type NewCardHolderRow,
  type NewCardRow,
  type NewDepartmentRow,
} from '../database/index.js';

export interface DepartmentRecord {
  readonly id: string;
  readonly name: string;
}

/** A holder as the API shows it (the CardHolder schema): external ids that are not set are absent. */
export interface CardHolderRecord {
  readonly id: string;
  readonly fullName: string;
  readonly userExternalIdOne?: string;
  readonly userExternalIdTwo?: string;
  readonly userExternalIdThree?: string;
  readonly department: DepartmentRecord | null;
}

/** A card as the API shows it but for its availableBalance: what cards.record holds (server/database/migrations/001-baseline.ts). */
export interface CardRecord {
  readonly id: string;
  readonly nickname: string;
  /** Null while the card is not activated. */
  readonly last4: string | null;
  readonly cardHolder: CardHolderRecord;
  readonly limits: Limits;
}

/** The usage figures of available-balance.ts for one card. */
export interface CardUsageFigures {
  readonly usage: CardUsage;
  readonly approval: ApprovalUsage;
}

/** A card with the usage figures of its availableBalance, read in the same statement. */
export interface CardWithUsage {
  readonly card: CardRecord;
  /** When the card was created (Unix ms): a page's order. */
  readonly createdAt: number;
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
    select coalesce(json_agg(page order by page.created_at desc, page.id desc), '[]') as cards from (${query}) page`.execute(
    db,
  );
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

/** What a limit change needs of the card it locked. */
export interface LockedCard {
  readonly id: string;
  readonly limits: Limits;
}

/**
 * Reads the card's limits and locks its row until the caller's transaction ends, so that
 * concurrent limit changes of one card run one after the other and none is lost (as
 * updateCardLimits promises). Must run inside a transaction.
 */
export async function lockCard(
  db: Kysely<DB>,
  organizationId: string,
  cardId: string,
): Promise<LockedCard | undefined> {
  const row = await db
    .selectFrom('cards')
    .where('organization_id', '=', organizationId)
    .where('id', '=', cardId)
    .select(['id', 'daily_limit', 'monthly_limit', 'atm_limit', 'approval_based_limit'])
    .forUpdate()
    .executeTakeFirst();
  return row === undefined
    ? undefined
    : {
        id: row.id,
        limits: {
          daily: row.daily_limit,
          monthly: row.monthly_limit,
          atm: row.atm_limit,
          approvalBased: row.approval_based_limit,
        },
      };
}

/** Writes a card's whole limit state; the caller has locked the row and checked the limits. */
export async function saveCardLimits(
  db: Kysely<DB>,
  organizationId: string,
  cardId: string,
  limits: Limits,
): Promise<void> {
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

/**
 * The organization's cards with the usage figures of available-balance.ts (USAGE_RULES), in ONE
 * statement; `rest` narrows, orders and limits (`and …`). Each card comes as the database keeps
 * it for the API (cards.record, with its holder and limits) beside two kinds of figures:
 *
 * - a lateral aggregate over the card's own SUCCEEDED, non-refund CARD and ATM transactions of
 *   the current Cairo month (the day is inside the month, so `filter` picks the day's share), an
 *   index range scan (transactions_card_usage_idx): the ledger is never loaded;
 * - its holder's outstanding cash, which the database keeps on the holder's row as the ledger
 *   changes (card_holders.outstanding_cash_cents, server/database/migrations/001-baseline.ts).
 *
 * The predicates must select exactly what `countsFor` accepts; test/cards compares the two.
 * Tenancy: the cards are the organization's, and a card's transactions are that organization's
 * ledger, so the sums need no organization column of their own.
 * Written as SQL text rather than with the query builder: it is the card read's whole work,
 * and building it node by node cost more than running it (about 40 µs a request).
 * `sum()` of bigints is numeric: absent sums are 0, and all come back as int8.
 *
 * Its readers (findCardWithUsage, listCards) have the database return the rows as one JSON
 * value, as the ledger page does: a driver then parses one value instead of one per column.
 */
export function cardWithUsageQuery(organizationId: string, periods: CairoPeriods, rest: RawBuilder<unknown>) {
  return cardsWithUsage(periods, {
    from: sql`cards c`,
    position: sql``,
    where: sql`c.organization_id = ${organizationId} ${rest}`,
  });
}

/**
 * The statement of cardWithUsageQuery; `from` names the cards (as `c`), `position` adds columns
 * before the card's own, `where` picks them.
 */
function cardsWithUsage(
  periods: CairoPeriods,
  parts: {
    readonly from: RawBuilder<unknown>;
    readonly position: RawBuilder<unknown>;
    readonly where: RawBuilder<unknown>;
  },
) {
  return sql<CardWithUsageRow>`
    select ${parts.position} c.id, c.created_at, c.record,
      coalesce(u.day_card_and_atm, 0)::bigint as day_card_and_atm,
      coalesce(u.month_card_and_atm, 0)::bigint as month_card_and_atm,
      coalesce(u.month_atm, 0)::bigint as month_atm,
      coalesce(u.approval_spent, 0)::bigint as approval_spent,
      coalesce(u.approval_pending, 0)::bigint as approval_pending,
      h.outstanding_cash_cents as outstanding_cash
    from ${parts.from}
    join card_holders h on h.id = c.card_holder_id
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
    where ${parts.where}
  `;
}

/** One card asked for by one organization. */
export interface CardKey {
  readonly organizationId: string;
  readonly cardId: string;
}

/**
 * The cards `keys` ask for, with their usage in `periods`, in one statement: the response at each
 * key's place, undefined where the organization has no such card (another organization's card
 * is as absent as an unknown one). A key may come more than once. Two arrays are its only
 * parameters whatever their length, so every batch runs the same prepared statement.
 */
export async function findCardsWithUsage(
  db: Kysely<DB>,
  keys: readonly CardKey[],
  periods: CairoPeriods,
): Promise<(CardWithUsage | undefined)[]> {
  const query = cardsByKeyQuery(keys, periods);
  const { rows } = await sql<{ cards: (CardWithUsageRow & { position: number })[] }>`
    select coalesce(json_agg(card), '[]') as cards from (${query}) card`.execute(db);
  const found: (CardWithUsage | undefined)[] = keys.map(() => undefined);
  for (const row of rows[0]?.cards ?? []) found[row.position - 1] = cardWithUsageOf(row);
  return found;
}

/** The statement of findCardsWithUsage but for its JSON: each card found with its key's place (1 for the first). */
export function cardsByKeyQuery(keys: readonly CardKey[], periods: CairoPeriods) {
  return cardsWithUsage(periods, {
    from: sql`unnest(${keys.map((key) => key.organizationId)}::text[], ${keys.map((key) => key.cardId)}::text[])
      with ordinality as k(organization_id, id, position)
      join cards c on c.id = k.id and c.organization_id = k.organization_id`,
    position: sql`k.position,`,
    where: sql`true`,
  });
}

/** A row of cardWithUsageQuery, inside the JSON value its readers ask for. */
interface CardWithUsageRow {
  id: string;
  record: CardRecord;
  created_at: number;
  day_card_and_atm: number;
  month_card_and_atm: number;
  month_atm: number;
  approval_spent: number;
  approval_pending: number;
  outstanding_cash: number;
}

/** Its integers checked: they came inside a JSON value. The limits need no check: cards' check constraints bound them. */
function cardWithUsageOf(row: CardWithUsageRow): CardWithUsage {
  const sum = (value: number, column: string): number => int8FromJson(value, `card usage ${column}`);
  return {
    card: row.record,
    createdAt: int8FromJson(row.created_at, 'cards.created_at'),
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
  return rows.flatMap((row) =>
    row.last4 === null ? [] : [{ id: row.id, last4: row.last4, holderId: row.card_holder_id }],
  );
}

export async function cardHolderIds(db: Kysely<DB>, organizationId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('card_holders')
    .where('organization_id', '=', organizationId)
    .select('id')
    .orderBy('id')
    .execute();
  return rows.map((row) => row.id);
}
