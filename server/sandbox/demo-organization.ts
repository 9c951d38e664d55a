/**
 * Sandbox data, for `npm run onboard -- --demo` and the first start: departments, card holders,
 * cards of every kind and a 90-day ledger for one organization, generated deterministically from
 * a seed; and a bulk mode that adds many ledger records fast, for benchmarks.
 *
 * The ledger is consistent with the cards:
 * - every CARD and ATM record belongs to one of the organization's activated cards and carries
 *   that card's last4 and holder (as person); CASH and PARTNER_FEES records have no card;
 * - `refund` is true only on refunded cash expenses (Transaction.refund); amounts are positive cents;
 * - every activated card keeps something to spend: a record that would take a card below a fifth
 *   of a limit is declined instead, as a real processor would; a few cards are then brought
 *   close to their limit today, so the demo shows both.
 */
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import {
  REVIEW_STATUSES,
  TRANSACTION_STATUSES,
  availableBalance,
  cairoPeriods,
  countsFor,
  type CairoPeriods,
  type ReviewStatus,
  type TransactionMethod,
  type TransactionStatus,
  type UsageTransaction,
} from '../domain/available-balance.js';
import { LIMIT_MAXIMA, type Limits } from '../domain/card-limits.js';
import type { IdGenerator } from '../clock-and-ids.js';
import { activatedCards, cardHolderIds, insertCardHolders, insertCards, insertDepartments } from '../store/cards.js';
import {
  ATM_MERCHANTS,
  CARD_MERCHANTS,
  CARD_NOTES,
  CASH_DESCRIPTIONS,
  CASH_MERCHANTS,
  FEE_KINDS,
  FEE_MERCHANT,
  FEE_PERSON_INDEX,
  SANDBOX_CARDS,
  SANDBOX_DEPARTMENTS,
  SANDBOX_PEOPLE,
  SANDBOX_TAGS,
  type SandboxCard,
  type SandboxMerchant,
} from './catalogue.js';
import { derivedIds, hashSeed, mulberry32, picker, type Picker } from './seeded-random.js';
import {
  type DB,
  inTransaction,
  type NewCardHolderRow,
  type NewCardRow,
  type NewDepartmentRow,
  type TransactionTag,
} from '../database/index.js';
import { insertTransactions, type NewTransaction } from '../store/transactions.js';

/** The seed used when none is given: the demo organization and tests get the same data. */
export const DEFAULT_SANDBOX_SEED = 20_250_301;

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** The ledger covers the 90 days before now. */
export const SANDBOX_LEDGER_DAYS = 90;
/** Randomly generated ledger records; fees and the near-limit records come on top. */
const RANDOM_RECORDS = 300;
/** Records more recent than this may still be uncleared. */
const CLEARING_DELAY_MS = 2 * DAY_MS;
/** A counted record may not leave less than this share of a limit (it is declined instead). */
const LIMIT_FLOOR = 0.2;
/** What a near-limit card keeps: this share of its tightest limit. */
const NEAR_LIMIT_SHARE = 0.04;

export interface SandboxPlan {
  readonly departments: NewDepartmentRow[];
  readonly cardHolders: NewCardHolderRow[];
  readonly cards: NewCardRow[];
  readonly transactions: NewTransaction[];
}

export interface SandboxOptions {
  readonly organizationId: string;
  /** Unix milliseconds: the ledger ends here. */
  readonly now: number;
  /** Mints the ids when given; otherwise they are derived from the seed and the organization. */
  readonly ids?: IdGenerator | undefined;
  readonly seed?: number | undefined;
}

export interface SandboxSummary {
  readonly departments: number;
  readonly cardHolders: number;
  readonly cards: number;
  readonly transactions: number;
}

/** Adds the sandbox data to an organization in one transaction. */
export async function seedSandboxData(db: Kysely<DB>, options: SandboxOptions): Promise<SandboxSummary> {
  const plan = planSandboxData(options);
  await inTransaction(db, async (tx) => {
    await insertDepartments(tx, plan.departments);
    await insertCardHolders(tx, plan.cardHolders);
    await insertCards(tx, plan.cards);
    await insertTransactions(tx, plan.transactions);
  });
  return {
    departments: plan.departments.length,
    cardHolders: plan.cardHolders.length,
    cards: plan.cards.length,
    transactions: plan.transactions.length,
  };
}

const cents = (egp: number): number => Math.round(egp * 100);

/** A log-uniform amount: small amounts are common, large ones rare, as on a real statement. */
function amountCents(p: Picker, merchant: { minEgp: number; maxEgp: number }): number {
  const min = Math.log(merchant.minEgp);
  const max = Math.log(merchant.maxEgp);
  return Math.max(1, cents(Math.exp(min + p.random() * (max - min))));
}

function limitsOf(card: SandboxCard): Limits {
  const egp = card.limitsEgp;
  if ('approvalBased' in egp) {
    return {
      daily: LIMIT_MAXIMA.daily,
      monthly: LIMIT_MAXIMA.monthly,
      atm: LIMIT_MAXIMA.atm,
      approvalBased: cents(egp.approvalBased),
    };
  }
  return { daily: cents(egp.daily), monthly: cents(egp.monthly), atm: cents(egp.atm), approvalBased: null };
}

interface PlannedCard {
  readonly id: string;
  readonly holderId: string;
  readonly last4: string | null;
  readonly limits: Limits;
  readonly spec: SandboxCard;
}

/** The records that count for a card's availableBalance so far, to keep every card spendable. */
class UsageTally {
  private readonly byCard = new Map<string, (UsageTransaction & { amountCents: number })[]>();
  private readonly byHolder = new Map<string, (UsageTransaction & { amountCents: number })[]>();

  constructor(private readonly periods: CairoPeriods) {}

  add(record: NewTransaction): void {
    const entry = usageEntry(record);
    if (record.card_id !== null && record.card_id !== undefined) push(this.byCard, record.card_id, entry);
    push(this.byHolder, record.person_id, entry);
  }

  /** availableBalance of the card if `extra` were added to the ledger. */
  balance(card: PlannedCard, extra?: NewTransaction): number {
    const own = [...(this.byCard.get(card.id) ?? [])];
    const holders = [...(this.byHolder.get(card.holderId) ?? [])];
    if (extra !== undefined) {
      if (extra.card_id === card.id) own.push(usageEntry(extra));
      if (extra.person_id === card.holderId) holders.push(usageEntry(extra));
    }
    const sum = (figure: Parameters<typeof countsFor>[0], list: typeof own): number =>
      list.reduce((total, txn) => total + (countsFor(figure, txn, this.periods) ? txn.amountCents : 0), 0);
    return (
      availableBalance({
        activated: card.last4 !== null,
        limits: card.limits,
        usage: {
          dayCardAndAtm: sum('dayCardAndAtm', own),
          monthCardAndAtm: sum('monthCardAndAtm', own),
          monthAtm: sum('monthAtm', own),
        },
        approval: {
          spent: sum('approvalSpent', own),
          pending: sum('approvalPending', own),
          outstandingCash: sum('approvalOutstandingCash', holders),
        },
      }) ?? 0
    );
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

function usageEntry(record: NewTransaction): UsageTransaction & { amountCents: number } {
  return {
    method: record.method as TransactionMethod,
    status: record.status as TransactionStatus,
    refund: record.refund,
    cleared: record.cleared,
    reviewStatus: (record.review_status ?? null) as ReviewStatus | null,
    authorizationDate: record.authorization_date,
    amountCents: record.amount_cents,
  };
}

/** The smallest limit that binds a card: the floor and the near-limit target are shares of it. */
function tightestLimit(limits: Limits): number {
  return limits.approvalBased ?? Math.min(limits.daily, limits.monthly, limits.atm);
}

/** Builds the whole sandbox for one organization without touching the database. */
export function planSandboxData(options: SandboxOptions): SandboxPlan {
  const { organizationId, now } = options;
  const seed = options.seed ?? DEFAULT_SANDBOX_SEED;
  const derived = derivedIds(organizationId, seed);
  const ids: IdGenerator = options.ids ?? derived;
  // Content depends on the seed only; ids on the seed and the organization (or on `ids`).
  const p = picker(mulberry32(hashSeed(`sandbox:${seed}`)));
  const periods = cairoPeriods(now);

  const departments: NewDepartmentRow[] = SANDBOX_DEPARTMENTS.map((name) => ({
    id: ids.next('dep'),
    organization_id: organizationId,
    name,
  }));
  const departmentId = (name: string | null): string | null =>
    name === null ? null : (departments.find((d) => d.name === name)?.id ?? null);

  const cardHolders: NewCardHolderRow[] = SANDBOX_PEOPLE.map((person) => ({
    id: ids.next('chd'),
    organization_id: organizationId,
    full_name: person.fullName,
    user_external_id_one: person.externalIds[0] ?? null,
    user_external_id_two: person.externalIds[1] ?? null,
    user_external_id_three: person.externalIds[2] ?? null,
    department_id: departmentId(person.department),
  }));
  const holderId = (index: number): string => {
    const holder = cardHolders[index];
    if (holder === undefined) throw new RangeError(`sandbox catalogue: no person ${index}`);
    return holder.id;
  };

  const usedLast4 = new Set<string>();
  const planned: PlannedCard[] = SANDBOX_CARDS.map((spec) => {
    let last4: string | null = null;
    if (spec.kind !== 'notActivated') {
      do last4 = String(p.int(0, 9999)).padStart(4, '0');
      while (usedLast4.has(last4));
      usedLast4.add(last4);
    }
    return { id: ids.next('crd'), holderId: holderId(spec.holder), last4, limits: limitsOf(spec), spec };
  });
  const cards: NewCardRow[] = planned.map((card, index) => ({
    id: card.id,
    organization_id: organizationId,
    card_holder_id: card.holderId,
    nickname: card.spec.nickname,
    last4: card.last4,
    daily_limit: card.limits.daily,
    monthly_limit: card.limits.monthly,
    atm_limit: card.limits.atm,
    approval_based_limit: card.limits.approvalBased,
    // Issued over the year before the ledger starts, one every few weeks.
    created_at: now - (SANDBOX_LEDGER_DAYS + 300 - index * 18) * DAY_MS - p.int(0, 20 * HOUR_MS),
  }));
  const active = planned.filter((card) => card.last4 !== null);

  const tags: TransactionTag[] = SANDBOX_TAGS.map((name) => ({ id: derived.tag(), name }));
  const tally = new UsageTally(periods);
  const transactions: NewTransaction[] = [];

  /** A business-hours moment (Cairo time) `daysAgo` days back, never after now. */
  const dateDaysAgo = (daysAgo: number): number => {
    const dayStart = cairoPeriods(now - daysAgo * DAY_MS).dayStartMs;
    const candidate = dayStart + p.int(7 * HOUR_MS, 23 * HOUR_MS - 1);
    return candidate <= now ? candidate : periods.dayStartMs + Math.floor(p.random() * (now - periods.dayStartMs + 1));
  };
  /** Recent days are busier: the power skews the pick towards today. */
  const randomDate = (): number => dateDaysAgo(Math.floor(p.random() ** 1.6 * (SANDBOX_LEDGER_DAYS - 1)));
  const someTags = (): TransactionTag[] => {
    if (!p.chance(0.3)) return [];
    const first = p.pick(tags);
    const second = p.pick(tags);
    return p.chance(0.3) && second.id !== first.id ? [first, second] : [first];
  };
  const authorizationCode = (): string => String(p.int(0, 999_999)).padStart(6, '0');
  const base = (fields: {
    date: number;
    merchant: string;
    category: string;
    method: TransactionMethod;
    amount: number;
    personId: string;
    card: PlannedCard | null;
  }): NewTransaction => ({
    id: ids.next('txn'),
    organization_id: organizationId,
    card_id: fields.card?.id ?? null,
    person_id: fields.personId,
    authorization_date: fields.date,
    merchant: fields.merchant,
    method: fields.method,
    category: fields.category,
    review_status: null,
    status: 'SUCCEEDED',
    currency: 'EGP',
    amount_cents: fields.amount,
    tags: [],
    note: null,
    description: null,
    refund: false,
    authorization_code: null,
    last4: fields.card?.last4 ?? null,
    cleared: true,
  });

  /** A counted record that would leave a card less than LIMIT_FLOOR of a limit is declined. */
  const withinFloor = (record: NewTransaction): boolean =>
    active.every((card) => {
      const after = tally.balance(card, record);
      return after === tally.balance(card) || after >= LIMIT_FLOOR * tightestLimit(card.limits);
    });

  const cardRecord = (method: 'CARD' | 'ATM'): NewTransaction => {
    const card = p.pick(active);
    const date = randomDate();
    const fresh = now - date < CLEARING_DELAY_MS;
    let record: NewTransaction;
    if (method === 'ATM') {
      record = base({
        date,
        merchant: p.pick(ATM_MERCHANTS),
        category: 'CASH',
        method,
        amount: cents(100 * p.int(5, 60)),
        personId: card.holderId,
        card,
      });
      record.review_status = p.pick<ReviewStatus | null>([
        null,
        'NOT_REVIEWED',
        'APPROVED',
        'APPROVED',
        'BALANCE_SETTLED',
      ]);
    } else {
      const profiled = CARD_MERCHANTS.filter((merchant) => card.spec.profile.includes(merchant.category));
      const merchant = profiled.length > 0 && p.chance(0.75) ? p.pick(profiled) : p.pick(CARD_MERCHANTS);
      record = base({
        date,
        merchant: merchant.name,
        category: merchant.category,
        method,
        amount: amountCents(p, merchant),
        personId: card.holderId,
        card,
      });
      record.review_status = fresh
        ? p.pick<ReviewStatus>(['NOT_REVIEWED', 'NOT_REVIEWED', 'UNDER_REVIEW'])
        : p.weighted<ReviewStatus>(
            [...REVIEW_STATUSES],
            (s) => ({ NOT_REVIEWED: 2, UNDER_REVIEW: 2, BALANCE_SETTLED: 3, APPROVED: 4, REJECTED: 1 })[s],
          );
      if (p.chance(0.15)) record.note = p.pick(CARD_NOTES);
    }
    record.tags = someTags();
    const status = p.weighted<TransactionStatus>(
      [...TRANSACTION_STATUSES],
      (s) => ({ SUCCEEDED: 88, DECLINED: 8, REVERSED: 4 })[s],
    );
    record.status = status;
    if (status === 'SUCCEEDED' && !withinFloor(record)) record.status = 'DECLINED';
    if (record.status === 'DECLINED') {
      record.review_status = null;
      record.cleared = false;
    } else {
      record.authorization_code = authorizationCode();
      record.cleared = fresh ? p.chance(0.2) : p.chance(0.97);
    }
    return record;
  };

  const cashRecord = (): NewTransaction => {
    const merchant: SandboxMerchant = p.pick(CASH_MERCHANTS);
    const date = randomDate();
    const record = base({
      date,
      merchant: merchant.name,
      category: merchant.category,
      method: 'CASH',
      amount: amountCents(p, merchant),
      personId: p.pick(cardHolders).id,
      card: null,
    });
    record.refund = p.chance(0.3);
    record.review_status = record.refund
      ? p.pick<ReviewStatus>(['BALANCE_SETTLED', 'BALANCE_SETTLED', 'APPROVED'])
      : p.weighted<ReviewStatus>(
          [...REVIEW_STATUSES],
          (s) => ({ NOT_REVIEWED: 3, UNDER_REVIEW: 2, BALANCE_SETTLED: 3, APPROVED: 2, REJECTED: 1 })[s],
        );
    record.status = p.chance(0.04) ? 'REVERSED' : 'SUCCEEDED';
    // Outstanding cash counts against the holder's approval-based cards: settle it instead of breaching.
    if (!withinFloor(record)) record.review_status = 'BALANCE_SETTLED';
    record.cleared = record.refund || record.review_status === 'BALANCE_SETTLED';
    if (p.chance(0.7)) record.description = p.pick(CASH_DESCRIPTIONS);
    record.tags = someTags();
    return record;
  };

  const feeRecord = (date: number, kind: (typeof FEE_KINDS)[number]): NewTransaction => {
    const record = base({
      date,
      merchant: FEE_MERCHANT,
      category: 'FINANCIAL_SERVICES',
      method: 'PARTNER_FEES',
      amount: amountCents(p, kind),
      personId: holderId(FEE_PERSON_INDEX),
      card: null,
    });
    record.description = kind.description;
    record.cleared = now - date >= DAY_MS;
    return record;
  };

  const add = (record: NewTransaction): void => {
    transactions.push(record);
    tally.add(record);
  };

  for (let i = 0; i < RANDOM_RECORDS; i += 1) {
    const method = p.weighted<TransactionMethod>(
      ['CARD', 'ATM', 'CASH', 'PARTNER_FEES'],
      (m) => ({ CARD: 64, ATM: 11, CASH: 19, PARTNER_FEES: 6 })[m],
    );
    if (method === 'CARD' || method === 'ATM') add(cardRecord(method));
    else if (method === 'CASH') add(cashRecord());
    else add(feeRecord(randomDate(), p.pick(FEE_KINDS.slice(1))));
  }
  // The platform fee on the first of every Cairo month in the window.
  for (let monthStart = periods.monthStartMs; monthStart >= now - SANDBOX_LEDGER_DAYS * DAY_MS;) {
    const fee = FEE_KINDS[0];
    if (fee !== undefined) add(feeRecord(monthStart + 9 * HOUR_MS <= now ? monthStart + 9 * HOUR_MS : monthStart, fee));
    monthStart = cairoPeriods(monthStart - 1).monthStartMs;
  }

  ensureCoverage(transactions, periods);

  // A few cards close to their limit today: an ATM withdrawal (plain: it counts against all
  // three limits) or a pending card payment (approval-based) takes them to a few percent left.
  for (const card of active.filter((c) => c.spec.nearLimit === true)) {
    const target = Math.round(NEAR_LIMIT_SHARE * tightestLimit(card.limits));
    const available = tally.balance(card);
    const date = periods.dayStartMs + Math.floor((now - periods.dayStartMs) / 2);
    const plain = card.limits.approvalBased === null;
    const amount = plain ? Math.floor((available - target) / 10_000) * 10_000 : available - target;
    if (amount <= 0) continue;
    const merchant = plain
      ? { name: p.pick(ATM_MERCHANTS), category: 'CASH' }
      : p.pick(CARD_MERCHANTS.filter((m) => card.spec.profile.includes(m.category)));
    const record = base({
      date,
      merchant: merchant.name,
      category: merchant.category,
      method: plain ? 'ATM' : 'CARD',
      amount,
      personId: card.holderId,
      card,
    });
    record.review_status = 'NOT_REVIEWED';
    record.authorization_code = authorizationCode();
    record.cleared = false;
    add(record);
  }

  return { departments, cardHolders, cards, transactions };
}

/**
 * Every status, review status and category appears at least once, so that every filter finds
 * something, whatever the seed: when one is missing, an older card record (outside the current
 * month, so that no balance moves) takes it.
 */
function ensureCoverage(transactions: NewTransaction[], periods: CairoPeriods): void {
  const older = transactions.filter((t) => t.method === 'CARD' && t.authorization_date < periods.monthStartMs);
  let next = 0;
  const take = (): NewTransaction | undefined => older[next++];
  for (const status of TRANSACTION_STATUSES) {
    if (transactions.some((t) => t.status === status)) continue;
    const record = take();
    if (record === undefined) continue;
    record.status = status;
    if (status === 'DECLINED') {
      // As cardRecord makes them: a declined payment has no authorization and never clears.
      record.authorization_code = null;
      record.cleared = false;
      record.review_status = null;
    }
  }
  for (const review of REVIEW_STATUSES) {
    if (transactions.some((t) => t.review_status === review)) continue;
    const record = take();
    if (record !== undefined) record.review_status = review;
  }
  for (const merchant of CARD_MERCHANTS) {
    if (transactions.some((t) => t.category === merchant.category)) continue;
    const record = take();
    if (record === undefined) continue;
    record.merchant = merchant.name;
    record.category = merchant.category;
  }
}

// ---------------------------------------------------------------------------------------------
// Bulk records for benchmarks

export interface BulkOptions {
  readonly organizationId: string;
  readonly count: number;
  /** Unix milliseconds; the records fall in the year before the current Cairo month. */
  readonly now: number;
  readonly seed?: number | undefined;
  /** Statements to run at once on separate connections (default 2; PGlite runs them one by one anyway). */
  readonly concurrency?: number | undefined;
}

/** Rows a statement inserts: big enough to amortise the round trip, small enough to keep memory flat. */
const BULK_BATCH = 100_000;
/**
 * Two statements at once: index upkeep is CPU work in the database server, which one statement
 * leaves on one core. Measured on a 2-core machine, before the rows carried their record: a
 * million rows in 29 to 61 s this way, depending on the machine's other load, against 59 to 67 s
 * one statement at a time.
 */
const DEFAULT_BULK_CONCURRENCY = 2;
/** Bulk records cover the year before the current Cairo month. */
const BULK_SPAN_MS = 365 * DAY_MS;

/**
 * Inserts `count` ledger records with `insert ... select ... from generate_series`, so the
 * database makes the rows itself: no per-row round trip, no per-row parameters. The records are
 * consistent like the sandbox's (CARD and ATM on the organization's activated cards with their
 * last4 and holder; CASH and PARTNER_FEES without a card; cash refunds only) and are dated in
 * the year before the current Cairo month, with cash already settled, so that they never change
 * an availableBalance: the sandbox's cards stay as sensible with a million records as without.
 * Needs card holders and at least one activated card (seed the sandbox first).
 */
export async function insertBulkTransactions(db: Kysely<DB>, options: BulkOptions): Promise<{ inserted: number }> {
  const { organizationId, count, now } = options;
  if (!Number.isSafeInteger(count) || count < 0)
    throw new RangeError('insertBulkTransactions: count must be a whole number ≥ 0');
  if (count === 0) return { inserted: 0 };
  const cards = await activatedCards(db, organizationId);
  const holders = await cardHolderIds(db, organizationId);
  if (cards.length === 0 || holders.length === 0) {
    throw new Error(
      `Organization ${organizationId} has no activated card: add the sandbox data (--demo) before bulk records.`,
    );
  }
  const seed = hashSeed(`bulk:${options.seed ?? DEFAULT_SANDBOX_SEED}`);
  // Ids: a random batch prefix plus the row number, so repeated runs never collide.
  const batchPrefix = `txn_${randomBytes(6).toString('hex')}`;
  const end = cairoPeriods(now).monthStartMs - 1;
  // Row g is dated end - g/count of the span, less a jitter below one step: rows come out in
  // list order (newest first), so every index (list order, per filter, per card, per person)
  // grows at one place per key instead of at random places. The record each row carries is the
  // database's to write (the transactions_write_record trigger), and is most of a bulk insert's
  // time now: a million rows in some 40 s on PostgreSQL, 130 s on the embedded database.
  const step = Math.max(1, Math.floor(BULK_SPAN_MS / count));
  const merchants = CARD_MERCHANTS;
  const cashMerchants = CASH_MERCHANTS;
  const cardIds = cards.map((c) => c.id);
  const cardLast4 = cards.map((c) => c.last4);
  const cardHolders = cards.map((c) => c.holderId);

  const insertRange = async (from: number, to: number): Promise<number> => {
    // h1..h4 and kind: independent 31-bit hashes of the row number (PostgreSQL's own integer
    // hash, seeded), so that the columns do not move in lockstep. kind (0-99) picks the method:
    // CARD 64 %, ATM 11 %, CASH 19 %, PARTNER_FEES 6 %, as in the sandbox.
    const result = await sql`
      insert into transactions (
        id, organization_id, card_id, person_id, authorization_date, merchant, method, category,
        review_status, status, currency, amount_cents, tags, note, description, refund,
        authorization_code, last4, cleared
      )
      select
        ${batchPrefix} || lpad(to_hex(g), 12, '0'),
        ${organizationId},
        case when kind < 75 then (${cardIds}::text[])[1 + h1 % ${cardIds.length}] end,
        case when kind < 75 then (${cardHolders}::text[])[1 + h1 % ${cardHolders.length}]
             else (${holders}::text[])[1 + h2 % ${holders.length}] end,
        ${end}::bigint - (g * ${BULK_SPAN_MS}::bigint) / ${count}::bigint - h3 % ${step},
        case when kind < 64 then (${merchants.map((m) => m.name)}::text[])[1 + h2 % ${merchants.length}]
             when kind < 75 then (${ATM_MERCHANTS}::text[])[1 + h2 % ${ATM_MERCHANTS.length}]
             when kind < 94 then (${cashMerchants.map((m) => m.name)}::text[])[1 + h2 % ${cashMerchants.length}]
             else ${FEE_MERCHANT} end,
        case when kind < 64 then 'CARD' when kind < 75 then 'ATM' when kind < 94 then 'CASH' else 'PARTNER_FEES' end,
        case when kind < 64 then (${merchants.map((m) => m.category)}::text[])[1 + h2 % ${merchants.length}]
             when kind < 75 then 'CASH'
             when kind < 94 then (${cashMerchants.map((m) => m.category)}::text[])[1 + h2 % ${cashMerchants.length}]
             else 'FINANCIAL_SERVICES' end,
        case when kind >= 94 then null
             -- cash is settled or rejected: never outstanding, so no availableBalance moves
             when kind >= 75 then (array['BALANCE_SETTLED', 'REJECTED'])[1 + h4 % 2]
             else (array[null, 'NOT_REVIEWED', 'UNDER_REVIEW', 'BALANCE_SETTLED', 'APPROVED', 'REJECTED'])[1 + h4 % 6] end,
        case when kind >= 75 or h4 % 100 < 90 then 'SUCCEEDED' when h4 % 100 < 96 then 'DECLINED' else 'REVERSED' end,
        'EGP',
        case when kind < 64 then 2500 + h3 % 500000
             when kind < 75 then 50000 * (1 + h3 % 40)
             when kind < 94 then 1000 + h3 % 100000
             else 2500 + h3 % 150000 end,
        '[]'::jsonb,
        null,
        null,
        kind >= 75 and kind < 94 and h1 % 10 < 3,
        case when kind < 75 and h4 % 100 < 90 then lpad((h3 % 1000000)::text, 6, '0') end,
        case when kind < 75 then (${cardLast4}::text[])[1 + h1 % ${cardLast4.length}] end,
        kind >= 75 or h4 % 100 < 90 or h4 % 100 >= 96
      from (
        select g,
          hashint8extended(g, ${seed}) & 2147483647 as h1,
          hashint8extended(g, ${seed + 1}) & 2147483647 as h2,
          hashint8extended(g, ${seed + 2}) & 2147483647 as h3,
          hashint8extended(g, ${seed + 3}) & 2147483647 as h4,
          (hashint8extended(g, ${seed + 4}) & 2147483647) % 100 as kind
        from generate_series(${from}::bigint, ${to}::bigint) as g
      ) as r
    `.execute(db);
    return Number(result.numAffectedRows ?? 0n);
  };

  const ranges: [number, number][] = [];
  for (let from = 0; from < count; from += BULK_BATCH) ranges.push([from, Math.min(count, from + BULK_BATCH) - 1]);
  // Outside a transaction on PostgreSQL, statements run on separate pool connections at once
  // (the database's cores share the work); in a transaction or on PGlite, one after the other.
  const workers = db.isTransaction ? 1 : Math.max(1, options.concurrency ?? DEFAULT_BULK_CONCURRENCY);
  let inserted = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      for (let range = ranges[next++]; range !== undefined; range = ranges[next++]) {
        const rows = await insertRange(range[0], range[1]);
        inserted += rows;
      }
    }),
  );
  // A bulk load changes the table's shape at once: refresh the planner's statistics now rather
  // than when autovacuum gets to it (a minute or more on PostgreSQL, never on the embedded
  // database), or a filtered page is planned for the empty table it knew and reads the ledger.
  await sql`analyze transactions`.execute(db);
  return { inserted };
}
