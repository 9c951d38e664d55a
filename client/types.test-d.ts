/**
 * The SDK's typed surface, checked by the compiler (the `types` project of vitest, and
 * `npm run typecheck`) and never run: the write headers the middleware owns are not required at
 * the call site, the caller may still pass an Idempotency-Key, and everything else keeps the
 * document's types. Each `@ts-expect-error` fails the check if the call below it compiles.
 */
import { assertType, describe, expectTypeOf, it } from 'vitest';
import type { components, paths } from '../generated/openapi-types.js';
import type { PartnerClient } from './index.js';
import type { ListItem, ListQuery, PartnerPaths, SdkOwnedHeader } from './types.js';

type Schemas = components['schemas'];
declare const sdk: PartnerClient;
const transfer = {
  amountCents: 1,
  currency: 'EGP',
  bankId: 'nbe',
  accountNumber: '123456',
  accountName: 'A',
  category: 'OTHER',
} as const;

describe('write operations', () => {
  it('need no write headers', () => {
    assertType(sdk.POST('/v1/transfer', { body: transfer }));
    assertType(sdk.POST('/v1/transfer/{id}/execute', { params: { path: { id: 'trf_1' } } }));
    assertType(sdk.PATCH('/v1/card/{id}/limits', { params: { path: { id: 'crd_1' } }, body: { daily: -100 } }));
    assertType(sdk.PUT('/v1/card/{id}/limits', { params: { path: { id: 'crd_1' } }, body: { approvalBased: 100 } }));
  });

  it('take an Idempotency-Key from the caller', () => {
    assertType(
      sdk.POST('/v1/transfer/{id}/cancel', {
        params: { path: { id: 'trf_1' }, header: { 'Idempotency-Key': 'caller-chosen-key' } },
      }),
    );
    assertType(
      // @ts-expect-error the key is a string
      sdk.POST('/v1/transfer/{id}/cancel', { params: { path: { id: 'trf_1' }, header: { 'Idempotency-Key': 42 } } }),
    );
  });

  it('drop only the write headers from the document', () => {
    type DocumentHeaders = NonNullable<paths['/v1/transfer']['post']['parameters']['header']>;
    type CallerHeaders = NonNullable<PartnerPaths['/v1/transfer']['post']['parameters']['header']>;
    expectTypeOf<keyof DocumentHeaders>().toEqualTypeOf<'Idempotency-Key' | SdkOwnedHeader>();
    expectTypeOf<SdkOwnedHeader>().toEqualTypeOf<'X-Partner-Request-Timestamp' | 'X-Partner-Signature'>();
    expectTypeOf<keyof CallerHeaders>().toEqualTypeOf<'Idempotency-Key'>();
    expectTypeOf<CallerHeaders['Idempotency-Key']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<{}>().toExtend<CallerHeaders>();
    expectTypeOf<PartnerPaths['/v1/transfer']['post']['requestBody']>().toEqualTypeOf<
      paths['/v1/transfer']['post']['requestBody']
    >();
    expectTypeOf<PartnerPaths['/v1/transfer']['post']['responses']>().toEqualTypeOf<
      paths['/v1/transfer']['post']['responses']
    >();
  });
});

describe('bodies, paths and queries', () => {
  it('keep the document’s types', () => {
    // @ts-expect-error the path id is still required
    assertType(sdk.POST('/v1/transfer/{id}/execute', {}));
    // @ts-expect-error currency is the enum EGP
    assertType(sdk.POST('/v1/transfer', { body: { ...transfer, currency: 'USD' } }));
    assertType(
      sdk.POST('/v1/transfer', {
        // @ts-expect-error amountCents is required
        body: { currency: 'EGP', bankId: 'nbe', accountNumber: '123456', accountName: 'A', category: 'OTHER' },
      }),
    );
    // @ts-expect-error statuses are TransactionStatus values
    assertType(sdk.GET('/v1/transaction', { params: { query: { statuses: ['PENDING'] } } }));
    assertType(sdk.GET('/v1/transaction', { params: { query: { statuses: ['SUCCEEDED', 'DECLINED'] } } }));
  });

  it('reject an operation the document does not have', () => {
    // @ts-expect-error no DELETE on a transfer
    assertType(sdk.DELETE('/v1/transfer/{id}', { params: { path: { id: 'x' } } }));
    // @ts-expect-error no such path
    assertType(sdk.GET('/v1/transfers', {}));
  });
});

describe('results', () => {
  it('are typed by path', () => {
    type Created = Awaited<ReturnType<typeof sdk.POST<'/v1/transfer', { body: typeof transfer }>>>;
    expectTypeOf<NonNullable<Created['data']>>().toEqualTypeOf<Schemas['Transfer']>();
    expectTypeOf<NonNullable<Created['error']>>().toEqualTypeOf<Schemas['Error']>();
  });

  it('of a list are its items, and its query has no cursor', () => {
    expectTypeOf<ListItem<'/v1/card'>>().toEqualTypeOf<Schemas['Card']>();
    expectTypeOf<ListItem<'/v1/transaction'>>().toEqualTypeOf<Schemas['Transaction']>();
    expectTypeOf<ListItem<'/v1/transfer'>>().toEqualTypeOf<Schemas['Transfer']>();
    expectTypeOf<keyof ListQuery<'/v1/transfer'>>().toEqualTypeOf<
      'limit' | 'status' | 'minAmountCents' | 'maxAmountCents'
    >();
    expectTypeOf(sdk.paginate('/v1/card')).toEqualTypeOf<AsyncGenerator<Schemas['Card'], void, undefined>>();
    // @ts-expect-error paging owns the cursor
    assertType(sdk.paginate('/v1/transfer', { query: { cursor: 'abc' } }));
    // @ts-expect-error banks are not a paginated list
    assertType(sdk.paginate('/v1/bank'));
  });
});
