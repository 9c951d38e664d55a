import { describe, expectTypeOf, it } from 'vitest';
import type { components } from '../generated/openapi-types.js';
import type { PartnerClient } from './index.js';
import type { ListItem, ListQuery } from './types.js';

/**
 * The SDK's typed surface (stack.md pitfall 10): the write headers the middleware owns are not
 * required at the call site, the caller may still pass an Idempotency-Key, and everything else
 * keeps the document's types. These checks run in the compiler (`tsc --noEmit`); the calls below
 * are only type-checked, never made.
 */
declare const sdk: PartnerClient;
const transfer = { amountCents: 1, currency: 'EGP', bankId: 'nbe', accountNumber: '123456', accountName: 'A', category: 'OTHER' } as const;

describe('typed surface', () => {
  it('write operations need no write headers', () => {
    expectTypeOf(() => sdk.POST('/v1/transfer', { body: transfer })).toBeFunction();
    expectTypeOf(() => sdk.POST('/v1/transfer/{id}/execute', { params: { path: { id: 'trf_1' } } })).toBeFunction();
    expectTypeOf(() => sdk.POST('/v1/transfer/{id}/cancel', { params: { path: { id: 'trf_1' }, header: { 'Idempotency-Key': 'caller-chosen-key' } } })).toBeFunction();
    expectTypeOf(() => sdk.PATCH('/v1/card/{id}/limits', { params: { path: { id: 'crd_1' } }, body: { daily: -100 } })).toBeFunction();
    expectTypeOf(() => sdk.PUT('/v1/card/{id}/limits', { params: { path: { id: 'crd_1' } }, body: { approvalBased: 100 } })).toBeFunction();
  });

  it('bodies, paths and queries keep the document’s types', () => {
    // @ts-expect-error the path id is still required
    expectTypeOf(() => sdk.POST('/v1/transfer/{id}/execute', {})).toBeFunction();
    // @ts-expect-error currency is the enum EGP
    expectTypeOf(() => sdk.POST('/v1/transfer', { body: { ...transfer, currency: 'USD' } })).toBeFunction();
    // @ts-expect-error statuses are TransactionStatus values
    expectTypeOf(() => sdk.GET('/v1/transaction', { params: { query: { statuses: ['PENDING'] } } })).toBeFunction();
    // @ts-expect-error no such operation
    expectTypeOf(() => sdk.DELETE('/v1/transfer/{id}', { params: { path: { id: 'x' } } })).toBeFunction();
  });

  it('results are typed by path', async () => {
    type Created = Awaited<ReturnType<typeof sdk.POST<'/v1/transfer', { body: typeof transfer }>>>;
    expectTypeOf<NonNullable<Created['data']>>().toEqualTypeOf<components['schemas']['Transfer']>();
    expectTypeOf<ListItem<'/v1/card'>>().toEqualTypeOf<components['schemas']['Card']>();
    expectTypeOf<ListItem<'/v1/transaction'>>().toEqualTypeOf<components['schemas']['Transaction']>();
    expectTypeOf<ListItem<'/v1/transfer'>>().toEqualTypeOf<components['schemas']['Transfer']>();
    expectTypeOf<keyof ListQuery<'/v1/transfer'>>().toEqualTypeOf<'limit' | 'status' | 'minAmountCents' | 'maxAmountCents'>();
  });
});
