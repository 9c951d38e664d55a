/**
 * Type-level tests of the handler kinds, checked by the compiler (the `types` project of vitest,
 * and `npm run typecheck`) and never run: a handler of the wrong kind for its operation, or a
 * write handler reaching past its transaction, does not compile.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { Kysely, Transaction } from 'kysely';
import type { OperationId } from '../../generated/server.js';
import type { DB } from '../database/index.js';
import {
  idempotentWrite,
  operation,
  type OperationContext,
  type ServiceHandlers,
  type SignedWriteId,
  type WriteContext,
} from './handler-kinds.js';
import { handlers } from './handlers/index.js';

describe('handler kinds', () => {
  it('reads the signed writes from the document: the operations that declare the write-request headers', () => {
    expectTypeOf<'createTransfer'>().toExtend<SignedWriteId>();
    expectTypeOf<'updateCardLimits'>().toExtend<SignedWriteId>();
    expectTypeOf<'getTransfer'>().not.toExtend<SignedWriteId>();
    // A POST that takes no write-request headers is not one.
    expectTypeOf<'createToken'>().not.toExtend<SignedWriteId>();
    expectTypeOf<SignedWriteId>().toExtend<OperationId>();
  });

  it('gives a write handler its transaction and an authenticated caller, and an operation the database', () => {
    expectTypeOf<WriteContext['tx']>().toEqualTypeOf<Transaction<DB>>();
    expectTypeOf<WriteContext>().not.toHaveProperty('db');
    // Nor through its services: the transaction is its one way to the database.
    expectTypeOf<WriteContext['services']>().not.toHaveProperty('db');
    expectTypeOf<WriteContext['services']>().not.toHaveProperty('readCard');
    expectTypeOf<WriteContext['services']>().not.toHaveProperty('runOverRows');
    expectTypeOf<WriteContext['principal']>().not.toBeUndefined();
    expectTypeOf<OperationContext['db']>().toEqualTypeOf<Kysely<DB>>();
    expectTypeOf<OperationContext>().not.toHaveProperty('tx');
  });

  it('rejects a signed write declared as an operation', () => {
    const wrong: ServiceHandlers = {
      ...handlers,
      // @ts-expect-error createTransfer declares the write-request headers: it must be an idempotent write
      createTransfer: operation<'createTransfer'>(async () => ({
        status: 400,
        body: { message: 'no', type: 'InvalidRequest' },
      })),
    };
    void wrong;
  });

  it('rejects a read declared as an idempotent write', () => {
    const wrong: ServiceHandlers = {
      ...handlers,
      // @ts-expect-error getTransfer declares no write-request headers: it must not be an idempotent write
      getTransfer: idempotentWrite<'getTransfer'>(async () => ({
        status: 404,
        body: { message: 'no', type: 'NotFound' },
      })),
    };
    void wrong;
  });

  it('rejects a write handler that uses the database outside its transaction', () => {
    idempotentWrite<'cancelTransfer'>(async (_input, ctx) => {
      // @ts-expect-error a write handler has no ctx.db: its statements go through ctx.tx
      void ctx.db;
      return { status: 404, body: { message: 'no', type: 'NotFound' } };
    });
  });
});
