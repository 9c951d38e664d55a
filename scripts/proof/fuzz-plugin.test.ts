import { describe, expect, it } from 'vitest';
import type { ReceivedResponse } from 'contract-first/check';
import { OPERATIONS, type FuzzCase } from './fuzz-cases.js';
import {
  checkResponse,
  checkExpected,
  compareSnapshots,
  type HistoryEntry,
  type Prepared,
  type Snapshot,
  type WriteSent,
} from './fuzz-plugin.js';

// Each check of the fuzz proof's plug-in (fuzz-plugin.ts) on a response that breaks it, and on
// one that keeps it: what the proof would report if the service broke the rule.

const operation = (id: string) => {
  const found = OPERATIONS.find((candidate) => candidate.operationId === id);
  if (found === undefined) throw new Error(`no operation ${id}`);
  return found;
};
const listCards = operation('listCards');
const createToken = operation('createToken');
const createTransfer = operation('createTransfer');

const responseWith = (status: number, body: unknown, headers: Record<string, string> = {}): ReceivedResponse => ({
  status,
  headers: { 'x-request-id': 'r', 'content-type': 'application/json', ...headers },
  body: typeof body === 'string' ? body : JSON.stringify(body),
  ms: 1,
});
const rejection = { message: 'no', type: 'InvalidRequest' };
const kinds = (found: readonly { kind: string; detail: string }[]): string[] =>
  found.map((verdict) => `${verdict.kind} ${verdict.detail}`.trim());

describe('checkResponse', () => {
  it.each<[string, { received: ReceivedResponse; target?: string; op?: typeof listCards; want: string[] }]>([
    ['a success as it should be', { received: responseWith(200, { items: [] }), want: [] }],
    ['a rejection as it should be', { received: responseWith(400, rejection), want: [] }],
    [
      'no X-Request-Id',
      {
        received: { ...responseWith(200, {}), headers: { 'content-type': 'application/json' } },
        want: ['proof:request-id'],
      },
    ],
    [
      'an X-Powered-By header',
      { received: responseWith(200, {}, { 'x-powered-by': 'Express' }), want: ['proof:powered-by'] },
    ],
    [
      'an error as HTML',
      {
        received: responseWith(400, rejection, { 'content-type': 'text/html' }),
        want: ['proof:error-shape content-type'],
      },
    ],
    [
      'an error body that is not an object',
      { received: responseWith(400, '[1]'), want: ['proof:error-shape not an object'] },
    ],
    [
      'an error body with more fields',
      { received: responseWith(400, { ...rejection, stack: 'x' }), want: ['proof:error-shape extra fields'] },
    ],
    [
      'an error without a message',
      { received: responseWith(400, { type: 'InvalidRequest' }), want: ['proof:error-shape message'] },
    ],
    [
      'details that are not text',
      { received: responseWith(400, { ...rejection, details: 3 }), want: ['proof:error-shape details'] },
    ],
    [
      'a type that is not an ErrorType',
      { received: responseWith(400, { message: 'no', type: 'Oops' }), want: ['proof:error-type not an ErrorType'] },
    ],
    [
      'a type with a status its table does not give it',
      { received: responseWith(400, { message: 'no', type: 'NotFound' }), want: ['proof:error-type NotFound'] },
    ],
    [
      'a token error without its RFC 6749 code',
      {
        received: responseWith(400, rejection),
        target: createToken.path,
        op: createToken,
        want: ['proof:token-error'],
      },
    ],
    [
      'a token error with its code',
      {
        received: responseWith(400, { ...rejection, error: 'invalid_request' }),
        target: createToken.path,
        op: createToken,
        want: [],
      },
    ],
    [
      'a stack frame',
      {
        received: responseWith(400, { ...rejection, message: 'boom\n    at handler (/work/server/x.ts:1:2)' }),
        want: ['proof:leak a stack frame', 'proof:leak a file path'],
      },
    ],
    [
      'SQL',
      {
        received: responseWith(400, { ...rejection, message: 'duplicate key value violates unique constraint' }),
        want: ['proof:leak SQL'],
      },
    ],
    [
      'a driver error',
      { received: responseWith(400, { ...rejection, message: 'SQLSTATE 23505' }), want: ['proof:leak a driver error'] },
    ],
    [
      'a JavaScript error name',
      {
        received: responseWith(400, { ...rejection, message: 'TypeError: x is undefined' }),
        want: ['proof:leak a JavaScript error name'],
      },
    ],
    [
      '401 without WWW-Authenticate',
      { received: responseWith(401, { message: 'no', type: 'Unauthorized' }), want: ['proof:header www-authenticate'] },
    ],
    [
      '403 without insufficient_scope',
      {
        received: responseWith(403, { message: 'no', type: 'Unauthorized' }, { 'www-authenticate': 'Bearer' }),
        want: ['proof:header www-authenticate'],
      },
    ],
    ['405 without Allow', { received: responseWith(405, rejection), want: ['proof:header allow'] }],
    ['429 without Retry-After', { received: responseWith(429, rejection), want: ['proof:header retry-after'] }],
  ])('%s', (_name, { received: given, target, op, want }) => {
    expect(kinds(checkResponse(op ?? listCards, target ?? listCards.path, 'GET', given))).toEqual(want);
  });
});

describe('checkExpected', () => {
  const testCase = {
    operationId: 'createTransfer',
    family: 'valid',
    note: 'nothing wrong',
  } as const satisfies Partial<FuzzCase>;
  const entry: HistoryEntry = {
    method: 'POST',
    target: '/v1/transfer',
    path: '/v1/transfer',
    body: undefined,
    contentHeaders: [],
    key: 'k',
    status: 200,
    received: { id: 'trf_1' },
  };
  const prepared = (expect: Prepared['expect'], replayOf?: HistoryEntry): Prepared => ({
    request: { method: 'POST', target: '/v1/transfer', headers: [] },
    operation: createTransfer,
    key: 'k',
    path: '/v1/transfer',
    expect,
    replayOf,
  });
  const full = {
    ...testCase,
    method: 'POST',
    path: '/v1/transfer',
    query: [],
    headers: [],
    auth: 'valid',
    expect: [],
  } satisfies FuzzCase;
  it.each<[string, { prepared: Prepared; received: ReceivedResponse; want: string[] }]>([
    [
      'the status and type expected',
      {
        prepared: prepared([{ status: 400, type: 'InvalidRequest' }]),
        received: responseWith(400, rejection),
        want: [],
      },
    ],
    [
      'another status',
      {
        prepared: prepared([{ status: 200 }]),
        received: responseWith(400, rejection),
        want: ['proof:status valid InvalidRequest'],
      },
    ],
    [
      'another type',
      {
        prepared: prepared([{ status: 400, type: 'InsufficientFunds' }]),
        received: responseWith(400, rejection),
        want: ['proof:status valid InvalidRequest'],
      },
    ],
    [
      'a replay as stored',
      {
        prepared: prepared([{ status: 200 }], entry),
        received: responseWith(200, { id: 'trf_1' }, { 'idempotent-replayed': 'true' }),
        want: [],
      },
    ],
    [
      'a replay not marked',
      {
        prepared: prepared([{ status: 200 }], entry),
        received: responseWith(200, { id: 'trf_1' }),
        want: ['proof:replay header'],
      },
    ],
    [
      'a replay with another received',
      {
        prepared: prepared([{ status: 200 }], entry),
        received: responseWith(200, { id: 'trf_2' }, { 'idempotent-replayed': 'true' }),
        want: ['proof:replay response'],
      },
    ],
  ])('%s', (_name, { prepared: given, received: got, want }) => {
    expect(kinds(checkExpected(full, given, got))).toEqual(want);
  });
});

describe('compareSnapshots', () => {
  const before: Snapshot = {
    balance: 100,
    transfers: '[1]',
    cards: '[2]',
    keys: new Map([['old', { status: 200, body: { id: 'a' } }]]),
  };
  const write: WriteSent = { key: 'new', replay: false, ownMethod: true };
  const withKey = (key: string, status: number, body: unknown): Snapshot => ({
    ...before,
    keys: new Map([...before.keys, [key, { status, body }]]),
  });
  it.each<[string, { after: Snapshot; received: ReceivedResponse; want: string[] }]>([
    ['a rejection that changes nothing', { after: before, received: responseWith(400, rejection), want: [] }],
    [
      'a rejection stored with its own key, as sent',
      { after: withKey('new', 400, rejection), received: responseWith(400, rejection), want: [] },
    ],
    [
      'a rejection that moves money',
      {
        after: { ...before, balance: 90 },
        received: responseWith(400, rejection),
        want: ['proof:rejected-write balance'],
      },
    ],
    [
      'a rejection that changes transfers',
      {
        after: { ...before, transfers: '[1,2]' },
        received: responseWith(400, rejection),
        want: ['proof:rejected-write transfers'],
      },
    ],
    [
      'a rejection that changes card limits',
      {
        after: { ...before, cards: '[3]' },
        received: responseWith(400, rejection),
        want: ['proof:rejected-write cards'],
      },
    ],
    [
      'a rejection that changes a stored key',
      {
        after: { ...before, keys: new Map([['old', { status: 500, body: {} }]]) },
        received: responseWith(400, rejection),
        want: ['proof:rejected-write stored keys'],
      },
    ],
    [
      'a rejection that stores another key',
      {
        after: withKey('stray', 400, rejection),
        received: responseWith(400, rejection),
        want: ['proof:rejected-write other keys'],
      },
    ],
    [
      'a rejection stored otherwise than sent',
      {
        after: withKey('new', 400, { message: 'other' }),
        received: responseWith(400, rejection),
        want: ['proof:stored-response not as sent'],
      },
    ],
    [
      'a 401 that stores its key',
      {
        after: withKey('new', 401, { message: 'no', type: 'Unauthorized' }),
        received: responseWith(401, { message: 'no', type: 'Unauthorized' }),
        want: ['proof:stored-response stored rejection'],
      },
    ],
    [
      'a success stored with its key',
      { after: withKey('new', 200, { id: 'b' }), received: responseWith(200, { id: 'b' }), want: [] },
    ],
    [
      'a success not stored',
      { after: before, received: responseWith(200, { id: 'b' }), want: ['proof:stored-response not stored'] },
    ],
  ])('%s', (_name, { after, received: got, want }) => {
    expect(kinds(compareSnapshots(before, after, write, got))).toEqual(want);
  });
});
