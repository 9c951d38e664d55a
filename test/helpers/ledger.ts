import type { Kysely } from 'kysely';
import {
  availableBalance,
  cairoPeriods,
  type CairoPeriods,
  usageOf,
  type ReviewStatus,
  type TransactionMethod,
  type TransactionStatus,
  type UsageAmountTransaction,
} from '../../server/domain/available-balance.js';
import type { Limits } from '../../server/domain/card-limits.js';
import { randomIds } from '../../server/clock-and-ids.js';
import {
  findCardWithUsage,
  insertCardHolders,
  insertCards,
  insertDepartments,
  type CardUsageFigures,
} from '../../server/store/cards.js';
import { createOrganization } from '../../server/store/organizations.js';
import type { CardRow, DB, TransactionRow } from '../../server/database/schema.js';
import { insertTransactions, type NewTransaction } from '../../server/store/transactions.js';

// Builders for cards and ledger records with sensible defaults, and the reference computation
// of a card's availableBalance from the ledger rows (the pure rules of available-balance.ts).

export async function addOrganization(db: Kysely<DB>, now = Date.now()): Promise<string> {
  const id = randomIds.next('org');
  await createOrganization(db, { id, name: `Test ${id}`, balanceCents: 0, now });
  return id;
}

export async function addDepartment(db: Kysely<DB>, organizationId: string, name = 'Operations'): Promise<string> {
  const id = randomIds.next('dep');
  await insertDepartments(db, [{ id, organization_id: organizationId, name }]);
  return id;
}

export async function addHolder(
  db: Kysely<DB>,
  organizationId: string,
  options: { departmentId?: string | null; fullName?: string; externalIds?: string[] } = {},
): Promise<string> {
  const id = randomIds.next('chd');
  const external = options.externalIds ?? [];
  await insertCardHolders(db, [
    {
      id,
      organization_id: organizationId,
      full_name: options.fullName ?? 'Amr Saleh',
      user_external_id_one: external[0] ?? null,
      user_external_id_two: external[1] ?? null,
      user_external_id_three: external[2] ?? null,
      department_id: options.departmentId ?? null,
    },
  ]);
  return id;
}

export const PLAIN_LIMITS: Limits = { daily: 500_000, monthly: 2_000_000, atm: 300_000, approvalBased: null };

export async function addCard(
  db: Kysely<DB>,
  organizationId: string,
  holderId: string,
  options: { limits?: Limits; last4?: string | null; createdAt?: number; nickname?: string } = {},
): Promise<string> {
  const id = randomIds.next('crd');
  const limits = options.limits ?? PLAIN_LIMITS;
  await insertCards(db, [
    {
      id,
      organization_id: organizationId,
      card_holder_id: holderId,
      nickname: options.nickname ?? 'Test card',
      last4: options.last4 === undefined ? '4242' : options.last4,
      daily_limit: limits.daily,
      monthly_limit: limits.monthly,
      atm_limit: limits.atm,
      approval_based_limit: limits.approvalBased,
      created_at: options.createdAt ?? Date.now(),
    },
  ]);
  return id;
}

export interface RecordOptions {
  cardId?: string | null;
  last4?: string | null;
  personId: string;
  authorizationDate: number;
  method?: TransactionMethod;
  status?: TransactionStatus;
  reviewStatus?: ReviewStatus | null;
  refund?: boolean;
  cleared?: boolean;
  amountCents?: number;
  merchant?: string;
  category?: string;
  id?: string;
}

export function ledgerRecord(organizationId: string, options: RecordOptions): NewTransaction {
  return {
    id: options.id ?? randomIds.next('txn'),
    organization_id: organizationId,
    card_id: options.cardId ?? null,
    person_id: options.personId,
    authorization_date: options.authorizationDate,
    merchant: options.merchant ?? 'Talabat',
    method: options.method ?? 'CARD',
    category: options.category ?? 'FOOD_BEVERAGE',
    review_status: options.reviewStatus ?? null,
    status: options.status ?? 'SUCCEEDED',
    currency: 'EGP',
    amount_cents: options.amountCents ?? 10_000,
    tags: [],
    note: null,
    description: null,
    refund: options.refund ?? false,
    authorization_code: null,
    last4: options.last4 ?? (options.cardId ? '4242' : null),
    cleared: options.cleared ?? true,
  };
}

export async function addRecords(db: Kysely<DB>, organizationId: string, records: RecordOptions[]): Promise<string[]> {
  const rows = records.map((options) => ledgerRecord(organizationId, options));
  await insertTransactions(db, rows);
  return rows.map((row) => row.id);
}

export async function ledgerRows(db: Kysely<DB>, organizationId: string): Promise<TransactionRow[]> {
  return db
    .selectFrom('transactions')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .orderBy('authorization_date', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

export async function cardRows(db: Kysely<DB>, organizationId: string): Promise<CardRow[]> {
  return db.selectFrom('cards').selectAll().where('organization_id', '=', organizationId).execute();
}

export function usageTransaction(row: TransactionRow): UsageAmountTransaction {
  return {
    method: row.method as TransactionMethod,
    status: row.status as TransactionStatus,
    refund: row.refund,
    cleared: row.cleared,
    reviewStatus: row.review_status as ReviewStatus | null,
    authorizationDate: row.authorization_date,
    amountCents: row.amount_cents,
  };
}

export function limitsOf(card: CardRow): Limits {
  return {
    daily: card.daily_limit,
    monthly: card.monthly_limit,
    atm: card.atm_limit,
    approvalBased: card.approval_based_limit,
  };
}

/** The usage figures of a card by the pure rules (USAGE_SCOPE: its own records, its holder's records). */
export function expectedUsage(card: CardRow, rows: readonly TransactionRow[], now: number): ReturnType<typeof usageOf> {
  return usageOf(
    rows.filter((row) => row.card_id === card.id).map(usageTransaction),
    rows.filter((row) => row.person_id === card.card_holder_id).map(usageTransaction),
    cairoPeriods(now),
  );
}

/** availableBalance of a card by the pure function applied to the ledger rows. */
export function expectedBalance(card: CardRow, rows: readonly TransactionRow[], now: number): number | null {
  return availableBalance({
    activated: card.last4 !== null,
    limits: limitsOf(card),
    ...expectedUsage(card, rows, now),
  });
}

/** The usage figures the store reads for each of these cards, by card id; cards it does not find are absent. */
export async function storedUsages(
  db: Kysely<DB>,
  options: { organizationId: string; cardIds: readonly string[]; periods: CairoPeriods },
): Promise<Map<string, CardUsageFigures>> {
  const found = await Promise.all(
    options.cardIds.map((id) => findCardWithUsage(db, options.organizationId, id, options.periods)),
  );
  return new Map(found.flatMap((view) => (view === undefined ? [] : [[view.card.id, view.figures] as const])));
}
