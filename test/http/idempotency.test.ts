import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toTransfer } from '../../server/http/handlers/transfers.js';
import { requestFingerprint } from '../../server/http/unit-of-work.js';
import { insertTransfer } from '../../server/store/transfers.js';
import { startSettlementWorker } from '../../server/settlement-worker.js';
import { getBalance, recordAuthFailure } from '../../server/store/organizations.js';
import { IDEMPOTENCY_RETENTION_MS } from '../../server/store/idempotency.js';
import { storeResponse } from '../helpers/store-response.js';
import { startTestApp, type Partner, type TestApp } from '../../scripts/proof/app.js';
import {
  createTransfer,
  eventually,
  expectError,
  gate,
  newTransferOf,
  recordingLogger,
  transferAction,
  transferBody,
  type TransferJson,
} from './support.js';

// Idempotency: one response per (client, key) for 24 hours, replayed byte for byte;
// 422 for another request under the same key, 409 while it runs; nothing stored for requests the
// operation never saw, nor for 5xx.

let app: TestApp;
let partner: Partner;

beforeAll(async () => {
  app = await startTestApp();
  partner = await app.onboard({ name: 'Idempotent Partner' });
});
afterAll(async () => {
  await app.close();
});

async function transfersWithKey(who: Partner, key: string): Promise<number> {
  const row = await app.db
    .selectFrom('transfers')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('client_id', '=', who.clientId)
    .where('idempotency_key', '=', key)
    .executeTakeFirstOrThrow();
  return row.n;
}

async function storedKey(who: Partner, key: string): Promise<boolean> {
  const row = await app.db
    .selectFrom('idempotency_keys')
    .select('key')
    .where('client_id', '=', who.clientId)
    .where('key', '=', key)
    .executeTakeFirst();
  return row !== undefined;
}

describe('replay', () => {
  it('a repeat of a create responds with the same bytes with Idempotent-Replayed: true, and creates nothing', async () => {
    const key = randomUUID();
    const body = transferBody({ amountCents: 4_321 });
    const first = await partner.request('POST', '/v1/transfer', { body, idempotencyKey: key });
    const firstText = await first.text();
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();

    // Later, newly signed (the signature covers the timestamp, not the key).
    app.clock.advance(60_000);
    const again = await partner.request('POST', '/v1/transfer', { body, idempotencyKey: key });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(firstText);
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(await transfersWithKey(partner, key)).toBe(1);
  });

  it('the same body sent gzip-compressed is the same request: the fingerprint hashes the body with its Content-Encoding undone', async () => {
    const key = randomUUID();
    const body = transferBody({ amountCents: 4_322 });
    const first = await partner.request('POST', '/v1/transfer', { body, idempotencyKey: key });
    const firstText = await first.text();
    expect(first.status).toBe(200);
    const compressed = {
      rawBody: gzipSync(JSON.stringify(body)),
      headers: { 'Content-Encoding': 'gzip' },
      idempotencyKey: key,
    };
    const again = await partner.request('POST', '/v1/transfer', compressed);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(firstText);
    // Another body compressed is another request.
    const other = await partner.request('POST', '/v1/transfer', {
      ...compressed,
      rawBody: gzipSync(JSON.stringify(transferBody({ amountCents: 4_323 }))),
    });
    await expectError(other, 422, 'DuplicateIdempotencyKey');
    expect(await transfersWithKey(partner, key)).toBe(1);
  });

  it('a repeated execute reserves the money once', async () => {
    const created = await createTransfer(partner, { amountCents: 5_000 });
    const key = randomUUID();
    const before = await getBalance(app.db, partner.organizationId);
    const first = await partner.request('POST', `/v1/transfer/${created.id}/execute`, { idempotencyKey: key });
    const firstText = await first.text();
    expect(first.status).toBe(200);
    const again = await partner.request('POST', `/v1/transfer/${created.id}/execute`, { idempotencyKey: key });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(firstText);
    expect(await getBalance(app.db, partner.organizationId)).toBe((before ?? 0) - 5_000);
  });

  it('replays a stored InsufficientFunds, even after the balance has grown', async () => {
    const poor = await app.onboard({ name: 'Poor Partner', balanceCents: 10 });
    const created = await createTransfer(poor, { amountCents: 20 });
    const key = randomUUID();
    const first = await poor.request('POST', `/v1/transfer/${created.id}/execute`, { idempotencyKey: key });
    const firstText = await first.text();
    expect(first.status).toBe(400);
    expect(JSON.parse(firstText)).toMatchObject({ type: 'InsufficientFunds' });

    // Before the balance grows the retry's reservation fails again, and after it the reservation
    // would hold: either way the stored response is sent and nothing of the retry is kept.
    let balance = 10;
    const unchanged = async () => {
      expect(await getBalance(app.db, poor.organizationId)).toBe(balance);
      expect(
        (await app.db.selectFrom('transfers').select('status').where('id', '=', created.id).executeTakeFirstOrThrow())
          .status,
      ).toBe('PENDING');
    };
    const early = await poor.request('POST', `/v1/transfer/${created.id}/execute`, { idempotencyKey: key });
    expect([early.status, early.headers.get('idempotent-replayed'), await early.text()]).toEqual([
      400,
      'true',
      firstText,
    ]);
    await unchanged();

    await app.db
      .updateTable('organizations')
      .set({ balance_cents: 1_000 })
      .where('id', '=', poor.organizationId)
      .execute();
    balance = 1_000;
    const again = await poor.request('POST', `/v1/transfer/${created.id}/execute`, { idempotencyKey: key });
    expect(again.status).toBe(400);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(firstText);
    await unchanged();

    // A new key is a new attempt, and now it goes through.
    const fresh = await transferAction(poor, created.id, 'execute');
    expect(fresh.status).toBe(200);
  });

  it('replays a stored not-PENDING rejection and a stored 404', async () => {
    const created = await createTransfer(partner);
    expect((await transferAction(partner, created.id, 'cancel')).status).toBe(200);
    const key = randomUUID();
    const rejected = await partner.request('POST', `/v1/transfer/${created.id}/execute`, { idempotencyKey: key });
    const rejectedText = await rejected.text();
    expect(rejected.status).toBe(400);
    const again = await partner.request('POST', `/v1/transfer/${created.id}/execute`, { idempotencyKey: key });
    expect(again.status).toBe(400);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(rejectedText);

    const missingKey = randomUUID();
    const path = '/v1/transfer/trf_000000000000000000000000/cancel';
    const missing = await partner.request('POST', path, { idempotencyKey: missingKey });
    await expectError(missing, 404, 'NotFound');
    const missingAgain = await partner.request('POST', path, { idempotencyKey: missingKey });
    expect(missingAgain.status).toBe(404);
    expect(missingAgain.headers.get('idempotent-replayed')).toBe('true');
  });
});

describe('one key, another request', () => {
  it('another body under the same key → 422 DuplicateIdempotencyKey, nothing created', async () => {
    const key = randomUUID();
    expect(
      (await partner.request('POST', '/v1/transfer', { body: transferBody({ amountCents: 100 }), idempotencyKey: key }))
        .status,
    ).toBe(200);
    const changed = await partner.request('POST', '/v1/transfer', {
      body: transferBody({ amountCents: 101 }),
      idempotencyKey: key,
    });
    await expectError(changed, 422, 'DuplicateIdempotencyKey');
    expect(await transfersWithKey(partner, key)).toBe(1);
  });

  it('another path under the same key → 422 DuplicateIdempotencyKey, nothing done', async () => {
    const a = await createTransfer(partner);
    const b = await createTransfer(partner);
    const key = randomUUID();
    expect((await partner.request('POST', `/v1/transfer/${a.id}/cancel`, { idempotencyKey: key })).status).toBe(200);
    await expectError(
      await partner.request('POST', `/v1/transfer/${b.id}/cancel`, { idempotencyKey: key }),
      422,
      'DuplicateIdempotencyKey',
    );
    await expectError(
      await partner.request('POST', `/v1/transfer/${a.id}/execute`, { idempotencyKey: key }),
      422,
      'DuplicateIdempotencyKey',
    );
    await expectError(
      await partner.request('POST', '/v1/transfer', { body: transferBody(), idempotencyKey: key }),
      422,
      'DuplicateIdempotencyKey',
    );
    const unchanged = (await (await partner.request('GET', `/v1/transfer/${b.id}`)).json()) as TransferJson;
    expect(unchanged.status).toBe('PENDING');
  });

  it('the keys of two partners are independent', async () => {
    const second = await app.onboard({ name: 'Second Partner' });
    const key = randomUUID();
    const mine = await partner.request('POST', '/v1/transfer', {
      body: transferBody({ amountCents: 111 }),
      idempotencyKey: key,
    });
    const theirs = await second.request('POST', '/v1/transfer', {
      body: transferBody({ amountCents: 222 }),
      idempotencyKey: key,
    });
    expect(mine.status).toBe(200);
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    const [a, b] = [(await mine.json()) as TransferJson, (await theirs.json()) as TransferJson];
    expect(a.id).not.toBe(b.id);
    expect([a.amountCents, b.amountCents]).toEqual([111, 222]);
  });
});

describe('24 hours', () => {
  it('a key is replayed for 24 hours, then forgotten and usable as new', async () => {
    const key = randomUUID();
    const first = (await (
      await partner.request('POST', '/v1/transfer', { body: transferBody({ amountCents: 1 }), idempotencyKey: key })
    ).json()) as TransferJson;

    app.clock.advance(IDEMPOTENCY_RETENTION_MS - 1);
    const stillThere = await partner.request('POST', '/v1/transfer', {
      body: transferBody({ amountCents: 1 }),
      idempotencyKey: key,
    });
    expect(stillThere.headers.get('idempotent-replayed')).toBe('true');
    expect(((await stillThere.json()) as TransferJson).id).toBe(first.id);
    await expectError(
      await partner.request('POST', '/v1/transfer', { body: transferBody({ amountCents: 2 }), idempotencyKey: key }),
      422,
      'DuplicateIdempotencyKey',
    );

    app.clock.advance(1);
    const renewed = await partner.request('POST', '/v1/transfer', {
      body: transferBody({ amountCents: 2 }),
      idempotencyKey: key,
    });
    expect(renewed.status).toBe(200);
    expect(renewed.headers.get('idempotent-replayed')).toBeNull();
    const second = (await renewed.json()) as TransferJson;
    expect(second.id).not.toBe(first.id);
    expect(second.amountCents).toBe(2);
    expect(await transfersWithKey(partner, key)).toBe(2);
  });
});

describe('in flight', () => {
  it('while another request is committing the key: 409 with Retry-After on PostgreSQL (the embedded database runs one transaction at a time, so the request waits); then the holder is replayed and another request rejected', async () => {
    const key = randomUUID();
    const bodyJson = transferBody({ amountCents: 909 });
    const body = JSON.stringify(bodyJson);
    const fingerprint = requestFingerprint('POST', '/v1/transfer', Buffer.from(body));
    const { open: release, opened: released } = gate();
    const { open: holding, opened: held } = gate();
    // A request of another instance, between its stored response and its commit.
    const holder = app.db.transaction().execute(async (tx) => {
      const row = await insertTransfer(tx, newTransferOf(partner, key, bodyJson, app.clock.now()));
      const received = toTransfer(row);
      await storeResponse(tx, {
        clientId: partner.clientId,
        key,
        fingerprint,
        nowMs: app.clock.now(),
        status: 200,
        body: JSON.stringify(received),
      });
      holding();
      await released;
      return received;
    });
    await held;
    const busy = partner.request('POST', '/v1/transfer', { rawBody: body, idempotencyKey: key });
    if (app.kind === 'postgres') {
      const received = await busy;
      await expectError(received, 409, 'DuplicateIdempotencyKey');
      expect(received.headers.get('retry-after')).toBe('1');
      release();
    } else {
      setTimeout(release, 50);
      const received = await busy;
      expect(received.status).toBe(200);
      expect(received.headers.get('idempotent-replayed')).toBe('true');
    }
    const heldResponse = await holder;
    const replay = await partner.request('POST', '/v1/transfer', { rawBody: body, idempotencyKey: key });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.json()).toEqual(heldResponse);
    await expectError(
      await partner.request('POST', '/v1/transfer', { body: transferBody({ amountCents: 910 }), idempotencyKey: key }),
      422,
      'DuplicateIdempotencyKey',
    );
    expect(await transfersWithKey(partner, key)).toBe(1);
  });

  it('two requests with one key at once: one transfer, and both responses name it (or the second is told to retry)', async () => {
    const key = randomUUID();
    const body = JSON.stringify(transferBody({ amountCents: 919 }));
    const responses = await Promise.all(
      [0, 1].map(() => partner.request('POST', '/v1/transfer', { rawBody: body, idempotencyKey: key })),
    );
    const texts = await Promise.all(responses.map((received) => received.text()));
    const created = responses.findIndex(
      (received) => received.status === 200 && received.headers.get('idempotent-replayed') === null,
    );
    expect(created).toBeGreaterThanOrEqual(0);
    const other = responses[1 - created];
    if (other?.status === 409) expect(other.headers.get('retry-after')).toBe('1');
    else {
      expect(other?.headers.get('idempotent-replayed')).toBe('true');
      expect(texts[1 - created]).toBe(texts[created]);
    }
    expect(await transfersWithKey(partner, key)).toBe(1);
  });
});

describe('nothing stored when the operation never ran', () => {
  it.each([
    ['a bad signature', { headers: { 'X-Partner-Signature': 'AAAA' } }, 401, 'InvalidSignature'],
    ['no signature', { omitHeaders: ['X-Partner-Signature'] }, 401, 'MissingSignature'],
    ['a stale timestamp', { timestamp: 1_600_000_000 }, 401, 'InvalidSignature'],
    ['a token without the scope', { tokenScope: 'transfers:read' }, 403, 'Unauthorized'],
    ['a bad body', { body: { amountCents: -1 } }, 400, 'InvalidRequest'],
    ['an unknown query parameter', { query: '?dryRun=true' }, 400, 'InvalidRequest'],
    ['a wrong content type', { contentType: 'text/plain' }, 415, 'InvalidRequest'],
  ] as const)('%s (%j) → %i, and a corrected retry with the same key runs', async (_name, failure, status, type) => {
    const key = randomUUID();
    const { tokenScope, query, ...options } = { tokenScope: undefined, query: '', ...failure };
    const token = tokenScope === undefined ? undefined : await partner.token(tokenScope);
    const failed = await partner.request('POST', `/v1/transfer${query}`, {
      body: transferBody({ amountCents: 333 }),
      idempotencyKey: key,
      ...(token === undefined ? {} : { token }),
      ...options,
    });
    await expectError(failed, status, type);
    expect(await storedKey(partner, key)).toBe(false);

    const fixed = await partner.request('POST', '/v1/transfer', {
      body: transferBody({ amountCents: 333 }),
      idempotencyKey: key,
    });
    expect(fixed.status).toBe(200);
    expect(fixed.headers.get('idempotent-replayed')).toBeNull();
    expect(await transfersWithKey(partner, key)).toBe(1);
  });

  it('a 5xx stores nothing and rolls the change back: the retry runs', async () => {
    // A real fault in the database: a trigger that fails one insert.
    await sql`
      create or replace function refuse_explosive() returns trigger language plpgsql as $$
      begin
        if new.account_name = 'Explosive' then raise exception 'simulated storage failure'; end if;
        return new;
      end $$`.execute(app.db);
    await sql`create trigger refuse_explosive before insert on transfers for each row execute function refuse_explosive()`.execute(
      app.db,
    );
    const key = randomUUID();
    const body = transferBody({ accountName: 'Explosive' });
    try {
      const failed = await partner.request('POST', '/v1/transfer', { body, idempotencyKey: key });
      const error = await expectError(failed, 500, 'InternalError');
      expect(JSON.stringify(error)).not.toContain('simulated storage failure');
      expect(await storedKey(partner, key)).toBe(false);
      expect(await transfersWithKey(partner, key)).toBe(0);
    } finally {
      await sql`drop trigger refuse_explosive on transfers`.execute(app.db);
    }
    const retried = await partner.request('POST', '/v1/transfer', { body, idempotencyKey: key });
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });
});

describe('housekeeping', () => {
  it('the worker deletes keys past their 24 hours and finished failure windows, and nothing newer', async () => {
    const old = randomUUID();
    const recent = randomUUID();
    const now = app.clock.now();
    await app.db
      .insertInto('idempotency_keys')
      .values([
        {
          client_id: partner.clientId,
          key: old,
          fingerprint: 'f',
          response_status: 200,
          response_body: '{}',
          created_at: now - IDEMPOTENCY_RETENTION_MS - 1,
        },
        {
          client_id: partner.clientId,
          key: recent,
          fingerprint: 'f',
          response_status: 200,
          response_body: '{}',
          created_at: now - IDEMPOTENCY_RETENTION_MS + 60_000,
        },
      ])
      .execute();
    await recordAuthFailure(app.db, 'cli_finished_window_0000000000', now - 61_000, 60_000);
    await recordAuthFailure(app.db, 'cli_current_window_00000000000', now - 1_000, 60_000);

    const { entries, logger } = recordingLogger();
    const worker = startSettlementWorker({ db: app.db, clock: app.clock, logger, intervalMs: 1 });
    try {
      await eventually(async () => entries.some((entry) => entry.message === 'expired records deleted'));
    } finally {
      await worker.stop();
    }
    expect(await storedKey(partner, old)).toBe(false);
    expect(await storedKey(partner, recent)).toBe(true);
    const windows = await app.db
      .selectFrom('auth_failures')
      .select('client_id')
      .where('client_id', 'like', 'cli_%window%')
      .execute();
    expect(windows.map((row) => row.client_id)).toEqual(['cli_current_window_00000000000']);
  });
});
