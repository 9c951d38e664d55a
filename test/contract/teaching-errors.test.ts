import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileDiagnostics } from 'contract-first/testing';
import { PROJECT_ROOT } from '../helpers/project-root.js';

/**
 * What a developer reads when a handler responds off the contract: handlers written in a temporary
 * folder against generated/server.ts and server/http/handler-kinds.ts, compiled with the project's
 * settings by the TypeScript compiler, and the text of each error. The type-level side is in
 * teaching-errors.test-d.ts; README.md, "Compile errors and what they mean", shows the messages.
 */

const GET_TRANSFER = 'getTransfer responds with one of 200 | 400 | 401 | 403 | 404 | 500 | 503';
const GET_TRANSFER_RESPONSE = 'OperationResponse<"getTransfer", "200 | 400 | 401 | 403 | 404 | 500 | 503">';

const imports = `
import type { components } from ${JSON.stringify(path.join(PROJECT_ROOT, 'generated/openapi-types.js'))};
import type { Handlers, OperationHandler } from ${JSON.stringify(path.join(PROJECT_ROOT, 'generated/server.js'))};
import { idempotentWrite, operation } from ${JSON.stringify(path.join(PROJECT_ROOT, 'server/http/handler-kinds.js'))};
declare const transfer: components['schemas']['Transfer'];
declare const complete: Handlers<unknown>;
void complete;
`;

/** One handler per file, so that each file's errors are that handler's. */
const SNIPPETS = {
  undeclaredStatus: `export const getTransfer = operation<'getTransfer'>(async () => ({ status: 201, body: transfer }));`,
  undeclaredStatusOfTwo: `export const getTransfer = operation<'getTransfer'>(async (input) => {
  if (input.path.id === '') return { status: 404, body: { message: 'no', type: 'NotFound' } };
  return { status: 201, body: transfer };
});`,
  undeclaredStatusAnnotated: `export const getTransfer: OperationHandler<'getTransfer', unknown> = async () => ({ status: 201, body: transfer });`,
  undeclaredStatusInHandlers: `export const handlers: Handlers<unknown> = { ...complete, getTransfer: async () => ({ status: 201, body: transfer }) };`,
  wrongBodyField: `export const getTransfer = operation<'getTransfer'>(async () => ({ status: 200, body: { ...transfer, amountCents: '5' } }));`,
  wrongBodyValue: `export const getTransfer = operation<'getTransfer'>(async () => ({ status: 404, body: { message: 'no', type: 'Oops' } }));`,
  valid: `export const getTransfer = operation<'getTransfer'>(async (input) => {
  if (input.path.id === '') return { status: 404, body: { message: 'no', type: 'NotFound' } };
  return { status: 200, body: transfer };
});
const status = 400 as 400 | 404;
export const cancelTransfer = idempotentWrite<'cancelTransfer'>(async () => ({ status, body: { message: 'no', type: 'NotFound' } }));`,
} as const;
type Snippet = keyof typeof SNIPPETS;

let work = '';
const messages = new Map<Snippet, string[]>();

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'teaching-errors-'));
  await writeFile(path.join(work, 'package.json'), '{ "type": "module" }\n');
  const files = new Map<string, Snippet>();
  for (const [name, code] of Object.entries(SNIPPETS) as [Snippet, string][]) {
    const file = path.join(work, `${name}.ts`);
    await writeFile(file, `${imports}\n${code}\n`);
    files.set(file, name);
  }
  const compiled = compileDiagnostics(PROJECT_ROOT, [...files.keys()]);
  for (const [file, name] of files) messages.set(name, compiled.get(file) ?? []);
}, 60_000);
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

const only = (name: Snippet): string => {
  const found = messages.get(name) ?? [];
  expect(found, name).toHaveLength(1);
  return found[0] ?? '';
};

describe('a handler off the contract fails to compile with a message that names the operation and its statuses', () => {
  it('compiles a valid handler, one responding with either of two declared statuses included', () => {
    expect(messages.get('valid')).toEqual([]);
  });

  it.each([
    'undeclaredStatus',
    'undeclaredStatusOfTwo',
    'undeclaredStatusAnnotated',
    'undeclaredStatusInHandlers',
  ] as const)('an undeclared status (%s): the statuses getTransfer declares, and the 201 it responded with', (name) => {
    const message = only(name);
    expect(message).toContain(GET_TRANSFER);
    expect(message).toContain(GET_TRANSFER_RESPONSE);
    expect(message).toMatch(/Property '\[undeclaredStatus\]' is missing in type '\{ status: 201;/);
  });

  it('names the operation in the first line: the response of an arrow that returns it, else the handler', () => {
    expect(only('undeclaredStatus').split('\n')[0]).toContain(
      `is not assignable to type 'Promise<${GET_TRANSFER_RESPONSE}>'`,
    );
    expect(only('undeclaredStatusOfTwo').split('\n')[0]).toContain(
      `is not assignable to parameter of type 'OperationHandler<"getTransfer", OperationContext>'`,
    );
  });

  it('a body field of the wrong type: the operation, its statuses, and the field', () => {
    const message = only('wrongBodyField');
    expect(message).toContain(GET_TRANSFER_RESPONSE);
    expect(message).toContain("The types of 'body.amountCents' are incompatible between these types.");
    expect(message).toContain("Type 'string' is not assignable to type 'number'.");
  });

  it('a body value off its enum: the operation, its statuses, and the value', () => {
    const message = only('wrongBodyValue');
    expect(message).toContain(GET_TRANSFER_RESPONSE);
    expect(message).toContain("The types of 'body.type' are incompatible between these types.");
    expect(message).toContain(`Type '"Oops"' is not assignable to type`);
  });
});
