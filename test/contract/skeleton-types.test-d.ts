/**
 * Type-level tests of the generated skeleton, checked by the compiler (the `types` project of
 * vitest, and `npm run typecheck`) and never run: each `@ts-expect-error` fails the check if the
 * line below it stops being an error, i.e. if the skeleton starts accepting a handlers object that
 * is incomplete or responds off-contract.
 */
import { assertType, describe, expectTypeOf, it } from 'vitest';
import type { components } from '../../generated/openapi-types.js';
import type {
  ResponseBody,
  Handlers,
  OperationHandler,
  OperationId,
  OperationInput,
  OperationResult,
} from '../../generated/server.js';
import { routes } from '../../generated/server.js';
import { jsonText } from 'contract-first/runtime';

type Ctx = { readonly organizationId: string };
type Schemas = components['schemas'];
declare const complete: Handlers<Ctx>;
const bankList = [{ id: 'nbe', name: 'National Bank of Egypt', shortName: 'NBE' }];

describe('Handlers', () => {
  it('has one handler per operation of the document', () => {
    // The operations are the document's: the same set as the route table's, whatever it holds.
    expectTypeOf<OperationId>().toEqualTypeOf<keyof typeof routes>();
    expectTypeOf<'getTransfer'>().toExtend<OperationId>();
    expectTypeOf<'deleteEverything'>().not.toExtend<OperationId>();
    expectTypeOf<keyof Handlers<Ctx>>().toEqualTypeOf<OperationId>();
    expectTypeOf(complete.getTransfer).toEqualTypeOf<OperationHandler<'getTransfer', Ctx>>();
  });

  it('rejects a handlers object without an operation', () => {
    const { getTransaction, ...rest } = complete;
    void getTransaction;
    // @ts-expect-error Property 'getTransaction' is missing
    assertType<Handlers<Ctx>>(rest);
  });

  it('accepts a handler responding with a declared status with its body', () => {
    assertType<Handlers<Ctx>>({ ...complete, listBanks: async () => ({ status: 200, body: bankList }) });
    assertType<Handlers<Ctx>>({
      ...complete,
      getTransfer: async () => ({ status: 404, body: { message: 'no', type: 'NotFound' } }),
    });
  });

  it('rejects an undeclared success status', () => {
    assertType<Handlers<Ctx>>({
      ...complete,
      // @ts-expect-error createTransfer responds with 200, never 201
      createTransfer: async () => ({ status: 201, body: {} as Schemas['Transfer'] }),
    });
  });

  it('rejects an undeclared error status', () => {
    assertType<Handlers<Ctx>>({
      ...complete,
      // @ts-expect-error the bank list declares no 404
      listBanks: async () => ({ status: 404, body: { message: 'no', type: 'NotFound' } }),
    });
  });

  it('rejects a body not of the declared schema', () => {
    assertType<Handlers<Ctx>>({
      ...complete,
      // @ts-expect-error a bank without its shortName is not a Bank
      listBanks: async () => ({ status: 200, body: [{ id: 'nbe', name: 'National Bank of Egypt' }] }),
    });
    assertType<Handlers<Ctx>>({
      ...complete,
      // @ts-expect-error 'Oops' is not an ErrorType
      getTransfer: async () => ({ status: 404, body: { message: 'no', type: 'Oops' } }),
    });
  });

  it('rejects a handler of another operation', () => {
    const getCard: OperationHandler<'getCard', Ctx> = complete.getCard;
    // @ts-expect-error a card is not a transfer
    assertType<Handlers<Ctx>>({ ...complete, getTransfer: getCard });
  });
});

describe('OperationResult', () => {
  it('is one of the statuses the operation declares', () => {
    expectTypeOf<OperationResult<'createTransfer'>['status']>().toEqualTypeOf<
      200 | 400 | 401 | 403 | 409 | 413 | 415 | 422 | 500 | 503
    >();
    expectTypeOf<OperationResult<'getTransfer'>['status']>().toEqualTypeOf<200 | 400 | 401 | 403 | 404 | 500 | 503>();
  });

  it('pairs each status with its body', () => {
    expectTypeOf<ResponseBody<'getTransfer', 200, 'application/json'>>().toEqualTypeOf<Schemas['Transfer']>();
    expectTypeOf<ResponseBody<'getTransfer', 404, 'application/json'>>().toEqualTypeOf<Schemas['Error']>();
    expectTypeOf<ResponseBody<'listBanks', 200, 'application/json'>>().toEqualTypeOf<Schemas['Bank'][]>();
    expectTypeOf<ResponseBody<'getTransfer', 201, 'application/json'>>().toBeNever();
  });

  it('takes a JSON body as its text only when the text claims the body the status declares', () => {
    assertType<OperationResult<'getTransfer'>>({ status: 200, body: jsonText<Schemas['Transfer']>('{}') });
    assertType<OperationResult<'getTransfer'>>({ status: 404, body: jsonText<Schemas['Error']>('{}') });
    // @ts-expect-error an error's text is not a transfer
    assertType<OperationResult<'getTransfer'>>({ status: 200, body: jsonText<Schemas['Error']>('{}') });
  });
});

describe('OperationInput', () => {
  it('types the headers, path parameters, query and body from the document', () => {
    expectTypeOf<OperationInput<'createTransfer'>['headers']['Idempotency-Key']>().toEqualTypeOf<string>();
    expectTypeOf<OperationInput<'createTransfer'>['body']>().toEqualTypeOf<Schemas['CreateTransferRequest']>();
    expectTypeOf<OperationInput<'getTransfer'>['path']>().toEqualTypeOf<{ id: string }>();
    expectTypeOf<OperationInput<'getTransfer'>['body']>().toBeUndefined();
    expectTypeOf<OperationInput<'listTransfers'>['query']>().toHaveProperty('cursor');
  });

  it('has no path parameter an operation does not declare', () => {
    const handler: OperationHandler<'createTransfer', Ctx> = async (input) => {
      // @ts-expect-error createTransfer has no path parameters
      const id: string = input.path.id;
      void id;
      return { status: 400, body: { message: 'x', type: 'InvalidBankAccount' } };
    };
    void handler;
  });
});

describe('routes', () => {
  it('keys each route by its operationId', () => {
    expectTypeOf(routes.getTransfer.operationId).toEqualTypeOf<'getTransfer'>();
    // @ts-expect-error no such operation
    void routes.deleteTransfer;
  });
});
