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

const answer = (status: number, body: unknown, headers: Record<string, string> = {}): ReceivedResponse => ({
  status,
  headers: { 'x-request-id': 'r', 'content-type': 'application/json', ...headers },
  body: typeof body === 'string' ? body : JSON.stringify(body),
  ms: 1,
});
const refusal = { message: 'no', type: 'InvalidRequest' };
const kinds = (found: readonly { kind: string; detail: string }[]): string[] =>
  found.map((verdict) => `${verdict.kind} ${verdict.detail}`.trim());

describe('checkResponse', () => {
  it.each<[string, { answer: ReceivedResponse; target?: string; op?: typeof listCards; want: string[] }]>([
    ['a success as it should be', { answer: answer(200, { items: [] }), want: [] }],
    ['a refusal as it should be', { answer: answer(400, refusal), want: [] }],
    [
      'no X-Request-Id',
      { answer: { ...answer(200, {}), headers: { 'content-type': 'application/json' } }, want: ['proof:request-id'] },
    ],
    ['an X-Powered-By header', { answer: answer(200, {}, { 'x-powered-by': 'Express' }), want: ['proof:powered-by'] }],
    [
      'an error as HTML',
      { answer: answer(400, refusal, { 'content-type': 'text/html' }), want: ['proof:error-shape content-type'] },
    ],
    ['an error body that is not an object', { answer: answer(400, '[1]'), want: ['proof:error-shape not an object'] }],
    [
      'an error body with more fields',
      { answer: answer(400, { ...refusal, stack: 'x' }), want: ['proof:error-shape extra fields'] },
    ],
    [
      'an error without a message',
      { answer: answer(400, { type: 'InvalidRequest' }), want: ['proof:error-shape message'] },
    ],
    [
      'details that are not text',
      { answer: answer(400, { ...refusal, details: 3 }), want: ['proof:error-shape details'] },
    ],
    [
      'a type that is not an ErrorType',
      { answer: answer(400, { message: 'no', type: 'Oops' }), want: ['proof:error-type not an ErrorType'] },
    ],
    [
      'a type with a status its table does not give it',
      { answer: answer(400, { message: 'no', type: 'NotFound' }), want: ['proof:error-type NotFound'] },
    ],
    [
      'a token error without its RFC 6749 code',
      { answer: answer(400, refusal), target: createToken.path, op: createToken, want: ['proof:token-error'] },
    ],
    [
      'a token error with its code',
      {
        answer: answer(400, { ...refusal, error: 'invalid_request' }),
        target: createToken.path,
        op: createToken,
        want: [],
      },
    ],
    [
      'a stack frame',
      {
        answer: answer(400, { ...refusal, message: 'boom\n    at handler (/work/server/x.ts:1:2)' }),
        want: ['proof:leak a stack frame', 'proof:leak a file path'],
      },
    ],
    [
      'SQL',
      {
        answer: answer(400, { ...refusal, message: 'duplicate key value violates unique constraint' }),
        want: ['proof:leak SQL'],
      },
    ],
    [
      'a driver error',
      { answer: answer(400, { ...refusal, message: 'SQLSTATE 23505' }), want: ['proof:leak a driver error'] },
    ],
    [
      'a JavaScript error name',
      {
        answer: answer(400, { ...refusal, message: 'TypeError: x is undefined' }),
        want: ['proof:leak a JavaScript error name'],
      },
    ],
    [
      '401 without WWW-Authenticate',
      { answer: answer(401, { message: 'no', type: 'Unauthorized' }), want: ['proof:header www-authenticate'] },
    ],
    [
      '403 without insufficient_scope',
      {
        answer: answer(403, { message: 'no', type: 'Unauthorized' }, { 'www-authenticate': 'Bearer' }),
        want: ['proof:header www-authenticate'],
      },
    ],
    ['405 without Allow', { answer: answer(405, refusal), want: ['proof:header allow'] }],
    ['429 without Retry-After', { answer: answer(429, refusal), want: ['proof:header retry-after'] }],
  ])('%s', (_name, { answer: given, target, op, want }) => {
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
    answer: { id: 'trf_1' },
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
  it.each<[string, { prepared: Prepared; answer: ReceivedResponse; want: string[] }]>([
    [
      'the status and type expected',
      { prepared: prepared([{ status: 400, type: 'InvalidRequest' }]), answer: answer(400, refusal), want: [] },
    ],
    [
      'another status',
      {
        prepared: prepared([{ status: 200 }]),
        answer: answer(400, refusal),
        want: ['proof:status valid InvalidRequest'],
      },
    ],
    [
      'another type',
      {
        prepared: prepared([{ status: 400, type: 'InsufficientFunds' }]),
        answer: answer(400, refusal),
        want: ['proof:status valid InvalidRequest'],
      },
    ],
    [
      'a replay as stored',
      {
        prepared: prepared([{ status: 200 }], entry),
        answer: answer(200, { id: 'trf_1' }, { 'idempotent-replayed': 'true' }),
        want: [],
      },
    ],
    [
      'a replay not marked',
      {
        prepared: prepared([{ status: 200 }], entry),
        answer: answer(200, { id: 'trf_1' }),
        want: ['proof:replay header'],
      },
    ],
    [
      'a replay with another answer',
      {
        prepared: prepared([{ status: 200 }], entry),
        answer: answer(200, { id: 'trf_2' }, { 'idempotent-replayed': 'true' }),
        want: ['proof:replay answer'],
      },
    ],
  ])('%s', (_name, { prepared: given, answer: got, want }) => {
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
  it.each<[string, { after: Snapshot; answer: ReceivedResponse; want: string[] }]>([
    ['a refusal that changes nothing', { after: before, answer: answer(400, refusal), want: [] }],
    [
      'a refusal stored with its own key, as sent',
      { after: withKey('new', 400, refusal), answer: answer(400, refusal), want: [] },
    ],
    [
      'a refusal that moves money',
      { after: { ...before, balance: 90 }, answer: answer(400, refusal), want: ['proof:rejected-write balance'] },
    ],
    [
      'a refusal that changes transfers',
      {
        after: { ...before, transfers: '[1,2]' },
        answer: answer(400, refusal),
        want: ['proof:rejected-write transfers'],
      },
    ],
    [
      'a refusal that changes card limits',
      { after: { ...before, cards: '[3]' }, answer: answer(400, refusal), want: ['proof:rejected-write cards'] },
    ],
    [
      'a refusal that changes a stored key',
      {
        after: { ...before, keys: new Map([['old', { status: 500, body: {} }]]) },
        answer: answer(400, refusal),
        want: ['proof:rejected-write stored keys'],
      },
    ],
    [
      'a refusal that stores another key',
      {
        after: withKey('stray', 400, refusal),
        answer: answer(400, refusal),
        want: ['proof:rejected-write other keys'],
      },
    ],
    [
      'a refusal stored otherwise than sent',
      {
        after: withKey('new', 400, { message: 'other' }),
        answer: answer(400, refusal),
        want: ['proof:stored-answer not as sent'],
      },
    ],
    [
      'a 401 that stores its key',
      {
        after: withKey('new', 401, { message: 'no', type: 'Unauthorized' }),
        answer: answer(401, { message: 'no', type: 'Unauthorized' }),
        want: ['proof:stored-answer stored refusal'],
      },
    ],
    [
      'a success stored with its key',
      { after: withKey('new', 200, { id: 'b' }), answer: answer(200, { id: 'b' }), want: [] },
    ],
    [
      'a success not stored',
      { after: before, answer: answer(200, { id: 'b' }), want: ['proof:stored-answer not stored'] },
    ],
  ])('%s', (_name, { after, answer: got, want }) => {
    expect(kinds(compareSnapshots(before, after, write, got))).toEqual(want);
  });
});
