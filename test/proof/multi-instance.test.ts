import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onboardOrganization } from '../../server/onboarding.js';
import { randomIds, systemClock } from '../../server/clock-and-ids.js';
import { createTestDatabase, type TestDatabase } from '../../scripts/proof/database.js';
import { checkInvariants, waitForSettlement, type OrganizationStart } from '../../scripts/proof/invariants.js';
import {
  describeResponse,
  field,
  proofClient,
  transferBody,
  type ProofResponse,
  type ProofClient,
} from '../../scripts/proof/proof-client.js';
import { freePort, startServerProcess, type ServerProcess } from '../../scripts/proof/server-process.js';
import { dashboardFetch, loginAs, type Operator } from '../http/dashboard-support.js';

// Several instances on one PostgreSQL database (README, "Design"): real server
// processes (`node --import tsx server/main.ts`, as `npm start` runs), driven concurrently.
// Two separate processes, the second a node:cluster of two workers (WEB_CONCURRENCY=2), so one
// run covers both ways of running several instances: three workers, each serving requests and
// running its own settlement worker on the shared database.

const databaseUrl = process.env['DATABASE_URL'];
if (!databaseUrl) {
  console.info(
    'Several-instance proofs skipped: they need PostgreSQL (the embedded database belongs to one process); set DATABASE_URL=postgres://… to run them.',
  );
}

/** 100 ms: settlements happen while the clients still drive, so workers race the requests. */
const NETWORK_DELAY_MS = 100;
const DRAIN_START_CENTS = 1_000_000;
const DRAIN_AMOUNT_CENTS = 50_000;
const DRAIN_TRANSFERS = 40; // twice what the balance covers
const RACE_START_CENTS = 100_000_000;
const RACES = 30;
/** Transfers each decided four ways at once: dashboard approve and reject, partner execute and cancel. */
const DECISION_RACES = 24;
const SAME_KEYS = 8;
const REQUESTS_PER_KEY = 12;

async function untilResponded(send: () => Promise<ProofResponse>): Promise<ProofResponse> {
  // 409 means the first request with the key is still running: ask again.
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const received = await send();
    if (received.status !== 409) return received;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('still 409 after 200 attempts');
}

function spread<T>(count: number, make: (index: number) => Promise<T>): Promise<T[]> {
  return Promise.all(Array.from({ length: count }, (_, index) => make(index)));
}

describe.skipIf(!databaseUrl)('several instances on one PostgreSQL database', () => {
  describe('two server processes, the second a node:cluster of two workers', () => {
    const workersPerProcess = [1, 2];
    let database: TestDatabase;
    let servers: ServerProcess[] = [];
    let urls: string[] = [];
    let idem: ProofClient;
    let drain: ProofClient;
    let race: ProofClient;
    let decide: ProofClient;
    const starts: OrganizationStart[] = [];
    let lowestBalance = Number.POSITIVE_INFINITY;
    let sampling = true;
    let sampler: Promise<void> = Promise.resolve();

    beforeAll(async () => {
      database = await createTestDatabase();
      if (database.url === undefined) throw new Error('expected a PostgreSQL test database');
      const onboard = async (name: string, balanceCents: number): Promise<ProofClient> => {
        const credentials = await onboardOrganization(
          database.db,
          { ids: randomIds, clock: systemClock },
          { name, balanceCents },
        );
        starts.push({ id: credentials.organizationId, startCents: balanceCents });
        return proofClient(credentials, ['http://unset.invalid']);
      };
      const made = [
        await onboard('Same Key Ltd', 0),
        await onboard('Drain Ltd', DRAIN_START_CENTS),
        await onboard('Race Ltd', RACE_START_CENTS),
        // Less than the transfers it races would take if every approval won: funds are contested too.
        await onboard('Decision Race Ltd', 400_000),
      ];
      const url = database.url;
      servers = await Promise.all(
        workersPerProcess.map(async (workers, index) =>
          startServerProcess({
            name: `instance ${index + 1}`,
            port: await freePort(),
            databaseUrl: url,
            paymentNetworkDelayMs: NETWORK_DELAY_MS,
            workers,
          }),
        ),
      );
      await Promise.all(servers.map((server) => server.ready));
      urls = servers.map((server) => server.baseUrl);
      [idem, drain, race, decide] = made.map((client) => proofClient(client, urls)) as [
        ProofClient,
        ProofClient,
        ProofClient,
        ProofClient,
      ];

      // "Never negative", watched while everything runs (the check constraint is the last line of defence).
      const ids = starts.map((start) => start.id);
      sampler = (async () => {
        while (sampling) {
          const row = await database.db
            .selectFrom('organizations')
            .select((eb) => eb.fn.min('balance_cents').as('lowest'))
            .where('id', 'in', ids)
            .executeTakeFirstOrThrow();
          lowestBalance = Math.min(lowestBalance, Number(row.lowest));
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      })();
    }, 120_000);

    afterAll(async () => {
      sampling = false;
      await sampler.catch(() => {});
      await Promise.all(servers.map((server) => server.stop()));
      await database?.close();
    }, 60_000);

    const urlFor = (index: number): string => urls[index % urls.length] ?? '';

    it('same-key creates spread over the instances make exactly one transfer per key', async () => {
      const keys = Array.from({ length: SAME_KEYS }, (_, index) => `same-key-${index}-${Date.now()}`);
      const bodies = keys.map((_, index) => transferBody(10_000 + index, { serial: index }));
      const keyAt = (index: number): string => keys[index] ?? '';
      const bodyAt = (index: number): Record<string, unknown> => bodies[index] ?? {};
      const responses = await spread(SAME_KEYS * REQUESTS_PER_KEY, (index) => {
        const k = index % SAME_KEYS;
        return idem.send('POST', '/v1/transfer', { body: bodyAt(k), key: keyAt(k), baseUrl: urlFor(index) });
      });
      for (const received of responses) {
        expect([200, 409], describeResponse(received)).toContain(received.status);
        if (received.status === 409) expect(field(received, 'type')).toBe('DuplicateIdempotencyKey');
      }
      for (const [k, key] of keys.entries()) {
        const mine = responses.filter((_, index) => index % SAME_KEYS === k);
        const settled = mine.filter((received) => received.status === 200);
        // Ask again until every request has its response: the same transfer, replayed.
        for (let waiting = mine.length - settled.length; waiting > 0; waiting -= 1) {
          const retried = await untilResponded(() =>
            idem.send('POST', '/v1/transfer', { body: bodyAt(k), key, baseUrl: urlFor(k) }),
          );
          expect(retried.replayed, describeResponse(retried)).toBe(true);
          settled.push(retried);
        }
        expect(new Set(settled.map((received) => field(received, 'id'))).size, key).toBe(1);
        expect(
          mine.filter((received) => received.status === 200 && !received.replayed),
          key,
        ).toHaveLength(1);
        const stored = await database.db
          .selectFrom('transfers')
          .select('id')
          .where('client_id', '=', idem.clientId)
          .where('idempotency_key', '=', key)
          .execute();
        expect(stored.map((row) => row.id)).toEqual([field(settled[0] as ProofResponse, 'id')]);
      }
      // The same key with another body, on the other instance: 422, nothing created.
      const reused = await idem.send('POST', '/v1/transfer', {
        body: transferBody(99_999),
        key: keyAt(0),
        baseUrl: urlFor(1),
      });
      expect(reused.status, describeResponse(reused)).toBe(422);
      expect(field(reused, 'type')).toBe('DuplicateIdempotencyKey');
    });

    it('competing executes drain one balance exactly and never spend a cent twice', async () => {
      const created = await spread(DRAIN_TRANSFERS, (index) =>
        drain.send('POST', '/v1/transfer', {
          body: transferBody(DRAIN_AMOUNT_CENTS, { serial: index }),
          baseUrl: urlFor(index),
        }),
      );
      const ids = created.map((received) => {
        expect(received.status, describeResponse(received)).toBe(200);
        return String(field(received, 'id'));
      });
      const executed = await spread(ids.length, (index) =>
        drain.send('POST', `/v1/transfer/${ids[index]}/execute`, { baseUrl: urlFor(index + 1) }),
      );
      const won = executed.filter((received) => received.status === 200);
      const rejected = executed.filter(
        (received) => received.status === 400 && field(received, 'type') === 'InsufficientFunds',
      );
      expect(won.length + rejected.length, executed.map(describeResponse).join('\n')).toBe(executed.length);
      // Equal amounts and no failing accounts: exactly as many as the balance covers, to the cent.
      expect(won).toHaveLength(DRAIN_START_CENTS / DRAIN_AMOUNT_CENTS);
      const balance = await database.db
        .selectFrom('organizations')
        .select('balance_cents')
        .where('id', '=', drain.organizationId)
        .executeTakeFirstOrThrow();
      expect(balance.balance_cents).toBe(0);

      // One transfer executed from every instance at once, each attempt with its own key: one wins.
      const single = await race.send('POST', '/v1/transfer', { body: transferBody(12_345), baseUrl: urlFor(0) });
      const id = String(field(single, 'id'));
      const storm = await spread(10, (index) =>
        race.send('POST', `/v1/transfer/${id}/execute`, { baseUrl: urlFor(index) }),
      );
      expect(
        storm.filter((received) => received.status === 200),
        storm.map(describeResponse).join('\n'),
      ).toHaveLength(1);
      for (const received of storm.filter((candidate) => candidate.status !== 200)) {
        expect(received.status, describeResponse(received)).toBe(400);
        expect(field(received, 'type')).toBe('InvalidRequest');
      }
    });

    it('cancel racing execute on different instances: exactly one wins', async () => {
      const created = await spread(RACES, (index) =>
        race.send('POST', '/v1/transfer', {
          body: transferBody(20_000 + index, { serial: index, fails: index % 3 === 0 }),
          baseUrl: urlFor(index),
        }),
      );
      const ids = created.map((received) => String(field(received, 'id')));
      const outcomes = await spread(RACES, async (index) => {
        const [cancel, execute] = await Promise.all([
          race.send('POST', `/v1/transfer/${ids[index]}/cancel`, { baseUrl: urlFor(index) }),
          race.send('POST', `/v1/transfer/${ids[index]}/execute`, { baseUrl: urlFor(index + 1) }),
        ]);
        return { id: ids[index] ?? '', cancel, execute };
      });
      for (const { id, cancel, execute } of outcomes) {
        const winners = [cancel, execute].filter((received) => received.status === 200);
        expect(
          winners,
          `${id}: cancel ${describeResponse(cancel)} / execute ${describeResponse(execute)}`,
        ).toHaveLength(1);
        const loser = cancel.status === 200 ? execute : cancel;
        expect(loser.status, describeResponse(loser)).toBe(400);
        expect(field(loser, 'type')).toBe('InvalidRequest');
      }
      await waitForSettlement(database.db, [race.organizationId]);
      const rows = await database.db
        .selectFrom('transfers')
        .select(['id', 'status', 'account_number'])
        .where('id', 'in', ids)
        .execute();
      for (const { id, cancel } of outcomes) {
        const row = rows.find((candidate) => candidate.id === id);
        if (cancel.status === 200) expect(row?.status, id).toBe('CANCELLED');
        else expect(row?.status, id).toBe(row?.account_number.endsWith('0002') ? 'FAILED' : 'SUCCEEDED');
      }
    });

    it('dashboard approvals and rejections racing partner executes and cancels: exactly one decides each transfer', async () => {
      const operator: Operator = await loginAs(urlFor(0), decide.operator.operator.username, decide.operator.password);
      const created = await spread(DECISION_RACES, (index) =>
        decide.send('POST', '/v1/transfer', {
          body: transferBody(30_000 + index, { serial: index, fails: index % 4 === 0 }),
          baseUrl: urlFor(index),
        }),
      );
      const ids = created.map((received) => {
        expect(received.status, describeResponse(received)).toBe(200);
        return String(field(received, 'id'));
      });
      // The session and its CSRF token work on every instance: both live in the database.
      const dashboard = (index: number, path: string, body?: unknown): Promise<Response> =>
        dashboardFetch(urlFor(index), 'POST', path, {
          cookie: operator.cookie,
          csrfToken: operator.session.csrfToken,
          origin: urlFor(index),
          ...(body !== undefined ? { body } : {}),
        });
      const outcomes = await spread(DECISION_RACES, async (index) => {
        const id = ids[index] ?? '';
        const responded = async (
          response: Promise<Response>,
        ): Promise<{ status: number; body: Record<string, unknown> }> => {
          const done = await response;
          return { status: done.status, body: (await done.json()) as Record<string, unknown> };
        };
        const sends = [
          () => responded(dashboard(index, `/dashboard/api/transfer/${id}/approve`)),
          () => responded(dashboard(index + 1, `/dashboard/api/transfer/${id}/reject`, { reason: `race ${index}` })),
          () => decide.send('POST', `/v1/transfer/${id}/execute`, { baseUrl: urlFor(index + 2) }),
          () => decide.send('POST', `/v1/transfer/${id}/cancel`, { baseUrl: urlFor(index + 1) }),
        ] as const;
        // Each request goes first in a quarter of the races: every kind gets its chance to win.
        const started: Array<Promise<{ status: number; body: Record<string, unknown> }> | Promise<ProofResponse>> = [];
        for (let turn = 0; turn < sends.length; turn += 1) {
          const which = (index + turn) % sends.length;
          started[which] = (
            sends[which] as () => Promise<{ status: number; body: Record<string, unknown> }> | Promise<ProofResponse>
          )();
        }
        const [approve, reject, execute, cancel] = (await Promise.all(started)) as [
          { status: number; body: Record<string, unknown> },
          { status: number; body: Record<string, unknown> },
          ProofResponse,
          ProofResponse,
        ];
        return { id, approve, reject, execute, cancel };
      });
      const wins: Record<string, number> = { approve: 0, reject: 0, execute: 0, cancel: 0 };
      for (const { id, approve, reject, execute, cancel } of outcomes) {
        const responses = {
          approve: { status: approve.status, type: approve.body['type'] },
          reject: { status: reject.status, type: reject.body['type'] },
          execute: { status: execute.status, type: field(execute, 'type') },
          cancel: { status: cancel.status, type: field(cancel, 'type') },
        };
        const winners = Object.entries(responses).filter(([, received]) => received.status === 200);
        const story = `${id}: ${JSON.stringify(responses)}`;
        // One winner: an approval the balance cannot cover leaves the transfer PENDING for the others.
        expect(winners, story).toHaveLength(1);
        for (const [name] of winners) wins[name] = (wins[name] ?? 0) + 1;
        for (const [name, received] of Object.entries(responses).filter(([, candidate]) => candidate.status !== 200)) {
          expect(received.status, `${story} (${name})`).toBe(400);
          expect(['InvalidRequest', 'InsufficientFunds'], `${story} (${name})`).toContain(received.type);
        }
      }
      console.info(`decision races won by: ${JSON.stringify(wins)}`);
      const rows = await database.db
        .selectFrom('transfers')
        .select(['id', 'status', 'reviewed_by_operator_id', 'rejection_reason'])
        .where('id', 'in', ids)
        .execute();
      for (const { id, approve, reject } of outcomes) {
        const row = rows.find((candidate) => candidate.id === id);
        if (reject.status === 200)
          expect(row, id).toMatchObject({ status: 'REJECTED', reviewed_by_operator_id: operator.session.operator.id });
        if (approve.status === 200) expect(row?.reviewed_by_operator_id, id).toBe(operator.session.operator.id);
      }
      const report = await checkInvariants(
        database.db,
        starts.filter((start) => start.id === decide.organizationId),
      );
      expect(report.violations).toEqual([]);
    });

    it('settles every transfer exactly once across the workers, and the invariants hold', async () => {
      await waitForSettlement(
        database.db,
        starts.map((start) => start.id),
      );
      const report = await checkInvariants(database.db, starts);
      expect(report.violations).toEqual([]);
      expect(report.byStatus.PROCESSING).toBe(0);
      expect(lowestBalance).toBeGreaterThanOrEqual(0);

      // Every settlement a worker logged, against the rows that reached an outcome: a transfer
      // settled twice would be counted twice (and, if FAILED, refunded twice: the balance check above).
      const outcomes = report.byStatus.SUCCEEDED + report.byStatus.FAILED;
      const logged = (): number =>
        servers.reduce(
          (total, server) => total + [...server.log.settledByPid.values()].reduce((sum, count) => sum + count, 0),
          0,
        );
      const deadline = Date.now() + 10_000;
      while (logged() < outcomes && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      await new Promise((resolve) => setTimeout(resolve, 300)); // a double settlement would show up now
      const [{ settled } = { settled: 0 }] = (
        await sql<{
          settled: number;
        }>`select count(*)::int as settled from transfers where settled_at is not null`.execute(database.db)
      ).rows;
      expect(settled).toBe(outcomes);
      expect(logged()).toBe(outcomes);

      const settledBy = servers.flatMap((server) =>
        [...server.log.settledByPid.entries()].map(([pid, count]) => `${server.name} pid ${pid}: ${count}`),
      );
      const servedBy = servers.flatMap((server) =>
        [...server.log.requestsByPid.entries()].map(([pid, count]) => `pid ${pid}: ${count}`),
      );
      console.info(
        `settlements by worker: ${settledBy.join(', ')}; requests by worker: ${servedBy.join(', ')}; failed ${report.byStatus.FAILED}, succeeded ${report.byStatus.SUCCEEDED}`,
      );
      // Every worker served requests (a cluster's primary hands connections out in turn).
      for (const server of servers) {
        expect(server.log.listening.size).toBe(workersPerProcess[servers.indexOf(server)]);
        for (const pid of server.log.listening)
          expect(server.log.requestsByPid.get(pid) ?? 0, `${server.name} pid ${pid}`).toBeGreaterThan(0);
      }
      for (const server of servers) expect(server.log.errors, server.log.errors.join('\n')).toEqual([]);
    });
  });
});
