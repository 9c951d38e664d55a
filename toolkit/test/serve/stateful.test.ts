import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, servingLines, USAGE, type Serving } from '../../src/serve.js';

/**
 * `serve --stateful` end to end, each request through the server's request and response
 * validation: on the public documents that have a create paired with a read (Redocly's museum, its
 * special events; ReadMe's petstore, its orders and users), and on test/fixtures/generator/stateful.yaml,
 * whose resources are paired by links, by the Location header and by the names of path parameters.
 * What the client sends comes back as sent; an id never created, or deleted, gets 404.
 */

const fixture = (file: string): string => fileURLToPath(new URL(`../fixtures/${file}`, import.meta.url));

interface Answer {
  readonly status: number;
  readonly location: string | null;
  readonly contentType: string | null;
  readonly body: unknown;
}

type Json = Record<string, unknown>;

function client(serving: () => Serving, headers: Readonly<Record<string, string>> = {}) {
  return async (method: string, target: string, body?: unknown, contentType = 'application/json'): Promise<Answer> => {
    const response = await fetch(`${serving().url}${target}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': contentType }) },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    return {
      status: response.status,
      location: response.headers.get('location'),
      contentType: response.headers.get('content-type'),
      body: text === '' ? undefined : (JSON.parse(text) as unknown),
    };
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe("serve --stateful on Redocly's museum: special events", () => {
  let serving: Serving;
  const call = client(() => serving, { Authorization: `Basic ${Buffer.from('user:password').toString('base64')}` });
  beforeAll(async () => {
    serving = await serve({
      input: fixture('third-party/redocly-museum.yaml'),
      port: 0,
      stateful: true,
      log: () => undefined,
    });
  });
  afterAll(async () => {
    await serving.close();
  });

  it('prints that it is stateful, and the resources it keeps', () => {
    expect(servingLines('redocly-museum.yaml', serving).slice(0, 2)).toEqual([
      `serving redocly-museum.yaml (8 operations) at ${serving.url}`,
      '  stateful: special-events (createSpecialEvent → getSpecialEvent, listSpecialEvents, updateSpecialEvent, deleteSpecialEvent)',
    ]);
    expect(USAGE).toContain('--stateful');
  });

  it('creates, reads, lists, updates and deletes, then 404', async () => {
    expect(await call('GET', '/special-events')).toMatchObject({ status: 200, body: [] });

    const sent = {
      name: 'Pirate Coding Workshop',
      location: 'Computer Room',
      eventDescription: 'Captain Blackbeard shares his love of the C...language.',
      dates: ['2024-09-05', '2024-09-08'],
      price: 25,
    };
    const created = await call('POST', '/special-events', sent);
    expect(created.status).toBe(201);
    const event = created.body as Json;
    expect(event).toEqual({ eventId: expect.stringMatching(UUID), ...sent });
    expect(created.location).toBe(`/special-events/${String(event['eventId'])}`);
    const other = await call('POST', '/special-events', { ...sent, name: 'Sasquatch Ballet', price: 40 });
    const otherId = String((other.body as Json)['eventId']);
    expect(otherId).not.toBe(event['eventId']);

    const path = `/special-events/${String(event['eventId'])}`;
    expect(await call('GET', path)).toMatchObject({ status: 200, body: event });
    expect(await call('GET', '/special-events')).toMatchObject({ status: 200, body: [event, other.body] });

    const updated = await call('PATCH', path, { location: 'On the beach.', price: 15 });
    expect(updated).toMatchObject({ status: 200, body: { ...event, location: 'On the beach.', price: 15 } });
    expect(await call('GET', path)).toMatchObject({ body: updated.body });

    expect(await call('DELETE', path)).toMatchObject({ status: 204, body: undefined });
    const gone = await call('GET', path);
    expect(gone.status).toBe(404);
    expect(gone.contentType).toMatch(/^application\/problem\+json/);
    expect(gone.body).toMatchObject({ title: expect.stringContaining(`eventId ${String(event['eventId'])}`) });
    expect(await call('PATCH', path, { price: 1 })).toMatchObject({ status: 404 });
    expect(await call('DELETE', path)).toMatchObject({ status: 404 });
    expect(await call('GET', '/special-events')).toMatchObject({ body: [other.body] });
  });

  it('keeps an id the client sends, one resource to an id', async () => {
    const eventId = '6744a0da-4121-49cd-8479-f8cc20526495';
    const sent = { eventId, name: 'Time Traveler Tea Party', location: 'Temporal Tearoom' };
    const rest = { eventDescription: 'Tea.', dates: ['2024-11-18'], price: 60 };
    expect(await call('POST', '/special-events', { ...sent, ...rest })).toMatchObject({
      status: 201,
      body: { ...sent, ...rest },
    });
    await call('POST', '/special-events', { ...sent, ...rest, price: 70 });
    const listed = (await call('GET', '/special-events')).body as Json[];
    expect(listed.filter((event) => event['eventId'] === eventId)).toEqual([{ ...sent, ...rest, price: 70 }]);
    expect((await call('DELETE', `/special-events/${eventId}`)).status).toBe(204);
  });

  it('responds with 404 for an id never created', async () => {
    expect((await call('GET', '/special-events/dad4bce8-f5cb-4078-a211-995864315e39')).status).toBe(404);
  });

  it('keeps the example of an operation that is part of no resource', async () => {
    const hours = await call('GET', '/museum-hours');
    expect(hours.status).toBe(200);
    expect((hours.body as Json[])[0]).toEqual({ date: '2023-09-11', timeOpen: '09:00', timeClose: '18:00' });
  });
});

describe("serve --stateful on ReadMe's petstore: orders and users", () => {
  let serving: Serving;
  const call = client(() => serving, { Authorization: 'Bearer token', api_key: 'key' });
  beforeAll(async () => {
    serving = await serve({
      input: fixture('third-party/readme-petstore.yaml'),
      port: 0,
      stateful: true,
      log: () => undefined,
    });
  });
  afterAll(async () => {
    await serving.close();
  });

  it('keeps what the document declares success responses for', () => {
    expect(servingLines('readme-petstore.yaml', serving)[1]).toBe(
      '  stateful: order (placeOrder → getOrderById); user (createUser → getUserByName)',
    );
  });

  it('places orders with fresh ids, reads them back, and responds with 404 for others', async () => {
    const first = await call('POST', '/store/order', { petId: 2, quantity: 1, status: 'placed' });
    // `complete` is the schema's default, which the validator writes into the request.
    expect(first).toMatchObject({
      status: 200,
      body: { id: 1, petId: 2, quantity: 1, status: 'placed', complete: false },
    });
    const second = await call('POST', '/store/order', { petId: 3, quantity: 2, shipDate: '2024-01-01T00:00:00Z' });
    expect((second.body as Json)['id']).toBe(2);
    expect(await call('GET', '/store/order/1')).toMatchObject({ status: 200, body: first.body });
    expect(await call('GET', '/store/order/2')).toMatchObject({ status: 200, body: second.body });
    expect(await call('GET', '/store/order/3')).toMatchObject({ status: 404, body: undefined });
  });

  it('creates users named by their username', async () => {
    const alice = { username: 'alice', firstName: 'Alice', email: 'alice@example.com' };
    expect((await call('POST', '/user', alice)).status).toBe(200);
    expect(await call('GET', '/user/alice')).toMatchObject({ status: 200, body: alice });
    expect((await call('GET', '/user/bob')).status).toBe(404);
  });

  it('leaves the operations that declare no success response as they were: 501, nothing changed', async () => {
    expect((await call('POST', '/pet', { name: 'Rex', photoUrls: [] })).status).toBe(501);
    expect((await call('DELETE', '/store/order/1')).status).toBe(501);
    expect((await call('GET', '/store/order/1')).status).toBe(200);
    expect((await call('GET', '/pet/5')).status).toBe(200);
  });
});

describe('serve --stateful on resources paired by links, Location and names', () => {
  let serving: Serving;
  const call = client(() => serving);
  beforeAll(async () => {
    serving = await serve({ input: fixture('generator/stateful.yaml'), port: 0, stateful: true, log: () => undefined });
  });
  afterAll(async () => {
    await serving.close();
  });

  it("pairs by the create's links: the account's number feeds another path's parameter", async () => {
    const opened = await call('POST', '/accounts', { holder: 'Grace Hopper', currency: 'USD' });
    // The number is made like the example's (AC000001); the balance, which the client cannot write, is the example's.
    expect(opened).toMatchObject({
      status: 201,
      location: '/account-records/AC000001',
      body: { number: 'AC000001', holder: 'Grace Hopper', currency: 'USD', balance: 0 },
    });
    expect((await call('POST', '/accounts', { holder: 'Alan Turing', currency: 'EUR' })).body).toMatchObject({
      number: 'AC000002',
    });
    expect(await call('GET', '/account-records/AC000001')).toMatchObject({ status: 200, body: opened.body });
    expect((await call('DELETE', '/account-records/AC000001')).status).toBe(204);
    expect(await call('GET', '/account-records/AC000001')).toMatchObject({
      status: 404,
      body: { message: expect.stringContaining('accountNumber AC000001') },
    });
    expect((await call('GET', '/account-records/AC000002')).status).toBe(200);
  });

  it("pairs by the Location header of the create's response, whose body holds no id", async () => {
    expect(await call('GET', '/uploads')).toMatchObject({ status: 200, body: { items: [], next: null } });
    const created = await call('POST', '/uploads', { fileName: 'a.txt', size: 3 });
    // The receipt's schema names only its status; the key is made like the Location header's example.
    expect(created).toMatchObject({ status: 201, location: '/uploads/up-1', body: { status: 'received' } });
    const upload = { fileName: 'a.txt', size: 3, status: 'received' };
    expect(await call('GET', '/uploads/up-1')).toMatchObject({ status: 200, body: upload });
    expect(await call('GET', '/uploads')).toMatchObject({ body: { items: [upload], next: null } });
    expect(await call('PATCH', '/uploads/up-1', { fileName: 'b.txt' }, 'application/merge-patch+json')).toMatchObject({
      status: 200,
      body: { ...upload, fileName: 'b.txt' },
    });
    expect((await call('GET', '/uploads/up-2')).status).toBe(404);
  });

  it('pairs by the name of the path parameter: create, list, merge patch, replace, delete', async () => {
    expect(await call('GET', '/orders')).toMatchObject({ status: 200, body: { orders: [] } });
    const created = await call('POST', '/orders', { item: 'pen', quantity: 2, note: 'gift' });
    // The id is fresh; status and createdAt, which the client cannot write, are the example's.
    const order = {
      id: 1,
      item: 'pen',
      quantity: 2,
      note: 'gift',
      status: 'placed',
      createdAt: '2024-05-01T12:00:00Z',
    };
    expect(created).toMatchObject({ status: 201, location: '/orders/1', body: order });
    const ink = (await call('POST', '/orders', { item: 'ink', quantity: 1 })).body as Json;
    expect(ink).toEqual({ id: 2, item: 'ink', quantity: 1, status: 'placed', createdAt: '2024-05-01T12:00:00Z' });

    expect(await call('GET', '/orders/1')).toMatchObject({ status: 200, body: order });
    expect(await call('GET', '/orders?item=ink')).toMatchObject({ body: { orders: [ink] } });

    // JSON Merge Patch: null removes the note.
    const patched = await call('PATCH', '/orders/1', { note: null, quantity: 5 }, 'application/merge-patch+json');
    const { note: _removed, ...withoutNote } = order;
    expect(patched).toMatchObject({ status: 200, body: { ...withoutNote, quantity: 5 } });
    expect(patched.body).not.toHaveProperty('note');

    // PUT replaces what the client writes and keeps what the server sets.
    const replaced = await call('PUT', '/orders/1', { item: 'pencil', quantity: 3 });
    expect(replaced).toMatchObject({ status: 200, body: { ...withoutNote, item: 'pencil', quantity: 3 } });
    expect(await call('GET', '/orders/1')).toMatchObject({ body: replaced.body });

    // A PUT to an id never created creates it.
    expect(await call('PUT', '/orders/9', { item: 'chalk', quantity: 1 })).toMatchObject({
      status: 200,
      body: { id: 9, item: 'chalk', quantity: 1, status: 'placed' },
    });
    expect((await call('GET', '/orders/9')).status).toBe(200);

    // A path below the order's is part of no resource: it keeps its example.
    expect(await call('GET', '/orders/1/receipt')).toMatchObject({ body: { text: 'Thank you for your order.' } });

    expect((await call('DELETE', '/orders/1')).status).toBe(204);
    expect(await call('GET', '/orders/1')).toMatchObject({
      status: 404,
      body: { message: expect.stringContaining('orderId 1') },
    });
    expect(await call('PATCH', '/orders/1', { quantity: 1 }, 'application/merge-patch+json')).toMatchObject({
      status: 404,
    });
    expect(((await call('GET', '/orders')).body as { orders: Json[] }).orders.map((o) => o['id'])).toEqual([2, 9]);
  });

  it('creates with a PUT to the item path where no POST creates: 201, then 200', async () => {
    expect((await call('GET', '/preferences/theme')).status).toBe(404);
    expect(await call('PUT', '/preferences/theme', { value: 'dark' })).toMatchObject({
      status: 201,
      body: { key: 'theme', value: 'dark' },
    });
    expect(await call('PUT', '/preferences/theme', { value: 'light' })).toMatchObject({
      status: 200,
      body: { key: 'theme', value: 'light' },
    });
    expect(await call('GET', '/preferences/theme')).toMatchObject({ body: { key: 'theme', value: 'light' } });
  });
});

describe('serve --stateful --under-servers', () => {
  let serving: Serving;
  const call = client(() => serving);
  beforeAll(async () => {
    serving = await serve({
      input: fixture('generator/stateful.yaml'),
      port: 0,
      stateful: true,
      underServers: true,
      log: () => undefined,
    });
  });
  afterAll(async () => {
    await serving.close();
  });

  it("names what it creates under the server's path, and holds nothing another server created", async () => {
    expect(await call('GET', '/v1/orders')).toMatchObject({ status: 200, body: { orders: [] } });
    expect(await call('POST', '/v1/orders', { item: 'pen', quantity: 1 })).toMatchObject({
      status: 201,
      location: '/v1/orders/1',
    });
    expect((await call('POST', '/v1/uploads', { fileName: 'a.txt', size: 1 })).location).toBe('/v1/uploads/up-1');
  });
});
