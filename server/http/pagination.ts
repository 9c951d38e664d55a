import { bindingOf, type CursorCodec, type CursorPosition } from '../domain/cursor.js';
import { ApiError } from './errors.js';

/** Every list pages 1 to 100 records, 10 by default (the Limit parameter in openapi/). */
export const DEFAULT_PAGE_SIZE = 10;

export interface PageRequest {
  /** The keyset position after which the page starts; undefined for the first page. */
  readonly after: CursorPosition | undefined;
  readonly limit: number;
  readonly binding: string;
}

/**
 * Reads `cursor` and `limit` of a list request. The cursor is bound to the filters and the limit
 * that produced it (the Cursor parameter's description), so reusing it with others is a 400,
 * like a tampered one.
 */
export function pageRequest(
  cursors: CursorCodec,
  query: { readonly cursor?: string | undefined; readonly limit?: number | undefined },
  filters: Readonly<Record<string, unknown>>,
): PageRequest {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const binding = bindingOf(filters, limit);
  if (query.cursor === undefined) return { after: undefined, limit, binding };
  const after = cursors.decode(query.cursor, binding);
  if (after === null) {
    throw new ApiError('invalidRequest', 'The cursor is not valid for this request.', {
      details: 'Send a nextCursor unchanged, with the same filters and limit as the request that returned it.',
    });
  }
  return { after, limit, binding };
}

/**
 * Turns up to `limit + 1` rows (the store reads one more than the page) into the page's items and,
 * only when another record exists, the cursor of the next page: never an empty trailing page.
 */
export function pageOf<Row>(
  cursors: CursorCodec,
  request: PageRequest,
  rows: readonly Row[],
  positionOf: (row: Row) => CursorPosition,
): { items: Row[]; nextCursor: string | undefined } {
  const items = rows.slice(0, request.limit);
  const last = items[items.length - 1];
  const nextCursor =
    rows.length > request.limit && last !== undefined ? cursors.encode(positionOf(last), request.binding) : undefined;
  return { items, nextCursor };
}
