import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { validationFailureOf } from '../../src/runtime/index.js';
import { jsonText, serializedAs } from '../../src/runtime/index.js';
import { startValidatedServer, type ValidatedServer } from './validated-server.js';

/**
 * The toolkit's validation (express-openapi-validator, configured in src/runtime/) on a
 * document of the OpenAPI 3.1 constructs the service's document uses, one assertion each.
 */
const PROBLEM = { $ref: '#/components/responses/Problem' };
const DOCUMENT = {
  openapi: '3.1.0',
  info: { title: 'Constructs', version: '1' },
  paths: {
    '/things/{id}': {
      // A path-level parameter, by reference.
      parameters: [{ $ref: '#/components/parameters/Id' }],
      post: {
        operationId: 'makeThing',
        parameters: [
          {
            name: 'limit',
            in: 'query',
            schema: { type: 'integer', format: 'int32', minimum: 1, maximum: 100, default: 10 },
          },
          { name: 'from', in: 'query', schema: { type: 'integer', format: 'int64', minimum: 0 } },
          {
            name: 'kinds',
            in: 'query',
            style: 'form',
            explode: false,
            schema: { type: 'array', minItems: 1, items: { $ref: '#/components/schemas/Kind' } },
          },
          { name: 'note', in: 'query', schema: { type: 'string', maxLength: 40 } },
          { name: 'text', in: 'query', allowReserved: true, schema: { type: 'string', maxLength: 40 } },
          { name: 'X-Count', in: 'header', required: true, schema: { type: 'integer', minimum: 0 } },
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: { $ref: '#/components/schemas/Thing' } },
            'application/merge-patch+json': { schema: { $ref: '#/components/schemas/ThingPatch' } },
          },
        },
        responses: {
          '200': {
            description: 'made',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
          },
          '400': PROBLEM,
          '404': PROBLEM,
          '405': PROBLEM,
          '415': PROBLEM,
        },
      },
      get: {
        operationId: 'getThing',
        responses: {
          '200': {
            description: 'the thing',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
          },
          '400': PROBLEM,
        },
      },
    },
  },
  components: {
    parameters: { Id: { name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^[a-z]{1,8}$' } } },
    responses: {
      Problem: {
        description: 'what is wrong',
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['message'],
              additionalProperties: false,
              properties: { message: { type: 'string' }, field: { type: 'string' } },
            },
          },
        },
      },
    },
    schemas: {
      Kind: { type: 'string', enum: ['a', 'b'] },
      Label: { type: 'string', minLength: 1 },
      Base: {
        type: 'object',
        required: ['cents'],
        properties: { cents: { type: 'integer', format: 'int64', minimum: 0 } },
      },
      // unevaluatedProperties: false closes an object composed with allOf (additionalProperties cannot).
      Thing: {
        allOf: [{ $ref: '#/components/schemas/Base' }],
        required: ['version'],
        properties: {
          version: { const: 1 },
          note: { type: ['string', 'null'], maxLength: 10 },
          // A $ref with a sibling keyword: both apply in 3.1.
          label: { $ref: '#/components/schemas/Label', maxLength: 5 },
          kind: { $ref: '#/components/schemas/Kind' },
        },
        unevaluatedProperties: false,
      },
      ThingPatch: {
        type: 'object',
        additionalProperties: false,
        minProperties: 1,
        properties: { note: { type: ['string', 'null'] } },
      },
    },
  },
};

const ROUTES = [
  ['post', '/things/:id'],
  ['get', '/things/:id'],
] as const;

let server: ValidatedServer;
beforeAll(async () => {
  server = await startValidatedServer(DOCUMENT, {
    routes: ROUTES,
    ignorePaths: /^\/healthz$/,
  });
});
afterAll(() => server.close());
beforeEach(() => {
  server.response = { status: 200, body: { cents: 1, version: 1 } };
  server.received = undefined;
});

interface Sent {
  readonly body?: unknown;
  readonly rawBody?: string;
  readonly contentType?: string | null;
  readonly headers?: Record<string, string>;
}

async function post(
  target: string,
  sent: Sent = {},
): Promise<{ status: number; body: Record<string, unknown> | undefined; headers: Headers }> {
  const headers: Record<string, string> = {
    'X-Count': '3',
    ...(sent.contentType === null ? {} : { 'Content-Type': sent.contentType ?? 'application/json' }),
    ...sent.headers,
  };
  const body = sent.rawBody ?? (sent.body === undefined ? undefined : JSON.stringify(sent.body));
  const response = await fetch(`${server.baseUrl}${target}`, {
    method: 'POST',
    headers,
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>),
    headers: response.headers,
  };
}

const THING = { cents: 5, version: 1 };

describe('parameters', () => {
  it('hands the handler the query as validated: integers as numbers, comma lists as arrays, defaults set', async () => {
    const { status } = await post('/things/abc?kinds=a,b&from=7', { body: THING });
    expect(status).toBe(200);
    expect(server.received?.query).toEqual({ kinds: ['a', 'b'], from: 7, limit: 10 });
    expect(server.received?.params).toEqual({ id: 'abc' });
  });

  it('reads a comma list given twice as its parts (style: form, explode: false)', async () => {
    expect((await post('/things/abc?kinds=a&kinds=b', { body: THING })).status).toBe(200);
    expect(server.received?.query).toMatchObject({ kinds: ['a', 'b'] });
  });

  it.each([
    ['an item outside the enum', '?kinds=a,c', 'query.kinds.1'],
    ['an integer out of range', '?limit=101', 'query.limit'],
    ['an integer that is not one', '?limit=ten', 'query.limit'],
    ['a plain parameter given twice', '?limit=1&limit=2', 'query.limit'],
    ['an int64 past 2^53, already rounded when read', '?from=9007199254740993', 'query.from'],
    ['a parameter the operation does not declare', '?colour=red', 'query.colour'],
    ['a parameter with no value', '?note=', 'query.note'],
    ['a path parameter off its pattern', '', 'path.id', '/things/ABC'],
  ])('rejects %s with 400 naming the field, before the handler', async (_name, query, field, path = '/things/abc') => {
    const { status, body } = await post(`${path}${query}`, { body: THING });
    expect(status, JSON.stringify(body)).toBe(400);
    expect(body?.['field']).toBe(field);
    expect(server.received).toBeUndefined();
  });

  it('reads an integer in any spelling JavaScript reads as that number (the library coerces with Ajv: 1e2 is 100)', async () => {
    // Not rejected, and harmless: the handler receives the number the text stands for.
    expect((await post('/things/abc?limit=1e2', { body: THING })).status).toBe(200);
    expect(server.received?.query).toMatchObject({ limit: 100 });
    expect((await post('/things/abc?limit=0x10', { body: THING })).status).toBe(200);
    expect(server.received?.query).toMatchObject({ limit: 16 });
  });

  it('rejects a request without a required header parameter, or with one off its schema', async () => {
    const missing = await post('/things/abc', { body: THING, headers: { 'X-Count': '' } });
    expect(missing.status).toBe(400);
    const wrong = await post('/things/abc', { body: THING, headers: { 'X-Count': '-1' } });
    expect([wrong.status, wrong.body?.['field']]).toEqual([400, 'headers.x-count']);
    expect(server.received).toBeUndefined();
  });

  it('rejects reserved characters sent unencoded in a query value unless the parameter allows them (allowReserved)', async () => {
    // The library's reading of allowReserved: false: RFC 3986 allows ' ( ) * ! : , in a query
    // and encodeURIComponent leaves ' ( ) * ! unencoded, yet they are rejected. A parameter that
    // takes free text says `allowReserved: true` in the document (the service's `merchant` does).
    for (const note of ['Smith+Co', 'Smith(x)', 'a:b', 'a*b', 'a!b']) {
      const rejected = await post(`/things/abc?note=${note}`, { body: THING });
      expect([note, rejected.status, rejected.body?.['field']]).toEqual([note, 400, 'query.note']);
    }
    const allowed = await post("/things/abc?text=O'Reilly+(x)*:,!", { body: THING });
    expect(allowed.status).toBe(200);
    expect(server.received?.query).toMatchObject({ text: "O'Reilly (x)*:,!" });
    // What encodeURIComponent sends for `Smith+Co (x)` is rejected; every reserved character encoded is not.
    expect((await post(`/things/abc?note=${encodeURIComponent('Smith+Co (x)')}`, { body: THING })).status).toBe(400);
    expect((await post('/things/abc?note=Smith%2BCo%20%28x%29', { body: THING })).status).toBe(200);
    expect(server.received?.query).toMatchObject({ note: 'Smith+Co (x)' });
  });
});

describe('bodies', () => {
  it.each([
    ['a type array with null takes null', { ...THING, note: null }, 200],
    ['a type array with null takes its other type', { ...THING, note: 'n' }, 200],
    ['a type array with null rejects any other type', { ...THING, note: 5 }, 400],
    ['const rejects another value', { ...THING, version: 2 }, 400],
    ['a $ref applies its target (minLength 1)', { ...THING, label: '' }, 400],
    ['a sibling of $ref applies too (maxLength 5)', { ...THING, label: 'sixsix' }, 400],
    [
      'unevaluatedProperties: false sees properties of allOf members as evaluated',
      { cents: 5, version: 1, label: 'ok' },
      200,
    ],
    ['unevaluatedProperties: false rejects a property nobody declares', { ...THING, extra: true }, 400],
    ['a required property of an allOf member is required', { version: 1 }, 400],
    ['int64 takes the largest safe integer', { ...THING, cents: 9007199254740991 }, 200],
    ['int64 rejects a value JSON could not carry exactly', { ...THING, cents: 9007199254740992 }, 400],
    ['no coercion: a number sent as text is rejected', { ...THING, cents: '5' }, 400],
  ])('%s', async (_name, body, status) => {
    const response = await post('/things/abc', { body });
    expect(response.status, JSON.stringify(response.body)).toBe(status);
    if (status === 200) expect(server.received?.body).toEqual(body);
  });

  it('names the property that failed', async () => {
    expect((await post('/things/abc', { body: { ...THING, extra: true } })).body?.['field']).toBe('body.extra');
    expect((await post('/things/abc', { body: { version: 1 } })).body?.['field']).toBe('body.cents');
  });

  it('validates application/merge-patch+json bodies against their own schema (closed, at least one property)', async () => {
    const patch = (body: unknown) => post('/things/abc', { body, contentType: 'application/merge-patch+json' });
    expect((await patch({ note: null })).status).toBe(200);
    expect((await patch({ cents: 1 })).status).toBe(400);
    expect((await patch({})).status).toBe(400);
  });

  it('responds with 415 for a media type the operation does not take, and for a body without one', async () => {
    expect((await post('/things/abc', { rawBody: 'cents=5', contentType: 'text/plain' })).status).toBe(415);
    expect((await post('/things/abc', { rawBody: '{}', contentType: null })).status).toBe(415);
    expect(server.received).toBeUndefined();
  });

  it('rejects a required body that is missing', async () => {
    expect((await post('/things/abc', { contentType: null })).status).toBe(415);
    expect((await post('/things/abc', {})).status).toBe(400);
  });
});

describe('routing', () => {
  it('responds with 404 for a path the document does not have, before any route', async () => {
    const response = await fetch(`${server.baseUrl}/nothing/here`);
    expect(response.status).toBe(404);
  });

  it('responds with 405 and Allow for a method the path does not declare', async () => {
    const response = await fetch(`${server.baseUrl}/things/abc`, { method: 'DELETE' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, POST');
  });

  it('leaves the paths it is told to ignore to the server', async () => {
    const response = await fetch(`${server.baseUrl}/healthz`);
    expect([response.status, await response.json()]).toEqual([200, { status: 'ok' }]);
  });
});

describe('responses', () => {
  it('lets a response on the contract through', async () => {
    server.response = { status: 200, body: { cents: 2, version: 1, note: null } };
    const response = await fetch(`${server.baseUrl}/things/abc`);
    expect([response.status, await response.json()]).toEqual([200, { cents: 2, version: 1, note: null }]);
  });

  it.each([
    ['a body off its schema', { status: 200, body: { cents: -1, version: 1 } }],
    ['a property the schema does not have', { status: 200, body: { cents: 1, version: 1, secret: 'x' } }],
    ['a status the operation does not declare', { status: 409, body: { message: 'conflict' } }],
  ])('replaces %s with a 500 reported as off the contract', async (_name, toSend) => {
    server.response = toSend;
    const response = await fetch(`${server.baseUrl}/things/abc`);
    expect(response.status).toBe(500);
    expect(server.failures.at(-1)).toMatchObject({ status: 500, of: 'response' });
  });
});

// A body whose text is given (serializedAs, for stored idempotent responses) is sent as that text's
// bytes only where responses are not validated; where they are, it goes through res.json and is
// checked. Changing the body after giving its text (which a server must not do) shows which way
// it went.
describe('a body serialized already', () => {
  it('is validated as any other where responses are validated', async () => {
    const body = { cents: 2, version: 1, note: 'stored' };
    serializedAs(body, JSON.stringify(body));
    body.note = 'changed';
    server.response = { status: 200, body };
    const response = await fetch(`${server.baseUrl}/things/abc`);
    expect([response.status, await response.json()]).toEqual([200, { cents: 2, version: 1, note: 'changed' }]);
    const off = { cents: -1, version: 1 };
    serializedAs(off, JSON.stringify(off));
    server.response = { status: 200, body: off };
    expect((await fetch(`${server.baseUrl}/things/abc`)).status).toBe(500);
  });

  it('is sent as its bytes, with the type res.json gives, where they are not', async () => {
    const unvalidated = await startValidatedServer(DOCUMENT, { routes: ROUTES, validateResponses: false });
    try {
      const read = async () => {
        const response = await fetch(`${unvalidated.baseUrl}/things/abc`);
        return {
          type: response.headers.get('content-type'),
          length: response.headers.get('content-length'),
          bytes: Buffer.from(await response.arrayBuffer()),
        };
      };
      const body = { cents: 2, version: 1, note: 'ünïcode "quoted" \\ text' };
      unvalidated.response = { status: 200, body: { ...body } };
      const plain = await read();
      // What res.json sends where responses are validated: the same text, type and length.
      expect(plain.type).toBe('application/json; charset=utf-8');
      expect(plain.bytes.toString('utf8')).toBe(JSON.stringify(body));
      expect(plain.length).toBe(String(plain.bytes.byteLength));
      const stored = { ...body };
      serializedAs(stored, JSON.stringify(stored));
      stored.note = 'changed';
      unvalidated.response = { status: 200, body: stored };
      expect(await read()).toEqual(plain);
    } finally {
      await unvalidated.close();
    }
  });
});

// A body given as its JSON text (jsonText, for records the database holds as JSON) is parsed and
// checked where responses are validated, and sent as the text's own bytes where they are not.
describe('a body given as its JSON text', () => {
  it('is parsed and validated where responses are validated', async () => {
    server.response = { status: 200, body: jsonText('{"cents":2,"version":1,"note":"stored"}') };
    const response = await fetch(`${server.baseUrl}/things/abc`);
    expect([response.status, response.headers.get('content-type'), await response.json()]).toEqual([
      200,
      'application/json; charset=utf-8',
      { cents: 2, version: 1, note: 'stored' },
    ]);
    server.response = { status: 200, body: jsonText('{"cents":-1,"version":1}') };
    expect((await fetch(`${server.baseUrl}/things/abc`)).status).toBe(500);
    expect(server.failures.at(-1)).toMatchObject({ status: 500, of: 'response' });
  });

  it('is sent as its own bytes, with the type res.json gives, where they are not', async () => {
    const unvalidated = await startValidatedServer(DOCUMENT, { routes: ROUTES, validateResponses: false });
    try {
      const text = '{ "cents": 2,  "version": 1, "note": "ünïcode \\"quoted\\"" }';
      unvalidated.response = { status: 200, body: jsonText(text) };
      const response = await fetch(`${unvalidated.baseUrl}/things/abc`);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(Buffer.from(await response.arrayBuffer())).toEqual(Buffer.from(text));
      // Whatever else serializes it (a stored response) gets the body it stands for.
      expect(JSON.stringify({ page: jsonText(text) })).toBe(JSON.stringify({ page: JSON.parse(text) as unknown }));
    } finally {
      await unvalidated.close();
    }
  });
});

describe('formats the validator does not check', () => {
  // `uint32` and `snowflake` are no format JSON Schema or OpenAPI defines: annotations, as 2020-12 reads them.
  const document = {
    openapi: '3.1.0',
    info: { title: 'Formats', version: '1' },
    paths: {
      '/counts': {
        get: {
          parameters: [{ name: 'n', in: 'query', schema: { type: 'integer', format: 'uint32' } }],
          responses: {
            '200': {
              description: 'ok',
              content: {
                'application/json': {
                  schema: { type: 'object', properties: { id: { type: 'string', format: 'snowflake' } } },
                },
              },
            },
            '400': PROBLEM,
          },
        },
      },
    },
    components: DOCUMENT.components,
  };

  it('pass every value, with no warning on the console', async () => {
    const warn = vi.spyOn(console, 'warn');
    const formats = await startValidatedServer(document, { routes: [['get', '/counts']] });
    try {
      formats.response = { status: 200, body: { id: 'not a number at all' } };
      expect((await fetch(`${formats.baseUrl}/counts?n=4294967296`)).status).toBe(200);
      // The type still holds.
      expect((await fetch(`${formats.baseUrl}/counts?n=many`)).status).toBe(400);
      expect(warn.mock.calls.map((call) => String(call[0])).filter((text) => text.includes('format'))).toEqual([]);
    } finally {
      warn.mockRestore();
      await formats.close();
    }
  });
});

describe('validationFailureOf', () => {
  it('is undefined for errors that are not the validator’s', () => {
    expect(validationFailureOf(new Error('boom'))).toBeUndefined();
    expect(validationFailureOf({ status: 400, message: 'looks like one' })).toBeUndefined();
    expect(validationFailureOf(undefined)).toBeUndefined();
  });
});
