import type { Client } from 'openapi-fetch';
import { PartnerApiError } from './errors.js';
import { LIST_ITEMS, type ListItem, type ListPath, type ListQuery, type PartnerPaths } from './types.js';

export interface PaginateOptions<P extends ListPath> {
  /** Filters and `limit`, sent unchanged with every page (the document's Pagination section). */
  readonly query?: ListQuery<P>;
  readonly signal?: AbortSignal;
}

/** One page as it arrives, before narrowing to the path's own page type. */
interface RawPage {
  readonly nextCursor?: string;
  readonly [items: string]: unknown;
}

type UntypedGet = (
  path: string,
  init: { params: { query: Record<string, unknown> }; signal?: AbortSignal },
) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

/**
 * Every item of a card, transfer or transaction list, page after page: follows `nextCursor` with
 * the same filters and limit until it is absent (the document's Pagination section). An error page ends the iteration by
 * throwing a PartnerApiError with the service's error body (an iterator has no `{ error }` to give).
 */
export async function* paginate<P extends ListPath>(
  client: Pick<Client<PartnerPaths>, 'GET'>,
  path: P,
  options: PaginateOptions<P> = {},
): AsyncGenerator<ListItem<P>, void, undefined> {
  // The generic GET cannot be called with a path union; the public signature carries the types.
  const get = client.GET as unknown as UntypedGet;
  const key = LIST_ITEMS[path];
  let cursor: string | undefined;
  do {
    const query: Record<string, unknown> = { ...options.query, ...(cursor !== undefined ? { cursor } : {}) };
    const { data, error, response } = await get(path, {
      params: { query },
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
    });
    if (data === undefined) throw new PartnerApiError(response.status, error, response.headers.get('x-request-id'));
    const page = data as RawPage;
    const items = page[key];
    if (!Array.isArray(items)) throw new TypeError(`The ${path} page has no "${key}" array.`);
    for (const item of items as ListItem<P>[]) yield item;
    const next = page.nextCursor;
    // A server responding to the cursor it was given would loop forever: stop loudly instead.
    if (next !== undefined && next === cursor)
      throw new TypeError(`The ${path} list returned the same nextCursor twice.`);
    cursor = next;
  } while (cursor !== undefined);
}
