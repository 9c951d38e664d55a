/**
 * The transaction ledger (listTransactions, getTransaction): a keyset-paged list, newest
 * authorization first with ties by id, with the nine filters combinable; and reads by id. Every
 * query is scoped to the organization.
 */
import { sql, type Kysely } from 'kysely';
import type { ReviewStatus, TransactionMethod, TransactionStatus } from '../domain/available-balance.js';
import type { Category } from '../domain/categories.js';
import type { CursorPosition } from '../domain/cursor.js';
import type { DB, NewTransactionRow, TransactionTag } from '../database/index.js';

export interface TransactionFilters {
  /** Inclusive bounds on authorization_date, Unix milliseconds. */
  readonly fromDate?: number | undefined;
  readonly toDate?: number | undefined;
  readonly statuses?: readonly TransactionStatus[] | undefined;
  readonly categories?: readonly Category[] | undefined;
  readonly reviewStatuses?: readonly ReviewStatus[] | undefined;
  /** Case-insensitive substring of the merchant name. */
  readonly merchant?: string | undefined;
  /** The person's department id is one of these. */
  readonly departmentIds?: readonly string[] | undefined;
}

/**
 * A LIKE pattern matching `text` literally anywhere: `%`, `_` and the escape character itself are
 * escaped, so a merchant filter of `50%` matches "50%" and not "50 anything".
 */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

/**
 * The organization's ledger rows, each as the record it shows in JSON text: the Transaction
 * schema's value, written by the database (transactions.record, server/database/migrations/001-baseline.ts) and sent
 * to the client as it is stored. Only the text: the last record of a page gives its cursor
 * (positionOfRecord); the id and date columns are not read
 * (server/decisions/0011-ledger-and-card-records-are-stored-as-the-api-shows-them.md).
 */
function transactionQuery(db: Kysely<DB>, organizationId: string) {
  return db
    .selectFrom('transactions as t')
    .where('t.organization_id', '=', organizationId)
    .select(sql<string>`t.record::text`.as('json'));
}

/** Where a stored record (its JSON text) stands in the ledger's order: a cursor's position. */
export function positionOfRecord(json: string): CursorPosition {
  const { id, authorizationDate } = JSON.parse(json) as { readonly id?: unknown; readonly authorizationDate?: unknown };
  if (typeof id !== 'string' || typeof authorizationDate !== 'number')
    throw new Error('transactions.record has no id or authorizationDate');
  return { sort: authorizationDate, id };
}

/** Options of a list page: the filters, the keyset position to start after, and how many rows to read. */
export interface TransactionListOptions {
  readonly organizationId: string;
  readonly filters: TransactionFilters;
  readonly after: CursorPosition | undefined;
  readonly take: number;
}

/**
 * Above this many matching names, the merchant filter stays a plain `ilike`: a pattern that
 * matches that many names matches common rows, which the list walk finds quickly.
 */
const MAX_MERCHANT_NAMES = 100;

/**
 * The organization's distinct merchant names containing `text` (ignoring case), or undefined
 * when there are more than MAX_MERCHANT_NAMES. A skip scan of transactions_merchant_idx: one
 * index probe per distinct name, never a read of the ledger's rows.
 */
async function merchantNamesMatching(
  db: Kysely<DB>,
  organizationId: string,
  text: string,
): Promise<string[] | undefined> {
  const result = await sql<{ merchant: string }>`
    with recursive names (merchant) as (
      (select t.merchant from transactions t where t.organization_id = ${organizationId} order by t.merchant limit 1)
      union all
      select (
        select t.merchant from transactions t
        where t.organization_id = ${organizationId} and t.merchant > n.merchant
        order by t.merchant limit 1
      )
      from names n
      where n.merchant is not null
    )
    select merchant from names where merchant is not null and merchant ilike ${containsPattern(text)}
    limit ${MAX_MERCHANT_NAMES + 1}
  `.execute(db);
  const names = result.rows.map((row) => row.merchant);
  return names.length > MAX_MERCHANT_NAMES ? undefined : names;
}

/** The people of the organization in these departments: `departmentIds` matches the person's department. */
async function peopleInDepartments(
  db: Kysely<DB>,
  organizationId: string,
  departmentIds: readonly string[],
): Promise<string[]> {
  const rows = await db
    .selectFrom('card_holders')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('department_id', 'in', [...departmentIds])
    .execute();
  return rows.map((row) => row.id);
}

/**
 * The list query, unexecuted (tests print and check its plan), or undefined when a filter can
 * match nothing (a merchant text no name contains, departments without people): up to `take`
 * transactions of the organization matching every filter, newest first (authorization_date
 * desc, id desc), strictly after the keyset position `after`.
 *
 * Two filters are resolved first, in small reads, so that the main query gets literal lists the
 * planner can estimate and an index can serve: `merchant` (a substring, which no b-tree serves)
 * to the distinct merchant names that contain it, and `departmentIds` to the people in them.
 * The main query then usually walks transactions_list_idx (organization_id, authorization_date
 * desc, id desc) from the cursor and stops after `take` matches; a selective filter uses its
 * index of server/database/migrations/001-baseline.ts instead, so that a filter matching few rows never reads the ledger.
 */
export async function transactionListQuery(db: Kysely<DB>, options: TransactionListOptions) {
  const { organizationId, filters, after } = options;
  const people =
    filters.departmentIds === undefined
      ? undefined
      : await peopleInDepartments(db, organizationId, filters.departmentIds);
  if (people !== undefined && people.length === 0) return undefined;
  const merchants =
    filters.merchant === undefined ? undefined : await merchantNamesMatching(db, organizationId, filters.merchant);
  if (merchants !== undefined && merchants.length === 0) return undefined;

  let query = transactionQuery(db, organizationId);
  if (filters.fromDate !== undefined) query = query.where('t.authorization_date', '>=', filters.fromDate);
  if (filters.toDate !== undefined) query = query.where('t.authorization_date', '<=', filters.toDate);
  if (filters.statuses !== undefined) query = query.where('t.status', 'in', [...filters.statuses]);
  if (filters.categories !== undefined) query = query.where('t.category', 'in', [...filters.categories]);
  if (filters.reviewStatuses !== undefined) query = query.where('t.review_status', 'in', [...filters.reviewStatuses]);
  if (merchants !== undefined) query = query.where('t.merchant', 'in', merchants);
  else if (filters.merchant !== undefined)
    query = query.where('t.merchant', 'ilike', containsPattern(filters.merchant));
  if (people !== undefined) query = query.where('t.person_id', 'in', people);
  if (after !== undefined) {
    query = query.where(({ eb, refTuple, tuple }) =>
      eb(refTuple('t.authorization_date', 't.id'), '<', tuple(after.sort, after.id)),
    );
  }
  return query.orderBy('t.authorization_date', 'desc').orderBy('t.id', 'desc').limit(options.take);
}

/**
 * The page's stored records, one row each. PostgreSQL sends the rows as they are stored, where
 * aggregating them into one JSON array (json_agg) cost it several times the scan.
 */
export async function listTransactions(db: Kysely<DB>, options: TransactionListOptions): Promise<string[]> {
  const query = await transactionListQuery(db, options);
  return query === undefined ? [] : (await query.execute()).map((row) => row.json);
}

export async function findTransaction(
  db: Kysely<DB>,
  organizationId: string,
  transactionId: string,
): Promise<string | undefined> {
  return (await transactionQuery(db, organizationId).where('t.id', '=', transactionId).executeTakeFirst())?.json;
}

/** A ledger record to store; `tags` as values (stored as jsonb). */
export type NewTransaction = Omit<NewTransactionRow, 'tags'> & { tags: readonly TransactionTag[] };

/**
 * Multi-row inserts, 500 rows a statement: 19 parameters a row stays well under PostgreSQL's
 * 65 535 bind parameters per statement.
 */
const INSERT_BATCH = 500;

export async function insertTransactions(db: Kysely<DB>, rows: readonly NewTransaction[]): Promise<void> {
  for (let start = 0; start < rows.length; start += INSERT_BATCH) {
    const batch = rows.slice(start, start + INSERT_BATCH).map((row) => ({ ...row, tags: JSON.stringify(row.tags) }));
    await db.insertInto('transactions').values(batch).execute();
  }
}
