/**
 * Traffic as partners send it, as pure rules the runs follow: card reads spread over the cards of
 * several organizations, ledger paginations that ask for each page once by following `nextCursor`, and
 * the order of the mixed run's operations. scenarios.ts turns them into requests; the statement
 * loop (statements.ts) walks the same way through the store.
 */
import type { ReviewStatus, TransactionStatus } from '../../server/domain/available-balance.js';
import type { Category } from '../../server/domain/categories.js';
import type { TransactionFilters } from '../../server/store/transactions.js';

const DAY_MS = 86_400_000;

/** A card and the organization it belongs to (an index into the run's organizations). */
export interface CardKey {
  readonly organization: number;
  readonly cardId: string;
}

/**
 * Card i of each organization in turn: consecutive requests go to different organizations, and a
 * card is asked for again only after every other card has been, as a partner's many cards are read.
 */
export function interleaveCards(byOrganization: readonly (readonly string[])[]): CardKey[] {
  const out: CardKey[] = [];
  const longest = Math.max(0, ...byOrganization.map((cards) => cards.length));
  for (let i = 0; i < longest; i += 1) {
    byOrganization.forEach((cards, organization) => {
      const cardId = cards[i];
      if (cardId !== undefined) out.push({ organization, cardId });
    });
  }
  return out;
}

/** Hands out the keys in order, from the start again after the last; shared by all connections of a run. */
export class Rotation<T> {
  private next = 0;

  constructor(private readonly items: readonly T[]) {
    if (items.length === 0) throw new RangeError('Rotation: nothing to rotate over');
  }

  take(): T {
    const item = this.items[this.next % this.items.length] as T;
    this.next += 1;
    return item;
  }
}

/** One set of listTransactions filters a walk runs under (the document's listTransactions parameters). */
export interface PageFilterSet {
  readonly name: string;
  readonly statuses?: readonly TransactionStatus[];
  readonly categories?: readonly Category[];
  readonly reviewStatuses?: readonly ReviewStatus[];
  /** fromDate this many days before the run, at a day's start (so every request of a run sends the same). */
  readonly fromDaysAgo?: number;
}

/**
 * What a partner walks: the whole ledger; the exceptions (declined and reversed records, a few in
 * a hundred); the records waiting for review (about a quarter); and a few categories of the last
 * 180 days, the filtered page the repeated-request run sends. The first matches nearly every
 * record and the second few, so the walks cover both ends of how much of the ledger a page reads.
 */
export const WALK_FILTER_SETS: readonly PageFilterSet[] = [
  { name: 'whole ledger' },
  { name: 'statuses=DECLINED,REVERSED', statuses: ['DECLINED', 'REVERSED'] },
  { name: 'reviewStatuses=NOT_REVIEWED,UNDER_REVIEW', reviewStatuses: ['NOT_REVIEWED', 'UNDER_REVIEW'] },
  {
    name: 'categories=FOOD_BEVERAGE,TRANSPORTATION,TRAVEL&fromDate=180 days ago',
    categories: ['FOOD_BEVERAGE', 'TRANSPORTATION', 'TRAVEL'],
    fromDaysAgo: 180,
  },
];

/** The fromDate a filter set sends in a run that started at `now` (a day's start, UTC). */
export function fromDateOf(filterSet: PageFilterSet, now: number): number | undefined {
  return filterSet.fromDaysAgo === undefined
    ? undefined
    : Math.floor((now - filterSet.fromDaysAgo * DAY_MS) / DAY_MS) * DAY_MS;
}

/** The filters the store is given for the filter set: what the handler makes of its query. */
export function storeFiltersOf(filterSet: PageFilterSet, now: number): TransactionFilters {
  return {
    fromDate: fromDateOf(filterSet, now),
    statuses: filterSet.statuses,
    categories: filterSet.categories,
    reviewStatuses: filterSet.reviewStatuses,
  };
}

/** One walk: an organization's ledger under one filter set, page by page at one page size. */
export interface Pagination {
  readonly organization: number;
  readonly filterSet: PageFilterSet;
  readonly limit: number;
  /**
   * Once every page size has had its round: a toDate bound that excludes no record (the largest
   * the document allows, less the cycle), so that the pages are requests not sent before.
   */
  readonly toDate?: number;
}

/** GET /v1/transaction for a page of the walk: the filter set, the page size and, after the first page, the cursor. */
export function pagePath(walk: Pagination, now: number, cursor?: string): string {
  const { filterSet } = walk;
  const query = [`limit=${walk.limit}`];
  if (filterSet.statuses !== undefined) query.push(`statuses=${filterSet.statuses.join(',')}`);
  if (filterSet.categories !== undefined) query.push(`categories=${filterSet.categories.join(',')}`);
  if (filterSet.reviewStatuses !== undefined) query.push(`reviewStatuses=${filterSet.reviewStatuses.join(',')}`);
  const fromDate = fromDateOf(filterSet, now);
  if (fromDate !== undefined) query.push(`fromDate=${fromDate}`);
  if (walk.toDate !== undefined) query.push(`toDate=${walk.toDate}`);
  if (cursor !== undefined) query.push(`cursor=${encodeURIComponent(cursor)}`);
  return `/v1/transaction?${query.join('&')}`;
}

/** Page sizes of successive rounds of walks, from the largest a partner pages by: 100, 99, … 51. */
const FIRST_LIMIT = 100;
const PAGE_SIZES = 50;
/** The ToDate parameter's maximum (openapi/components/parameters/ToDate.yaml). */
const LATEST_TO_DATE = Number.MAX_SAFE_INTEGER;

/**
 * The walks in the order the connections take them, from round `firstRound`: every filter set
 * over every organization at 100 a page, then all again at 99 a page, and so on down to 51; then
 * the same page sizes again with a toDate bound that excludes nothing. A round's pages start and
 * end at other records than another round's (or carry another bound), so no page is asked for
 * twice. Each run starts a plan of its own at the first round no plan has used (nextFreeRound):
 * every run then walks the same filter sets and organizations in the same order, and runs compare.
 */
export class PaginationPlan {
  private started = 0;

  constructor(
    private readonly organizations: number,
    private readonly filterSets: readonly PageFilterSet[] = WALK_FILTER_SETS,
    private readonly firstRound = 0,
  ) {
    if (organizations < 1 || filterSets.length === 0)
      throw new RangeError('PaginationPlan: needs an organization and a filter set');
  }

  next(): Pagination {
    const perRound = this.organizations * this.filterSets.length;
    const round = this.firstRound + Math.floor(this.started / perRound);
    const inRound = this.started % perRound;
    this.started += 1;
    const cycle = Math.floor(round / PAGE_SIZES);
    return {
      organization: inRound % this.organizations,
      filterSet: this.filterSets[Math.floor(inRound / this.organizations)] as PageFilterSet,
      limit: FIRST_LIMIT - (round % PAGE_SIZES),
      ...(cycle === 0 ? {} : { toDate: LATEST_TO_DATE - cycle }),
    };
  }

  /** Paginations handed out so far. */
  get paginationsStarted(): number {
    return this.started;
  }

  /** The first round none of this plan's walks belongs to: where the next plan starts. */
  get nextFreeRound(): number {
    return this.firstRound + Math.ceil(this.started / (this.organizations * this.filterSets.length));
  }
}

const NEXT_CURSOR = '"nextCursor":"';

/**
 * The `nextCursor` of a listTransactions response, or undefined on the last page. It is the page's
 * last member (TransactionListPage): found from the end, so that the client, which runs on the
 * same cores as the server, does not parse some 60 kB of JSON for it.
 */
export function nextCursorOf(body: string): string | undefined {
  const at = body.lastIndexOf(NEXT_CURSOR);
  if (at < 0 || at < body.lastIndexOf(']')) return undefined;
  const start = at + NEXT_CURSOR.length;
  const end = body.indexOf('"', start);
  return end < 0 ? undefined : body.slice(start, end);
}

/** One connection's place in its walk: the page to ask for next, moved on by each response. */
export class PageCursor {
  private walk: Pagination;
  private cursor: string | undefined;
  pagesAsked = 0;
  paginationsFinished = 0;

  constructor(private readonly plan: PaginationPlan) {
    this.walk = plan.next();
  }

  /** The next page: its organization and its path. */
  page(now: number): { organization: number; path: string } {
    this.pagesAsked += 1;
    return { organization: this.walk.organization, path: pagePath(this.walk, now, this.cursor) };
  }

  /** The response to the page last asked for: the walk goes on by its cursor, or the next walk starts (also after a failure). */
  received(status: number, body: string): void {
    const cursor = status === 200 ? nextCursorOf(body) : undefined;
    if (cursor !== undefined) {
      this.cursor = cursor;
      return;
    }
    if (status === 200) this.paginationsFinished += 1;
    this.walk = this.plan.next();
    this.cursor = undefined;
  }
}

/**
 * The operations of one cycle, each `weight` times, spread as evenly as they go (smooth weighted
 * round robin): 8, 8, 3, 1 gives a cycle of 20 in which the writes fall between the reads rather
 * than in a block.
 */
export function mixSchedule<T>(weights: readonly { readonly operation: T; readonly weight: number }[]): T[] {
  const total = weights.reduce((sum, { weight }) => sum + weight, 0);
  if (weights.some(({ weight }) => !Number.isInteger(weight) || weight < 0) || total === 0) {
    throw new RangeError('mixSchedule: weights must be whole numbers, not all 0');
  }
  const current = weights.map(() => 0);
  const out: T[] = [];
  for (let slot = 0; slot < total; slot += 1) {
    let best = 0;
    weights.forEach(({ weight }, i) => {
      current[i] = (current[i] ?? 0) + weight;
      if ((current[i] ?? 0) > (current[best] ?? 0)) best = i;
    });
    current[best] = (current[best] ?? 0) - total;
    out.push((weights[best] as { operation: T }).operation);
  }
  return out;
}
