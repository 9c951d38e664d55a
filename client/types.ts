import type { components, paths } from '../generated/openapi-types.js';

/**
 * The write headers (the document's "Signed write requests") that the SDK sets on every attempt. The timestamp and the
 * signature are the SDK's alone; the idempotency key stays open to the caller, who may pass one
 * to make a retry of their own (after a crash, say) land on the same operation.
 */
export type SdkOwnedHeader = 'X-Partner-Request-Timestamp' | 'X-Partner-Signature';
export type WriteHeader = SdkOwnedHeader | 'Idempotency-Key';

type RequiredKeys<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? never : K }[keyof T];

/** The caller's view of an operation's headers: write headers dropped, `Idempotency-Key` optional. */
type CallerHeaders<H> = Omit<H, WriteHeader> &
  ('Idempotency-Key' extends keyof H ? { 'Idempotency-Key'?: H['Idempotency-Key'] } : unknown);

type CallerParameters<P> = P extends { header: infer H }
  ? [RequiredKeys<CallerHeaders<H>>] extends [never]
    ? Omit<P, 'header'> & { header?: CallerHeaders<H> }
    : Omit<P, 'header'> & { header: CallerHeaders<H> }
  : P;

type CallerOperation<O> = O extends { parameters: unknown }
  ? { [K in keyof O]: K extends 'parameters' ? CallerParameters<O[K]> : O[K] }
  : O;

/**
 * `paths` of the document as the SDK's callers see them (openapi-fetch makes declared headers required at every call): identical except
 * that the write headers the middleware sets are no longer required at the call site, so
 * `client.POST('/v1/transfer', { body })` type-checks and the signature cannot be forgotten.
 */
export type PartnerPaths = { [P in keyof paths]: { [M in keyof paths[P]]: CallerOperation<paths[P][M]> } };

export type Schemas = components['schemas'];

/** Paths of the three keyset-paginated lists (the document's Pagination section), and the array each page holds. */
export const LIST_ITEMS = {
  '/v1/card': 'cards',
  '/v1/transfer': 'transfers',
  '/v1/transaction': 'transactions',
} as const;
export type ListPath = keyof typeof LIST_ITEMS;
export type ListPage<P extends ListPath> = paths[P]['get']['responses'][200]['content']['application/json'];
export type ListItem<P extends ListPath> =
  ListPage<P> extends Record<(typeof LIST_ITEMS)[P], readonly (infer Item)[]> ? Item : never;
/** A list's query without `cursor`, which paging owns. */
export type ListQuery<P extends ListPath> = Omit<NonNullable<paths[P]['get']['parameters']['query']>, 'cursor'>;
