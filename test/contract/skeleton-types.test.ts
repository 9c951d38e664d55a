/**
 * Type-level tests of the generated skeleton: `npm run typecheck` fails if any `@ts-expect-error`
 * below stops being an error, i.e. if the skeleton starts accepting a handlers object that is
 * incomplete or answers off-contract. The runtime part only checks the fixtures exist.
 */
import { describe, expect, it } from 'vitest';
import type { Handlers, OperationHandler, OperationInput } from '../../generated/server.js';

type Ctx = { readonly organizationId: string };
const complete = {} as Handlers<Ctx>;

const bankList = [{ id: 'nbe', name: 'National Bank of Egypt', shortName: 'NBE' }];

// A missing operation does not compile.
// @ts-expect-error Property 'getTransaction' is missing
const missing: Handlers<Ctx> = (({ getTransaction, ...rest }) => rest)(complete);

const undeclaredStatus: Handlers<Ctx> = {
  ...complete,
  // @ts-expect-error createTransfer answers 200, never 201 (decisions §1)
  createTransfer: async () => ({ status: 201, body: complete as never }),
};

const wrongBody: Handlers<Ctx> = {
  ...complete,
  // @ts-expect-error a bank without its shortName is not a Bank
  listBanks: async () => ({ status: 200, body: [{ id: 'nbe', name: 'National Bank of Egypt' }] }),
};

const wrongErrorBody: Handlers<Ctx> = {
  ...complete,
  // @ts-expect-error 'Oops' is not one of the ten ErrorType values
  getTransfer: async () => ({ status: 404, body: { message: 'no', type: 'Oops' } }),
};

const undeclaredErrorStatus: Handlers<Ctx> = {
  ...complete,
  // @ts-expect-error the bank list declares no 404
  listBanks: async () => ({ status: 404, body: { message: 'no', type: 'NotFound' } }),
};

// Inputs are typed from the document: headers, path parameters, query and body.
const inputs: OperationHandler<'createTransfer', Ctx> = async (input: OperationInput<'createTransfer'>) => {
  const key: string = input.headers['Idempotency-Key'];
  const amount: number = input.body.amountCents;
  // @ts-expect-error createTransfer has no path parameters
  const id: string = input.path.id;
  void key;
  void amount;
  void id;
  return { status: 400, body: { message: 'x', type: 'InvalidBankAccount' } };
};

const fine: Handlers<Ctx> = { ...complete, listBanks: async () => ({ status: 200, body: bankList }) };

describe('generated handler types', () => {
  it('are exercised by the type checker (npm run typecheck)', () => {
    expect([missing, undeclaredStatus, wrongBody, wrongErrorBody, undeclaredErrorStatus, inputs, fine]).toHaveLength(7);
  });
});
