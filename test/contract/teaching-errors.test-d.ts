/**
 * Type-level tests of what the compiler says of a handler off the contract, checked by the compiler
 * (the `types` project of vitest, and `npm run typecheck`) and never run. A handler's response is
 * checked against the operation's declared responses plus one member that no value has,
 * `UndeclaredStatus`, whose type names the operation and its statuses: a response with a status the
 * operation does not declare is reported against it, so that text is in the message. The text of
 * the messages themselves is asserted by test/contract/teaching-errors.test.ts, which compiles
 * such handlers with the TypeScript compiler.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { components } from '../../generated/openapi-types.js';
import type { OperationHandler, OperationId, OperationResult } from '../../generated/server.js';
import { idempotentWrite, operation } from '../../server/http/handler-kinds.js';

type Schemas = components['schemas'];
declare const transfer: Schemas['Transfer'];
declare const card: Schemas['Card'];

/** What a handler of `K` may respond, as its type says. */
type HandlerResult<K extends OperationId> = Awaited<ReturnType<OperationHandler<K, unknown>>>;
/** The member of it that carries the message. */
type Undeclared<K extends OperationId> = Exclude<HandlerResult<K>, OperationResult<K>>;
type MessageOf<K extends OperationId> = Undeclared<K>[Extract<keyof Undeclared<K>, symbol>];

describe('the message of an undeclared status', () => {
  it('names the operation and the statuses it declares, in order', () => {
    expectTypeOf<
      MessageOf<'getTransfer'>
    >().toEqualTypeOf<'getTransfer responds with one of 200 | 400 | 401 | 403 | 404 | 500 | 503'>();
    expectTypeOf<
      MessageOf<'listBanks'>
    >().toEqualTypeOf<'listBanks responds with one of 200 | 304 | 400 | 500 | 503'>();
    expectTypeOf<
      MessageOf<'createTransfer'>
    >().toEqualTypeOf<'createTransfer responds with one of 200 | 400 | 401 | 403 | 409 | 413 | 415 | 422 | 500 | 503'>();
  });

  it('is reached by the statuses the operation does not declare, and by no other', () => {
    expectTypeOf<201>().toExtend<Undeclared<'getTransfer'>['status']>();
    expectTypeOf<599>().toExtend<Undeclared<'getTransfer'>['status']>();
    expectTypeOf<Extract<Undeclared<'getTransfer'>['status'], OperationResult<'getTransfer'>['status']>>().toBeNever();
  });

  it('adds no response a handler can give: the declared responses are exactly what they were', () => {
    expectTypeOf<Exclude<HandlerResult<'getTransfer'>, Undeclared<'getTransfer'>>>().toEqualTypeOf<
      OperationResult<'getTransfer'>
    >();
    expectTypeOf<OperationResult<'getTransfer'>['status']>().toEqualTypeOf<200 | 400 | 401 | 403 | 404 | 500 | 503>();
  });
});

describe('handlers', () => {
  it('accepts a declared response, one of several declared statuses, and an OperationResult made elsewhere', () => {
    operation<'getTransfer'>(async () => ({ status: 200, body: transfer }));
    const status = 400 as 400 | 404;
    idempotentWrite<'cancelTransfer'>(async () => ({ status, body: { message: 'no', type: 'NotFound' } }));
    const notFound = (): OperationResult<'getTransfer'> => ({ status: 404, body: { message: 'no', type: 'NotFound' } });
    operation<'getTransfer'>(async () => notFound());
  });

  it('rejects an undeclared status', () => {
    // @ts-expect-error getTransfer responds with one of 200 | 400 | 401 | 403 | 404 | 500 | 503, not 201
    operation<'getTransfer'>(async () => ({ status: 201, body: transfer }));
    operation<'getTransfer'>(async () =>
      // @ts-expect-error 202 is not declared either, whatever the other branch returns
      Math.random() > 0.5 ? { status: 200, body: transfer } : { status: 202, body: transfer },
    );
    const status = 400 as 400 | 402;
    // @ts-expect-error 402 is not declared
    idempotentWrite<'cancelTransfer'>(async () => ({ status, body: { message: 'no', type: 'NotFound' } }));
    // @ts-expect-error a status outside 100–599 is not declared either
    operation<'getTransfer'>(async () => ({ status: 600, body: transfer }));
  });

  it('rejects a body off its schema', () => {
    // @ts-expect-error a card is not a transfer
    operation<'getTransfer'>(async () => ({ status: 200, body: card }));
    // @ts-expect-error amountCents is a number
    operation<'getTransfer'>(async () => ({ status: 200, body: { ...transfer, amountCents: '5' } }));
    // @ts-expect-error 'Oops' is not an ErrorType
    operation<'getTransfer'>(async () => ({ status: 404, body: { message: 'no', type: 'Oops' } }));
  });

  it('rejects a response that imitates the message member', () => {
    // @ts-expect-error its key is a symbol the generated file does not export
    operation<'getTransfer'>(async () => ({
      status: 201,
      undeclaredStatus: 'getTransfer responds with one of 200 | 400 | 401 | 403 | 404 | 500 | 503',
    }));
  });
});
