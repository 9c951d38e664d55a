import { describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '../codegen/bundle.js';
import { readOperations, type OperationSpec } from './document.js';
import type { Outcome } from './requests.js';
import { noSuccessReason, OperationTallies, statusText } from './summary.js';

const document = {
  openapi: '3.1.0',
  info: { title: 'summary', version: '1' },
  paths: {
    '/pets': { get: { operationId: 'listPets', responses: { '200': { description: 'pets' } } } },
    '/pets/{petId}': {
      get: {
        operationId: 'getPet',
        parameters: [{ name: 'petId', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'the pet' } },
      },
    },
  },
} as unknown as OpenApiDocument;
const { operations } = readOperations(document);
const named = (key: string): OperationSpec => {
  const found = operations.find((operation) => operation.key === key);
  if (found === undefined) throw new Error(key);
  return found;
};
const response = (status: number): Outcome => ({
  kind: 'response',
  response: { status, headers: {}, body: '', ms: 1 },
});
const statuses = (entries: Record<string, number>): Map<string, number> => new Map(Object.entries(entries));

describe('the likely reason an operation never got a 2xx', () => {
  it.each<[string, string, Record<string, number>, string]>([
    ['credentials', 'listPets', { '401': 3, '403': 1 }, 'credentials: give --header or --auth'],
    [
      'no-ids',
      'getPet',
      { '404': 5 },
      'no existing ids: give examples of the path parameters, or links from an operation that creates them',
    ],
    [
      'rejected',
      'listPets',
      { '400': 2, '422': 2 },
      'every generated request was rejected: check the schemas or examples',
    ],
    ['statuses', 'listPets', { '404': 2 }, 'the requests meant to succeed got 404 ×2'],
    [
      'statuses',
      'getPet',
      { '404': 2, '500': 1, none: 1 },
      'the requests meant to succeed got 404 ×2, 500 ×1, no response ×1',
    ],
  ])('%s: %s %j', (reason, operation, seen, advice) => {
    expect(noSuccessReason(named(operation), statuses(seen))).toEqual({ reason, advice });
  });
});

describe('per operation', () => {
  it('counts the requests and their 2xx responses, and warns of operations that never got one', () => {
    const tallies = new OperationTallies();
    tallies.add('listPets', 'valid', response(200));
    tallies.add('listPets', 'invalid', response(400));
    tallies.add('getPet', 'valid', response(404));
    tallies.add('getPet', 'read-after-create', response(404));
    tallies.add('getPet', 'no-credentials', response(401));
    tallies.add('getPet', 'valid', { kind: 'hang', ms: 5000 });
    tallies.add('getPet', 'valid', { kind: 'unsendable', message: 'too long' });
    expect(tallies.summaries(['listPets', 'getPet', 'deletePet'])).toEqual([
      { operation: 'listPets', requests: 2, successes: 1, statuses: { '200': 1, '400': 1 } },
      { operation: 'getPet', requests: 4, successes: 0, statuses: { '401': 1, '404': 2, none: 1 } },
      { operation: 'deletePet', requests: 0, successes: 0, statuses: {} },
    ]);
    const warnings = tallies.warnings(operations);
    expect(warnings).toEqual([
      {
        operation: 'getPet',
        reason: 'statuses',
        message:
          'getPet never got a 2xx in 4 requests (401 ×1, 404 ×2, no response ×1): the requests meant to succeed got 404 ×2, no response ×1',
      },
    ]);
  });

  it('reads the reason from the requests meant to succeed only', () => {
    const tallies = new OperationTallies();
    tallies.add('getPet', 'valid', response(404));
    tallies.add('getPet', 'invalid', response(400));
    tallies.add('getPet', 'no-credentials', response(401));
    expect(tallies.warnings(operations).map((warning) => warning.reason)).toEqual(['no-ids']);
  });

  it('writes statuses in order, no response last', () => {
    expect(statusText({ none: 1, '500': 2, '404': 3 })).toBe('404 ×3, 500 ×2, no response ×1');
  });
});
