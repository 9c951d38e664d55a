import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { EXPIRED_AT, oneCharacterChanged } from '../../src/check/wrong-credentials.js';
import {
  LIBRARIAN_AUTHORIZATION,
  LIBRARY_LIBRARIAN,
  LIBRARY_MEMBER,
  MEMBER_AUTHORIZATION,
  memberToken,
} from './fixtures/library-credentials.js';
import {
  LIBRARY_API_KEY,
  LIBRARY_DEFECTS,
  LIBRARY_DOCUMENT,
  startLibraryServer,
  type LibraryDefect,
  type LibraryServer,
} from './fixtures/library-server.js';

/**
 * The library server of check-defects.test.ts, by itself: without a defect every response keeps
 * library.openapi.yaml (status declared, JSON body valid against the declared schema, required
 * headers present), and each planted defect breaks its operation as LIBRARY_DEFECTS says. The
 * document is read here with Ajv, apart from the server's own checks.
 */

interface Operation {
  readonly operationId: string;
  readonly responses: Readonly<Record<string, ResponseObject>>;
}
interface ResponseObject {
  readonly $ref?: string;
  readonly headers?: Readonly<Record<string, { readonly required?: boolean }>>;
  readonly content?: Readonly<Record<string, unknown>>;
}
interface LibraryDocument {
  readonly paths: Readonly<Record<string, Readonly<Record<string, Operation>>>>;
  readonly components: { readonly responses: Readonly<Record<string, ResponseObject>> };
}

const document = parse(readFileSync(LIBRARY_DOCUMENT, 'utf8')) as LibraryDocument;
const DOCUMENT_ID = 'https://library.test/openapi.json';
const ajv = new Ajv2020({ strict: false, allErrors: true });
// ajv-formats is CommonJS: under NodeNext its default import is the module object.
addFormatsModule.default(ajv);
ajv.addSchema(document, DOCUMENT_ID);

const operations = new Map<string, { path: string; method: string; operation: Operation }>();
for (const [path, item] of Object.entries(document.paths)) {
  for (const [method, operation] of Object.entries(item)) {
    if (typeof operation === 'object' && 'operationId' in operation)
      operations.set(operation.operationId, { path, method, operation });
  }
}

interface ReceivedResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

/** The validator of the schema at `pointer` (a JSON pointer into the document). */
function schemaAt(pointer: string[]): (value: unknown) => string | undefined {
  const fragment = pointer
    .map((token) => encodeURIComponent(token.replaceAll('~', '~0').replaceAll('/', '~1')))
    .join('/');
  const validate = ajv.getSchema(`${DOCUMENT_ID}#/${fragment}`);
  if (validate === undefined) throw new Error(`no schema at /${pointer.join('/')}`);
  return (value) => (validate(value) ? undefined : ajv.errorsText(validate.errors));
}

/** What `received` does against the document's response for `operationId`: none when it keeps it. */
function breaches(operationId: string, received: ReceivedResponse): string[] {
  const found = operations.get(operationId);
  if (found === undefined) throw new Error(`no operation ${operationId}`);
  let response = found.operation.responses[String(received.status)];
  if (response === undefined) return [`status ${received.status} is not declared`];
  let pointer = ['paths', found.path, found.method, 'responses', String(received.status)];
  if (response.$ref !== undefined) {
    const name = response.$ref.split('/').pop() ?? '';
    response = document.components.responses[name] ?? response;
    pointer = ['components', 'responses', name];
  }
  const problems: string[] = [];
  for (const [name, header] of Object.entries(response.headers ?? {})) {
    const value = received.headers.get(name);
    if (value === null) {
      if (header.required === true) problems.push(`header ${name} is missing`);
      continue;
    }
    // The one header of the document is an integer, sent as its digits.
    const problem = schemaAt([...pointer, 'headers', name, 'schema'])(/^-?\d+$/.test(value) ? Number(value) : value);
    if (problem !== undefined) problems.push(`header ${name}: ${problem}`);
  }
  if (response.content?.['application/json'] === undefined) {
    if (received.text !== '') problems.push('a body where none is declared');
    return problems;
  }
  const type = received.headers.get('content-type');
  if (type?.split(';')[0] !== 'application/json') return [...problems, `content type ${type}`];
  const problem = schemaAt([...pointer, 'content', 'application/json', 'schema'])(JSON.parse(received.text));
  return problem === undefined ? problems : [...problems, `body: ${problem}`];
}

interface Call {
  readonly method?: string;
  readonly body?: unknown;
  /** The raw body, sent as it is (malformed JSON). */
  readonly raw?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly key?: boolean;
}

async function send(server: LibraryServer, target: string, call: Call = {}): Promise<ReceivedResponse> {
  const headers: Record<string, string> = { ...(call.key === true ? { 'X-Api-Key': LIBRARY_API_KEY } : {}) };
  let body: string | undefined = call.raw;
  if (call.body !== undefined) {
    body = JSON.stringify(call.body);
    headers['Content-Type'] = 'application/json';
  }
  const response = await fetch(`${server.url}${target}`, {
    method: call.method ?? 'GET',
    headers: { ...headers, ...call.headers },
    ...(body === undefined ? {} : { body }),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const BOOK = { title: 'Kindred', genre: 'fiction', pages: 264, publisher: { name: 'Doubleday', founded: 1897 } };
const ORDER = { title: 'Kindred', quantity: 2 };
const basic = (username: string, password: string): string =>
  `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
const AUTHOR = { name: 'Octavia E. Butler', born: 1947 };
const bodyOf = (received: ReceivedResponse): Record<string, unknown> =>
  JSON.parse(received.text) as Record<string, unknown>;

describe('the library server without a defect', () => {
  let server: LibraryServer;
  beforeAll(async () => {
    server = await startLibraryServer();
  });
  afterAll(async () => {
    await server.close();
  });

  /** Sends the call and expects the status and a response that keeps the document. */
  async function expectResponse(
    operationId: string,
    target: string,
    call: Call,
    status: number,
  ): Promise<ReceivedResponse> {
    const received = await send(server, target, call);
    expect({ status: received.status, breaches: breaches(operationId, received) }).toEqual({ status, breaches: [] });
    return received;
  }

  it('creates an author and reads it back', async () => {
    const created = bodyOf(await expectResponse('createAuthor', '/authors', { method: 'POST', body: AUTHOR }, 201));
    expect(bodyOf(await expectResponse('getAuthor', `/authors/${String(created.id)}`, {}, 200))).toEqual(created);
  });

  it('rejects authors off the contract with the Error shape', async () => {
    await expectResponse('createAuthor', '/authors', { method: 'POST', body: { born: 1947 } }, 400);
    await expectResponse('createAuthor', '/authors', { method: 'POST', body: { ...AUTHOR, nickname: 'O' } }, 400);
    await expectResponse(
      'createAuthor',
      '/authors',
      { method: 'POST', raw: '{"name":', headers: { 'Content-Type': 'application/json' } },
      400,
    );
    await expectResponse(
      'createAuthor',
      '/authors',
      { method: 'POST', raw: JSON.stringify(AUTHOR), headers: { 'Content-Type': 'text/plain' } },
      415,
    );
    await expectResponse('createAuthor', '/authors', { method: 'POST' }, 400);
    await expectResponse('getAuthor', '/authors/not-a-uuid', {}, 400);
    await expectResponse('getAuthor', `/authors/${crypto.randomUUID()}`, {}, 404);
  });

  it('lists the books with X-Rate-Limit, filtered and limited by its query', async () => {
    expect(bodyOf(await expectResponse('listBooks', '/books', {}, 200)).items).toHaveLength(2);
    expect(bodyOf(await expectResponse('listBooks', '/books?genre=history', {}, 200)).items).toEqual([
      expect.objectContaining({ title: 'The Histories' }),
    ]);
    expect(bodyOf(await expectResponse('listBooks', '/books?limit=1', {}, 200)).items).toHaveLength(1);
    for (const query of ['limit=0', 'limit=101', 'limit=2.5', 'limit=two', 'genre=comics', 'limit=1&limit=2'])
      await expectResponse('listBooks', `/books?${query}`, {}, 400);
  });

  it('creates, reads, replaces and deletes a book with the API key', async () => {
    const created = bodyOf(
      await expectResponse(
        'createBook',
        '/books',
        { method: 'POST', body: { ...BOOK, summary: 'x'.repeat(5000) }, key: true },
        201,
      ),
    );
    const target = `/books/${String(created.id)}`;
    expect(bodyOf(await expectResponse('getBook', target, {}, 200))).toEqual(created);
    const replaced = {
      ...BOOK,
      genre: 'science',
      publisher: { ...BOOK.publisher, address: { city: 'New York', country: 'US' } },
    };
    expect(
      bodyOf(await expectResponse('updateBook', target, { method: 'PUT', body: replaced, key: true }, 200)),
    ).toEqual({ id: created.id, ...replaced });
    await expectResponse('deleteBook', target, { method: 'DELETE', key: true }, 204);
    await expectResponse('getBook', target, {}, 404);
    await expectResponse('updateBook', target, { method: 'PUT', body: BOOK, key: true }, 404);
    await expectResponse('deleteBook', target, { method: 'DELETE', key: true }, 404);
  });

  it('rejects book writes without the key, before reading the body', async () => {
    await expectResponse('createBook', '/books', { method: 'POST', body: BOOK }, 401);
    await expectResponse(
      'createBook',
      '/books',
      { method: 'POST', body: BOOK, headers: { 'X-Api-Key': 'library-key-2' } },
      401,
    );
    await expectResponse(
      'createBook',
      '/books',
      { method: 'POST', raw: '{', headers: { 'Content-Type': 'application/json' } },
      401,
    );
    await expectResponse('updateBook', `/books/${crypto.randomUUID()}`, { method: 'PUT', body: BOOK }, 401);
    await expectResponse('deleteBook', `/books/${crypto.randomUUID()}`, { method: 'DELETE' }, 401);
  });

  it('reads the member a good token names, and rejects any other token', async () => {
    expect(
      bodyOf(
        await expectResponse('getMember', '/members/me', { headers: { Authorization: MEMBER_AUTHORIZATION } }, 200),
      ),
    ).toEqual(LIBRARY_MEMBER);
    const [head, payload, signature] = MEMBER_AUTHORIZATION.slice('Bearer '.length).split('.');
    for (const token of [
      `${head}.${payload}.${oneCharacterChanged(signature ?? '')}`,
      memberToken({ sub: LIBRARY_MEMBER.id, exp: EXPIRED_AT }),
      'not-a-token',
    ])
      await expectResponse('getMember', '/members/me', { headers: { Authorization: `Bearer ${token}` } }, 401);
    await expectResponse('getMember', '/members/me', {}, 401);
    await expectResponse('getMember', '/members/me', { headers: { Authorization: LIBRARIAN_AUTHORIZATION } }, 401);
  });

  it("counts the holdings for the librarian's password only", async () => {
    expect(
      bodyOf(
        await expectResponse(
          'getStatistics',
          '/statistics',
          { headers: { Authorization: LIBRARIAN_AUTHORIZATION } },
          200,
        ),
      ),
    ).toEqual({ books: 2, authors: expect.any(Number) as number });
    const { username, password } = LIBRARY_LIBRARIAN;
    for (const authorization of [
      basic(username, `${password}x`),
      basic(`unknown-${username}`, password),
      MEMBER_AUTHORIZATION,
    ])
      await expectResponse('getStatistics', '/statistics', { headers: { Authorization: authorization } }, 401);
    await expectResponse('getStatistics', '/statistics', {}, 401);
  });

  it('records orders, of no copies too, and rejects orders off the contract', async () => {
    expect(bodyOf(await expectResponse('createOrder', '/orders', { method: 'POST', body: ORDER }, 201))).toMatchObject({
      ...ORDER,
      status: 'placed',
    });
    expect(
      bodyOf(await expectResponse('createOrder', '/orders', { method: 'POST', body: { ...ORDER, quantity: 0 } }, 201)),
    ).toMatchObject({ quantity: 0, status: 'empty' });
    await expectResponse('createOrder', '/orders', { method: 'POST', body: { ...ORDER, title: 'x'.repeat(200) } }, 201);
    for (const body of [
      { ...ORDER, quantity: -1 },
      { ...ORDER, quantity: 501 },
      { ...ORDER, title: 'x'.repeat(201) },
      { title: 'Kindred' },
    ])
      await expectResponse('createOrder', '/orders', { method: 'POST', body }, 400);
  });

  it('rejects books off the contract with the Error shape', async () => {
    const invalid: unknown[] = [
      { ...BOOK, genre: 'comics' },
      { ...BOOK, pages: 0 },
      { ...BOOK, pages: 12.5 },
      { ...BOOK, title: '' },
      { ...BOOK, isbn: '9780385135146' },
      { ...BOOK, publisher: { ...BOOK.publisher, founded: '1897' } },
      { ...BOOK, publisher: { ...BOOK.publisher, address: { city: 'New York', country: 'usa' } } },
      { title: 'Kindred' },
      [BOOK],
    ];
    for (const body of invalid) await expectResponse('createBook', '/books', { method: 'POST', body, key: true }, 400);
    await expectResponse(
      'createBook',
      '/books',
      { method: 'POST', raw: JSON.stringify(BOOK), headers: { 'Content-Type': 'text/plain' }, key: true },
      415,
    );
    await expectResponse(
      'createBook',
      '/books',
      {
        method: 'POST',
        raw: JSON.stringify(BOOK),
        headers: { 'Content-Type': 'application/json; charset=latin1' },
        key: true,
      },
      415,
    );
    await expectResponse('updateBook', '/books/42', { method: 'PUT', body: BOOK, key: true }, 400);
    await expectResponse('getBook', '/books/42', {}, 400);
    await expectResponse('getBook', '/books/%E0%A4%A', {}, 400);
    await expectResponse('getBook', '/books/', {}, 404);
    await expectResponse('deleteBook', '/books/42', { method: 'DELETE', key: true }, 400);
  });
});

/** For each defect, the requests that show it: what they get in response breaks the document. */
const SHOWN_BY: { readonly [D in LibraryDefect]: (server: LibraryServer) => Promise<string[]> } = {
  'undeclared-status': async (server) =>
    breaches('createBook', await send(server, '/books', { method: 'POST', body: BOOK, key: true })),
  'missing-required-field': async (server) => {
    const created = bodyOf(await send(server, '/authors', { method: 'POST', body: AUTHOR }));
    return breaches('getAuthor', await send(server, `/authors/${String(created.id)}`));
  },
  'wrong-nested-type': async (server) => breaches('listBooks', await send(server, '/books')),
  'error-on-long-string': async (server) =>
    breaches(
      'createBook',
      await send(server, '/books', { method: 'POST', body: { ...BOOK, summary: 'x'.repeat(301) }, key: true }),
    ),
  'accepts-outside-enum': async (server) => {
    const received = await send(server, '/books', { method: 'POST', body: { ...BOOK, genre: 'comics' }, key: true });
    return received.status === 201 ? ['a 201 for a genre outside the enum'] : [];
  },
  'extra-property': async (server) =>
    breaches('createAuthor', await send(server, '/authors', { method: 'POST', body: AUTHOR })),
  'wrong-content-type': async (server) => breaches('listBooks', await send(server, '/books')),
  'missing-required-header': async (server) => breaches('listBooks', await send(server, '/books')),
  'open-without-credentials': async (server) => {
    const received = await send(server, '/books', { method: 'POST', body: BOOK });
    return received.status === 201 ? ['a 201 without X-Api-Key'] : [];
  },
  'created-not-found': async (server) => {
    const created = bodyOf(await send(server, '/books', { method: 'POST', body: BOOK, key: true }));
    const read = await send(server, `/books/${String(created.id)}`);
    return read.status === 404 ? ['the created book is not found'] : [];
  },
  'accepts-any-token': async (server) => {
    const received = await send(server, '/members/me', { headers: { Authorization: 'Bearer any-token' } });
    return received.status === 200 ? ['a 200 for a token the library never signed'] : [];
  },
  'accepts-wrong-password': async (server) => {
    const authorization = basic(LIBRARY_LIBRARIAN.username, 'wrong-password');
    const received = await send(server, '/statistics', { headers: { Authorization: authorization } });
    return received.status === 200 ? ['a 200 for a wrong password'] : [];
  },
  'drops-field-at-minimum': async (server) =>
    breaches('createOrder', await send(server, '/orders', { method: 'POST', body: { ...ORDER, quantity: 0 } })),
  'error-at-max-length': async (server) =>
    breaches(
      'createOrder',
      await send(server, '/orders', { method: 'POST', body: { ...ORDER, title: 'x'.repeat(200) } }),
    ),
  'error-body-off-schema': async (server) => breaches('getBook', await send(server, `/books/${crypto.randomUUID()}`)),
  hang: async (server) => {
    const responded = await fetch(`${server.url}/authors/${crypto.randomUUID()}`, {
      signal: AbortSignal.timeout(500),
    }).then(
      () => true,
      (error: unknown) =>
        error instanceof DOMException && error.name === 'TimeoutError' ? false : Promise.reject(error),
    );
    return responded ? [] : ['getAuthor does not respond'];
  },
};

describe.each(Object.keys(LIBRARY_DEFECTS) as LibraryDefect[])('the library server with the defect %s', (defect) => {
  it(`breaks ${LIBRARY_DEFECTS[defect]} where the correct server keeps the document`, async () => {
    const server = await startLibraryServer({ defect });
    try {
      expect(await SHOWN_BY[defect](server)).not.toEqual([]);
      // The same requests against the correct server find nothing.
      const correct = await startLibraryServer();
      try {
        expect(await SHOWN_BY[defect](correct)).toEqual([]);
      } finally {
        await correct.close();
      }
    } finally {
      await server.close();
    }
  });
});
