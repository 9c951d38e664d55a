import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getBalance } from '../../server/store/organizations.js';
import { executeTransfer } from '../../server/store/transfers.js';
import { startTestApp, type Partner, type TestApp, type TestInstance } from '../../scripts/proof/app.js';
import { createTransfer, gate, transferBody, type TransferJson } from './support.js';

// Issue 3, concurrency: two instances of the service sharing one PostgreSQL database (each with
// its own connection pool, as two processes would have) take requests at the same moment. The
// database alone keeps one transfer per key and every cent spent once. PGlite is one backend and
// serialises everything, so these run on PostgreSQL only.

const postgresUrl = process.env['DATABASE_URL'];
if (!postgresUrl) {
  console.info('HTTP concurrency tests skipped: set DATABASE_URL=postgres://… to run them on PostgreSQL.');
}

describe.skipIf(!postgresUrl)('two instances on one PostgreSQL database', () => {
  let app: TestApp;
  let second: TestInstance;

  beforeAll(async () => {
    app = await startTestApp();
    second = await app.startInstance();
  });
  afterAll(async () => {
    await app.close();
  });

  /** The partner as seen by each instance, and a token both accept. */
  async function onBoth(balanceCents: number): Promise<{ partner: Partner; instances: Partner[]; token: string }> {
    const partner = await app.onboard({ name: `Concurrent ${randomUUID().slice(0, 6)}`, balanceCents });
    return { partner, instances: [partner, second.as(partner)], token: await partner.token() };
  }

  const balanceOf = async (partner: Partner): Promise<number> =>
    (await getBalance(app.db, partner.organizationId)) ?? Number.NaN;

  it('20 concurrent creates with one key → exactly one transfer; every response is that transfer or a 409', async () => {
    const { partner, instances, token } = await onBoth(0);
    const key = randomUUID();
    const body = transferBody({ amountCents: 12_300 });
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        instances[i % 2]?.request('POST', '/v1/transfer', { body, idempotencyKey: key, token }),
      ),
    );
    const outcomes = await Promise.all(
      responses.map(async (response) => ({
        status: response?.status,
        body: JSON.parse((await response?.text()) ?? 'null') as TransferJson | { type: string },
      })),
    );
    const created = outcomes.filter((outcome) => outcome.status === 200).map((outcome) => outcome.body as TransferJson);
    const busy = outcomes.filter((outcome) => outcome.status === 409);
    expect(created.length + busy.length).toBe(20);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((transfer) => transfer.id)).size).toBe(1);
    for (const outcome of busy) expect(outcome.body).toMatchObject({ type: 'DuplicateIdempotencyKey' });

    const rows = await app.db
      .selectFrom('transfers')
      .select('id')
      .where('client_id', '=', partner.clientId)
      .where('idempotency_key', '=', key)
      .execute();
    expect(rows.map((row) => row.id)).toEqual([created[0]?.id]);
    // Once the dust settles, a retry is a replay of that transfer on either instance.
    for (const instance of instances) {
      const replay = await instance.request('POST', '/v1/transfer', { body, idempotencyKey: key, token });
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(((await replay.json()) as TransferJson).id).toBe(created[0]?.id);
    }
  });

  it('20 concurrent executes whose sum exceeds the balance never spend more than it, and the balance is exact', async () => {
    const start = 10_000;
    const { partner, instances, token } = await onBoth(start);
    const amounts = Array.from({ length: 20 }, (_, i) => 700 + 37 * i);
    expect(amounts.reduce((a, b) => a + b, 0)).toBeGreaterThan(start);
    const transfers: TransferJson[] = [];
    for (const amount of amounts) transfers.push(await createTransfer(partner, { amountCents: amount }));

    const responses = await Promise.all(
      transfers.map((transfer, i) =>
        instances[i % 2]?.request('POST', `/v1/transfer/${transfer.id}/execute`, { token }),
      ),
    );
    let executed = 0;
    for (const [i, response] of responses.entries()) {
      const body = (await response?.json()) as TransferJson | { type: string };
      if (response?.status === 200) {
        expect(body).toMatchObject({ status: 'PROCESSING' });
        executed += transfers[i]?.amountCents ?? 0;
      } else {
        expect(response?.status).toBe(400);
        expect(body).toMatchObject({ type: 'InsufficientFunds' });
      }
    }
    expect(executed).toBeLessThanOrEqual(start);
    expect(executed).toBeGreaterThan(0);
    expect(await balanceOf(partner)).toBe(start - executed);

    // The database agrees with the responses: PROCESSING exactly for the 200s, PENDING for the rest.
    const processing = await app.db
      .selectFrom('transfers')
      .select((eb) => eb.fn.sum<string>('amount_cents').as('sum'))
      .where('organization_id', '=', partner.organizationId)
      .where('status', '=', 'PROCESSING')
      .executeTakeFirstOrThrow();
    expect(Number(processing.sum)).toBe(executed);
    // The rejected ones stayed PENDING: whatever is left over could not pay for any of them.
    const smallestRefused = Math.min(
      ...transfers.filter((_, i) => responses[i]?.status !== 200).map((t) => t.amountCents),
    );
    expect(start - executed).toBeLessThan(smallestRefused);
  });

  it.each(['the partner API', "the store, in a transaction of its own (the dashboard's approve)"])(
    "an execute through %s asks for its organization's balance only in its last statement, followed at once by the commit",
    async (via) => {
      const { partner, token } = await onBoth(50_000);
      const transfer = await createTransfer(partner, { amountCents: 1_234 });
      const { open: release, opened: released } = gate();
      const { open: holding, opened: held } = gate();
      // Another transaction holds the organization's row: the execute must wait for it, and the
      // statement found waiting is its last one, the one that checks the funds before the commit.
      const holder = app.db.transaction().execute(async (tx) => {
        await sql`select balance_cents from organizations where id = ${partner.organizationId} for update`.execute(tx);
        holding();
        await released;
      });
      await held;
      const executing =
        via === 'the partner API'
          ? partner
              .request('POST', `/v1/transfer/${transfer.id}/execute`, { token })
              .then(async (response) => ({ status: response.status, body: (await response.json()) as unknown }))
          : executeTransfer(app.db, partner.organizationId, transfer.id, Date.now(), Date.now() + 2_000).then(
              (outcome) => ({ status: 200, body: outcome.kind === 'done' ? outcome.transfer : outcome }),
            );
      let waiting: { query: string }[] = [];
      for (let tries = 0; tries < 200 && waiting.length === 0; tries += 1) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        ({ rows: waiting } = await sql<{ query: string }>`
          select query from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock' and query like '%organizations%'`.execute(
          app.db,
        ));
      }
      release();
      await holder;
      expect(waiting).toHaveLength(1);
      // The reservation with its funds check, and through the API the stored response, which only
      // the last statement carries (pg_stat_activity shows a statement's first 1,024 bytes, which
      // with the response end before the condition).
      const query = waiting[0]?.query ?? '';
      expect(query).toMatch(
        /update organizations set balance_cents = balance_cents - \$1\s+where id = \$2 and balance_cents >= \$3/,
      );
      if (via === 'the partner API')
        expect(query).toMatch(/^with statement_alongside_at_commit as \(insert into idempotency_keys/);
      else expect(query).toContain('condition_holds(exists (select from moved), $');
      expect(await executing).toMatchObject({ status: 200, body: { id: transfer.id, status: 'PROCESSING' } });
      expect(await balanceOf(partner)).toBe(50_000 - 1_234);
    },
  );

  it('cancel racing execute on the two instances: exactly one wins, and the money follows the winner', async () => {
    const start = 1_000_000;
    const { partner, instances, token } = await onBoth(start);
    const transfers: TransferJson[] = [];
    for (let i = 0; i < 10; i += 1) transfers.push(await createTransfer(partner, { amountCents: 1_000 + i }));

    const races = await Promise.all(
      transfers.map(async (transfer, i) => {
        // Alternate which instance cancels and which executes.
        const [canceller, executor] = i % 2 === 0 ? [instances[0], instances[1]] : [instances[1], instances[0]];
        const [cancel, execute] = await Promise.all([
          canceller?.request('POST', `/v1/transfer/${transfer.id}/cancel`, { token }),
          executor?.request('POST', `/v1/transfer/${transfer.id}/execute`, { token }),
        ]);
        return { transfer, cancel: cancel?.status, execute: execute?.status };
      }),
    );
    let executed = 0;
    for (const race of races) {
      expect([race.cancel, race.execute].sort()).toEqual([200, 400]);
      const current = (await (
        await partner.request('GET', `/v1/transfer/${race.transfer.id}`, { token })
      ).json()) as TransferJson;
      if (race.execute === 200) {
        expect(current.status).toBe('PROCESSING');
        expect(current.cancelledAt).toBeNull();
        executed += race.transfer.amountCents;
      } else {
        expect(current.status).toBe('CANCELLED');
        expect(current.reviewedAt).toBeNull();
      }
    }
    expect(await balanceOf(partner)).toBe(start - executed);
  });

  it('different keys racing on both instances create one transfer each', async () => {
    const { partner, instances, token } = await onBoth(0);
    const keys = Array.from({ length: 20 }, () => randomUUID());
    const responses = await Promise.all(
      keys.map((key, i) =>
        instances[i % 2]?.request('POST', '/v1/transfer', {
          body: transferBody({ amountCents: 500 + i }),
          idempotencyKey: key,
          token,
        }),
      ),
    );
    expect(responses.map((response) => response?.status)).toEqual(keys.map(() => 200));
    const rows = await app.db
      .selectFrom('transfers')
      .select('idempotency_key')
      .where('client_id', '=', partner.clientId)
      .execute();
    expect(rows.map((row) => row.idempotency_key).sort()).toEqual([...keys].sort());
  });
});
