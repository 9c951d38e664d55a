import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startValidatedServer, type ValidatedServer } from './validated-server.js';

/**
 * A request that fails a `oneOf`/`anyOf` gets the error of the branch it was meant for
 * (src/runtime/branch-errors.ts): by discriminator, by a `const`/`enum` tag, else by the fewest
 * errors; a tag no branch takes is named with the values allowed. Each body below is rejected with
 * 400; the response names the intended branch's field and reason, where the validator's first error
 * is another branch's (the member branch's, the cat's, the bank transfer's…).
 */
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const body = (schema: object) => ({ required: true, content: { 'application/json': { schema } } });
const post = (schema: object) => ({
  post: { requestBody: body(schema), responses: { '204': { description: 'taken' } } },
});

const DOCUMENT = {
  openapi: '3.1.0',
  info: { title: 'Branches', version: '1' },
  paths: {
    // A oneOf inside a property, its branches told apart by `const` tags.
    '/loans': post(ref('Loan')),
    // A top-level body with a discriminator and a mapping (the validator checks the named branch alone).
    '/pets': post(ref('Pet')),
    // The same discriminated schema inside a property (Ajv checks every branch).
    '/shelters': post({ type: 'object', required: ['pet'], properties: { pet: ref('Pet') } }),
    // A discriminator without a mapping: the tag is the component name. Top-level and inside a property.
    '/vehicles': post(ref('Vehicle')),
    '/garages': post({ type: 'object', required: ['vehicle'], properties: { vehicle: ref('Vehicle') } }),
    // A top-level oneOf whose branches are told apart by single-value `enum` tags.
    '/visits': post({ oneOf: [ref('Staff'), ref('Visitor')] }),
    // No tag: the fewest errors decide.
    '/payments': post({
      type: 'object',
      required: ['payment'],
      properties: {
        payment: { oneOf: [ref('BankTransfer'), ref('Card')] },
        department: { oneOf: [ref('Department'), { type: 'null' }] },
      },
    }),
    // Two shapes with a property of each type: the errors are told apart by what they say.
    '/limits': post({
      oneOf: [
        {
          type: 'object',
          additionalProperties: false,
          required: ['daily', 'monthly'],
          properties: { daily: { type: 'integer' }, monthly: { type: 'integer' }, approvalBased: { type: 'null' } },
        },
        {
          type: 'object',
          additionalProperties: false,
          required: ['approvalBased'],
          properties: { approvalBased: { type: 'integer', minimum: 0 } },
        },
      ],
    }),
    // anyOf, by the fewest errors and by const tags.
    '/contacts': post({
      type: 'object',
      properties: {
        contact: { anyOf: [ref('Email'), ref('Phone')] },
        notify: {
          anyOf: [
            {
              type: 'object',
              required: ['channel', 'number'],
              properties: { channel: { const: 'sms' }, number: { type: 'string' } },
            },
            {
              type: 'object',
              required: ['channel', 'address'],
              properties: { channel: { const: 'email' }, address: { type: 'string' } },
            },
          ],
        },
      },
    }),
    // A parameter with a oneOf.
    '/books': {
      get: {
        parameters: [
          {
            name: 'shelf',
            in: 'query',
            schema: {
              oneOf: [
                { type: 'string', pattern: '^[A-Z][0-9]{2}$', maxLength: 3 },
                { type: 'string', enum: ['new', 'returned'] },
              ],
            },
          },
        ],
        responses: { '204': { description: 'listed' } },
      },
    },
  },
  components: {
    schemas: {
      Loan: {
        type: 'object',
        required: ['book', 'borrower'],
        properties: { book: { type: 'string' }, borrower: { oneOf: [ref('Member'), ref('Guest')] } },
      },
      Member: {
        type: 'object',
        required: ['kind', 'memberId'],
        properties: { kind: { const: 'member' }, memberId: { type: 'string', minLength: 3 } },
      },
      Guest: {
        type: 'object',
        required: ['kind', 'deposit'],
        properties: {
          kind: { const: 'guest' },
          deposit: { type: 'integer', minimum: 10 },
          // A oneOf inside the guest branch: read the same way once the guest branch is chosen.
          identity: { oneOf: [ref('Passport'), ref('Licence')] },
        },
      },
      Passport: {
        type: 'object',
        required: ['kind', 'number'],
        properties: { kind: { const: 'passport' }, number: { type: 'string', pattern: '^[A-Z][0-9]{8}$' } },
      },
      Licence: {
        type: 'object',
        required: ['kind', 'state'],
        properties: { kind: { const: 'licence' }, state: { type: 'string', minLength: 2, maxLength: 2 } },
      },
      Pet: {
        oneOf: [ref('Cat'), ref('Dog')],
        discriminator: {
          propertyName: 'petType',
          mapping: { cat: '#/components/schemas/Cat', dog: '#/components/schemas/Dog' },
        },
      },
      Cat: {
        type: 'object',
        required: ['petType', 'lives'],
        properties: { petType: { type: 'string' }, lives: { type: 'integer', maximum: 9 } },
      },
      Dog: {
        type: 'object',
        required: ['petType', 'bark'],
        properties: { petType: { type: 'string' }, bark: { type: 'boolean' } },
      },
      Vehicle: { oneOf: [ref('Car'), ref('Bike')], discriminator: { propertyName: 'vehicleType' } },
      Car: {
        type: 'object',
        required: ['vehicleType', 'doors'],
        properties: { vehicleType: { type: 'string' }, doors: { type: 'integer', maximum: 5 } },
      },
      Bike: {
        type: 'object',
        required: ['vehicleType', 'gears'],
        properties: { vehicleType: { type: 'string' }, gears: { type: 'integer', minimum: 1 } },
      },
      Staff: {
        type: 'object',
        required: ['role', 'badge'],
        properties: { role: { type: 'string', enum: ['staff'] }, badge: { type: 'string', pattern: '^B[0-9]{4}$' } },
      },
      Visitor: {
        type: 'object',
        required: ['role', 'host'],
        properties: { role: { type: 'string', enum: ['visitor'] }, host: { type: 'string', minLength: 1 } },
      },
      BankTransfer: {
        type: 'object',
        additionalProperties: false,
        required: ['iban', 'bic'],
        properties: {
          iban: { type: 'string', pattern: '^[A-Z]{2}[0-9]{2}[A-Z0-9]{10,30}$' },
          bic: { type: 'string', pattern: '^[A-Z0-9]{8,11}$' },
        },
      },
      Card: {
        type: 'object',
        additionalProperties: false,
        required: ['number', 'expiry'],
        properties: {
          number: { type: 'string', pattern: '^[0-9]{16}$' },
          expiry: { type: 'string', pattern: '^[0-9]{2}/[0-9]{2}$' },
        },
      },
      Department: {
        type: 'object',
        required: ['id', 'name'],
        properties: { id: { type: 'string' }, name: { type: 'string' } },
      },
      Email: {
        type: 'object',
        additionalProperties: false,
        required: ['email'],
        properties: { email: { type: 'string', format: 'email' } },
      },
      Phone: {
        type: 'object',
        additionalProperties: false,
        required: ['phone'],
        properties: { phone: { type: 'string', pattern: '^\\+[0-9]{6,15}$' } },
      },
    },
  },
};

const ROUTES = [
  ['post', '/loans'],
  ['post', '/pets'],
  ['post', '/shelters'],
  ['post', '/vehicles'],
  ['post', '/garages'],
  ['post', '/visits'],
  ['post', '/payments'],
  ['post', '/limits'],
  ['post', '/contacts'],
  ['get', '/books'],
] as const;

let server: ValidatedServer;
beforeAll(async () => {
  // Error responses are the test server's own, outside the document: only requests are checked.
  server = await startValidatedServer(DOCUMENT, { routes: ROUTES, validateResponses: false });
  server.response = { status: 204 };
});
afterAll(() => server.close());

async function send(
  target: string,
  sent?: unknown,
): Promise<{ status: number; body: { message?: string; field?: string } | undefined }> {
  const response = await fetch(`${server.baseUrl}${target}`, {
    method: sent === undefined ? 'GET' : 'POST',
    ...(sent === undefined ? {} : { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(sent) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: text === '' ? undefined : (JSON.parse(text) as { message?: string; field?: string }),
  };
}

const GUEST = { kind: 'guest', deposit: 20 };

describe('a request that fails a oneOf or anyOf names the branch it was meant for', () => {
  it.each([
    // Const tags, in a property (the borrower of a loan).
    [
      'a const tag: the guest branch',
      '/loans',
      { book: 'b', borrower: { kind: 'guest', deposit: 6 } },
      'body.borrower.deposit',
      'must be >= 10',
    ],
    [
      'a const tag: the member branch',
      '/loans',
      { book: 'b', borrower: { kind: 'member', memberId: 'x' } },
      'body.borrower.memberId',
      'must NOT have fewer than 3 characters',
    ],
    [
      'a const tag no branch takes',
      '/loans',
      { book: 'b', borrower: { kind: 'alien' } },
      'body.borrower.kind',
      'must be one of: member, guest',
    ],
    [
      'no tag at all: the branches fail alike, the first is named',
      '/loans',
      { book: 'b', borrower: { deposit: 6 } },
      'body.borrower.kind',
      "must have required property 'kind'",
    ],
    [
      'a oneOf inside the branch chosen',
      '/loans',
      { book: 'b', borrower: { ...GUEST, identity: { kind: 'licence', state: 'Texas' } } },
      'body.borrower.identity.state',
      'must NOT have more than 2 characters',
    ],
    [
      'a tag no branch takes, inside the branch chosen',
      '/loans',
      { book: 'b', borrower: { ...GUEST, identity: { kind: 'badge' } } },
      'body.borrower.identity.kind',
      'must be one of: passport, licence',
    ],
    // Discriminator with a mapping: top-level body, and inside a property.
    [
      'a discriminator with a mapping, top-level',
      '/pets',
      { petType: 'dog', bark: 'loud' },
      'body.bark',
      'must be boolean',
    ],
    [
      'a mapped tag the discriminator does not know, top-level',
      '/pets',
      { petType: 'cow' },
      'body.petType',
      'must be one of: cat, dog',
    ],
    [
      'a discriminator with a mapping, in a property',
      '/shelters',
      { pet: { petType: 'dog', bark: 'loud' } },
      'body.pet.bark',
      'must be boolean',
    ],
    [
      'a mapped tag the discriminator does not know, in a property',
      '/shelters',
      { pet: { petType: 'cow' } },
      'body.pet.petType',
      'must be one of: cat, dog',
    ],
    // Discriminator without a mapping: the component names.
    [
      'a discriminator without a mapping, top-level',
      '/vehicles',
      { vehicleType: 'Bike', gears: 0 },
      'body.gears',
      'must be >= 1',
    ],
    [
      'a component name the discriminator does not know, top-level',
      '/vehicles',
      { vehicleType: 'Boat' },
      'body.vehicleType',
      'must be one of: Car, Bike',
    ],
    [
      'a discriminator without a mapping, in a property',
      '/garages',
      { vehicle: { vehicleType: 'Bike', gears: 0 } },
      'body.vehicle.gears',
      'must be >= 1',
    ],
    [
      'a component name the discriminator does not know, in a property',
      '/garages',
      { vehicle: { vehicleType: 'Boat' } },
      'body.vehicle.vehicleType',
      'must be one of: Car, Bike',
    ],
    // Single-value enum tags, top-level oneOf.
    [
      'an enum tag: the visitor branch',
      '/visits',
      { role: 'visitor', host: '' },
      'body.host',
      'must NOT have fewer than 1 characters',
    ],
    ['an enum tag no branch takes', '/visits', { role: 'cleaner' }, 'body.role', 'must be one of: staff, visitor'],
    // No tag: the fewest errors.
    [
      'no tag: the card, one error against the transfer’s four',
      '/payments',
      { payment: { number: '1234', expiry: '12/30' } },
      'body.payment.number',
      'must match pattern "^[0-9]{16}$"',
    ],
    [
      'no tag, as many errors each: the first branch',
      '/payments',
      { payment: {} },
      'body.payment.iban',
      "must have required property 'iban'",
    ],
    [
      'no tag: an object is not meant for the null branch',
      '/payments',
      { payment: { iban: 'DE89370400440532013000', bic: 'COBADEFFXXX' }, department: {} },
      'body.department.id',
      "must have required property 'id'",
    ],
    // Both branches have a `type` for approvalBased and close the object: each error goes to the branch whose schema says it.
    [
      'both shapes at once: the plain limits, one error against two',
      '/limits',
      { daily: 1, monthly: 1, approvalBased: 5 },
      'body.approvalBased',
      'must be null',
    ],
    ['the approved amount off its minimum', '/limits', { approvalBased: -1 }, 'body.approvalBased', 'must be >= 0'],
    // anyOf.
    [
      'anyOf without a tag: the fewest errors',
      '/contacts',
      { contact: { phone: '555' } },
      'body.contact.phone',
      'must match pattern "^\\+[0-9]{6,15}$"',
    ],
    [
      'anyOf with const tags',
      '/contacts',
      { notify: { channel: 'email', address: 5 } },
      'body.notify.address',
      'must be string',
    ],
    [
      'anyOf with a tag no branch takes',
      '/contacts',
      { notify: { channel: 'pigeon' } },
      'body.notify.channel',
      'must be one of: sms, email',
    ],
  ])('%s', async (_name, target, sent, field, message) => {
    const { status, body } = await send(target, sent);
    expect(status, JSON.stringify(body)).toBe(400);
    expect(body).toEqual({ field, message });
  });

  it.each([
    // Two errors of the shelf code (pattern, maxLength) against one of the list.
    ['returnedd', 'must be equal to one of the allowed values: new, returned'],
    // One error each: the first branch, the shelf code.
    ['A1', 'must match pattern "^[A-Z][0-9]{2}$"'],
  ])('names a parameter’s branch too: shelf=%s', async (shelf, message) => {
    const { status, body } = await send(`/books?shelf=${shelf}`);
    expect([status, body]).toEqual([400, { field: 'query.shelf', message }]);
  });

  it.each([
    [
      '/loans',
      { book: 'b', borrower: { kind: 'guest', deposit: 10, identity: { kind: 'passport', number: 'A12345678' } } },
    ],
    ['/loans', { book: 'b', borrower: { kind: 'member', memberId: 'abc' } }],
    ['/pets', { petType: 'cat', lives: 9 }],
    ['/garages', { vehicle: { vehicleType: 'Car', doors: 4 } }],
    ['/visits', { role: 'staff', badge: 'B1234' }],
    ['/payments', { payment: { number: '1234567812345678', expiry: '12/30' }, department: null }],
    ['/contacts', { contact: { email: 'a@example.com' }, notify: { channel: 'sms', number: '1' } }],
  ])('lets a body that matches a branch through: %s %j', async (target, sent) => {
    expect((await send(target, sent)).status).toBe(204);
  });

  it('leaves an error outside any oneOf as the validator reports it', async () => {
    const { status, body } = await send('/loans', { borrower: GUEST });
    expect([status, body]).toEqual([400, { field: 'body.book', message: "must have required property 'book'" }]);
  });
});
