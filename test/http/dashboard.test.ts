import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disableOperatorNamed } from '../../server/operators.js';
import { seedSandboxData } from '../../server/sandbox/demo-organization.js';
import { getBalance } from '../../server/store/organizations.js';
import { startTestApp, type Partner, type TestApp } from '../../scripts/proof/app.js';
import { addOperatorAndLogin, dashboardFetch, login, loginFirstOperator, type Operator } from './dashboard-support.js';
import { createTransfer, expectError, expectNoLeak, transferAction, type TransferJson } from './support.js';

// The dashboard's API (openapi/dashboard/dashboard.yaml) served by the real app, with response
// validation on, beside the partner API on the same database: sessions and their cookie, the
// checks in the document's order (Origin, session, CSRF, role), the wall between organizations,
// and each operation against what the partner API then shows.

interface DashboardTransferJson {
  transfer: TransferJson;
  review: null | {
    decision: string;
    decidedAt: number;
    operator: null | { id: string; username: string };
    reason?: string;
  };
}

let app: TestApp;
let partner: Partner;
let other: Partner;
let approver: Operator;
let viewer: Operator;
let outsider: Operator;

beforeAll(async () => {
  app = await startTestApp();
  partner = await app.onboard({ name: 'Nile Delta Trading', balanceCents: 1_000_000_00 });
  other = await app.onboard({ name: 'Other Org', balanceCents: 1_000_000_00 });
  await seedSandboxData(app.db, { organizationId: partner.organizationId, now: app.clock.now(), seed: 7 });
  await seedSandboxData(app.db, { organizationId: other.organizationId, now: app.clock.now(), seed: 8 });
  approver = await loginFirstOperator(app, partner);
  viewer = await addOperatorAndLogin(app, partner, 'viewer', 'karim.nabil');
  outsider = await loginFirstOperator(app, other);
}, 120_000);
afterAll(async () => {
  await app?.close();
});

const balanceOf = async (who: Partner): Promise<number> => (await getBalance(app.db, who.organizationId)) ?? Number.NaN;

async function okJson<T>(response: Response, status = 200): Promise<T> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return JSON.parse(text) as T;
}

async function partnerTransfer(id: string): Promise<TransferJson> {
  return okJson<TransferJson>(await partner.request('GET', `/v1/transfer/${id}`));
}

describe('sessions', () => {
  it('login sets the session cookie with its attributes and responds with the session; only the hash is stored', async () => {
    const response = await login(
      app.baseUrl,
      partner.operator.operator.username.toUpperCase(),
      partner.operator.password,
    );
    const text = await response.text();
    expect(response.status, text).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const cookies = response.headers.getSetCookie();
    expect(cookies).toHaveLength(1);
    const [pair, ...attributes] = (cookies[0] ?? '').split('; ');
    expect(pair).toMatch(/^dashboard_session=[A-Za-z0-9_-]{43}$/);
    expect(attributes.sort()).toEqual(['HttpOnly', 'Max-Age=28800', 'Path=/dashboard', 'SameSite=Strict']);
    const session = JSON.parse(text) as {
      operator: unknown;
      organization: unknown;
      csrfToken: string;
      expiresAt: number;
    };
    expect(session).toEqual({
      operator: { id: partner.operator.operator.id, username: partner.operator.operator.username, role: 'approver' },
      organization: { id: partner.organizationId, name: 'Nile Delta Trading' },
      csrfToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      expiresAt: app.clock.now() + 8 * 60 * 60 * 1000,
    });
    const token = (pair ?? '').slice('dashboard_session='.length);
    const stored = await app.db.selectFrom('operator_sessions').select('token_hash').execute();
    expect(stored.map((row) => row.token_hash)).toContain(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(stored)).not.toContain(token);
    expect(text).not.toContain(token);
  });

  it('the session reads back with the same CSRF token; logout clears the cookie, and the same cookie is then 401', async () => {
    const operator = await loginFirstOperator(app, partner);
    const read = await okJson<{ csrfToken: string }>(await operator.request('GET', '/dashboard/api/session'));
    expect(read.csrfToken).toBe(operator.session.csrfToken);
    const out = await operator.request('DELETE', '/dashboard/api/session');
    expect(out.status, await out.text()).toBe(204);
    expect(out.headers.getSetCookie()[0]).toBe(
      'dashboard_session=; Path=/dashboard; Max-Age=0; HttpOnly; SameSite=Strict',
    );
    await expectError(await operator.request('GET', '/dashboard/api/session'), 401, 'Unauthorized');
    await expectError(await operator.request('GET', '/dashboard/api/transfer'), 401, 'Unauthorized');
    await expectError(await operator.request('DELETE', '/dashboard/api/session'), 401, 'Unauthorized');
  });

  it('no cookie, or a made-up one, is 401', async () => {
    await expectError(await dashboardFetch(app.baseUrl, 'GET', '/dashboard/api/balance'), 401, 'Unauthorized');
    await expectError(
      await viewer.request('GET', '/dashboard/api/balance', { cookie: `dashboard_session=${'A'.repeat(43)}` }),
      401,
      'Unauthorized',
    );
    await expectError(
      await viewer.request('GET', '/dashboard/api/balance', { cookie: 'dashboard_session=short' }),
      401,
      'Unauthorized',
    );
  });

  it('a login from a browser holding a session ends that session', async () => {
    const first = await loginFirstOperator(app, partner);
    const again = await login(app.baseUrl, partner.operator.operator.username, partner.operator.password, first.cookie);
    expect(again.status).toBe(200);
    const second = (again.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
    expect(second).not.toBe(first.cookie);
    await expectError(await first.request('GET', '/dashboard/api/session'), 401, 'Unauthorized');
    expect((await dashboardFetch(app.baseUrl, 'GET', '/dashboard/api/session', { cookie: second })).status).toBe(200);
  });

  it('a wrong password and an unknown username get the same 401', async () => {
    const wrong = await expectError(
      await login(app.baseUrl, partner.operator.operator.username, 'not-the-password'),
      401,
      'Unauthorized',
    );
    const unknown = await expectError(await login(app.baseUrl, 'nobody.here', 'not-the-password'), 401, 'Unauthorized');
    expect(unknown).toEqual(wrong);
  });

  it('a disabled operator cannot log in, and their sessions end', async () => {
    const gone = await addOperatorAndLogin(app, partner, 'viewer', 'leaving.soon');
    await disableOperatorNamed(app.db, app.clock, 'leaving.soon');
    await expectError(await gone.request('GET', '/dashboard/api/session'), 401, 'Unauthorized');
  });

  it('the 11th failed login within a minute is 429 with Retry-After, even with the right password; a minute later it works', async () => {
    const target = await addOperatorAndLogin(app, partner, 'viewer', 'rate.limited');
    const added = await app.db
      .selectFrom('operators')
      .select('id')
      .where('username', '=', 'rate.limited')
      .executeTakeFirstOrThrow();
    expect(added.id).toBe(target.session.operator.id);
    for (let i = 0; i < 10; i += 1)
      await expectError(await login(app.baseUrl, 'rate.limited', `wrong-${i}`), 401, 'Unauthorized');
    const locked = await login(app.baseUrl, 'Rate.Limited', 'wrong-again');
    await expectError(locked, 429, 'InvalidRequest');
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(locked.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    app.clock.advance(61_000);
    await expectError(await login(app.baseUrl, 'rate.limited', 'wrong-once-more'), 401, 'Unauthorized');
  }, 60_000);
});

describe('the checks, in the order of the document', () => {
  it("a viewer reads everything but a viewer's approve is 403, and the transfer stays PENDING", async () => {
    const created = await createTransfer(partner);
    for (const path of [
      '/dashboard/api/transfer',
      `/dashboard/api/transfer/${created.id}`,
      '/dashboard/api/card',
      '/dashboard/api/transaction',
      '/dashboard/api/balance',
      '/dashboard/api/client',
    ]) {
      expect((await viewer.request('GET', path)).status, path).toBe(200);
    }
    const body = await expectError(
      await viewer.request('POST', `/dashboard/api/transfer/${created.id}/approve`),
      403,
      'Unauthorized',
    );
    expect(body.message).toMatch(/viewer/);
    await expectError(
      await viewer.request('POST', `/dashboard/api/transfer/${created.id}/reject`, { body: { reason: 'no' } }),
      403,
      'Unauthorized',
    );
    expect((await partnerTransfer(created.id)).status).toBe('PENDING');
  });

  it('a write without the X-CSRF-Token, or with another one, is 403 and changes nothing', async () => {
    const created = await createTransfer(partner);
    const before = await balanceOf(partner);
    const missing = await expectError(
      await approver.request('POST', `/dashboard/api/transfer/${created.id}/approve`, { csrfToken: null }),
      403,
      'Unauthorized',
    );
    expect(missing.message).toMatch(/X-CSRF-Token/);
    await expectError(
      await approver.request('POST', `/dashboard/api/transfer/${created.id}/approve`, {
        csrfToken: viewer.session.csrfToken,
      }),
      403,
      'Unauthorized',
    );
    await expectError(
      await approver.request('POST', `/dashboard/api/transfer/${created.id}/approve`, { csrfToken: 'x'.repeat(43) }),
      403,
      'Unauthorized',
    );
    await expectError(
      await approver.request('DELETE', '/dashboard/api/session', { csrfToken: null }),
      403,
      'Unauthorized',
    );
    expect((await partnerTransfer(created.id)).status).toBe('PENDING');
    expect(await balanceOf(partner)).toBe(before);
    expect((await approver.request('GET', '/dashboard/api/session')).status).toBe(200);
  });

  it('a request from another origin is 403, login included; the same origin passes', async () => {
    const created = await createTransfer(partner);
    const foreign = { origin: 'https://attacker.example' };
    await expectError(
      await approver.request('POST', `/dashboard/api/transfer/${created.id}/approve`, foreign),
      403,
      'Unauthorized',
    );
    await expectError(await approver.request('GET', '/dashboard/api/transfer', foreign), 403, 'Unauthorized');
    await expectError(
      await approver.request('GET', '/dashboard/api/transfer', { origin: 'null' }),
      403,
      'Unauthorized',
    );
    await expectError(
      await dashboardFetch(app.baseUrl, 'POST', '/dashboard/api/session', {
        body: { username: 'x.y.z', password: 'p' },
        ...foreign,
      }),
      403,
      'Unauthorized',
    );
    expect((await partnerTransfer(created.id)).status).toBe('PENDING');
    expect((await approver.request('GET', '/dashboard/api/transfer', { origin: app.baseUrl })).status).toBe(200);
  });

  it('the session comes before validation: no cookie and a bad body is 401; a viewer and a bad body is 403', async () => {
    await expectError(
      await dashboardFetch(app.baseUrl, 'POST', '/dashboard/api/transfer/trf_x/reject', { body: { nope: 1 } }),
      401,
      'Unauthorized',
    );
    await expectError(
      await viewer.request('POST', '/dashboard/api/transfer/trf_x/reject', { body: { nope: 1 } }),
      403,
      'Unauthorized',
    );
    await expectError(
      await approver.request('POST', '/dashboard/api/transfer/trf_x/reject', { body: { nope: 1 } }),
      400,
      'InvalidRequest',
    );
    await expectError(
      await approver.request('POST', '/dashboard/api/transfer/trf_x/reject', {
        body: { reason: 'r' },
        contentType: 'text/plain',
      }),
      415,
      'InvalidRequest',
    );
  });

  it("another organization's transfer and card are 404, and nothing changes", async () => {
    const theirs = await createTransfer(other);
    const card = await app.db
      .selectFrom('cards')
      .select('id')
      .where('organization_id', '=', other.organizationId)
      .executeTakeFirstOrThrow();
    const unknownId = 'trf_00000000000000000000000000';
    const unknown = await expectError(
      await approver.request('GET', `/dashboard/api/transfer/${unknownId}`),
      404,
      'NotFound',
    );
    const foreign = await expectError(
      await approver.request('GET', `/dashboard/api/transfer/${theirs.id}`),
      404,
      'NotFound',
    );
    // The same response, the id asked for aside: nothing tells an existing id of another organization from none.
    expect({ ...foreign, message: foreign.message.replace(theirs.id, unknownId) }).toEqual(unknown);
    expect(
      (await okJson<DashboardTransferJson>(await outsider.request('GET', `/dashboard/api/transfer/${theirs.id}`)))
        .transfer.id,
    ).toBe(theirs.id);
    await expectError(await approver.request('POST', `/dashboard/api/transfer/${theirs.id}/approve`), 404, 'NotFound');
    await expectError(
      await approver.request('POST', `/dashboard/api/transfer/${theirs.id}/reject`, { body: { reason: 'not mine' } }),
      404,
      'NotFound',
    );
    const mergePatch = 'application/merge-patch+json';
    const whole = { body: { daily: 1, monthly: 1, atm: 1 }, contentType: mergePatch };
    await expectError(await approver.request('PUT', `/dashboard/api/card/${card.id}/limits`, whole), 404, 'NotFound');
    await expectError(
      await approver.request('PATCH', `/dashboard/api/card/${card.id}/limits`, {
        body: { daily: 1 },
        contentType: mergePatch,
      }),
      404,
      'NotFound',
    );
    const unchanged = await app.db
      .selectFrom('cards')
      .select('daily_limit')
      .where('id', '=', card.id)
      .executeTakeFirstOrThrow();
    expect(unchanged.daily_limit).not.toBe(1);
    expect((await okJson<TransferJson>(await other.request('GET', `/v1/transfer/${theirs.id}`))).status).toBe(
      'PENDING',
    );
    const listed = await okJson<{ transfers: DashboardTransferJson[] }>(
      await approver.request('GET', '/dashboard/api/transfer?limit=100'),
    );
    expect(listed.transfers.map((entry) => entry.transfer.id)).not.toContain(theirs.id);
  });

  it('paths under /dashboard/api the document lacks are 404, other methods 405; the partner API responds as before', async () => {
    await expectError(await approver.request('GET', '/dashboard/api/nothing'), 404, 'NotFound');
    await expectError(await approver.request('GET', '/dashboard/api'), 404, 'NotFound');
    await expectError(await approver.request('GET', '/Dashboard/api/session'), 404, 'NotFound');
    const put = await approver.request('PUT', '/dashboard/api/session');
    await expectError(put, 405, 'InvalidRequest');
    expect(put.headers.get('allow')).toMatch(/GET/);
    await expectError(await dashboardFetch(app.baseUrl, 'GET', '/dashboard'), 404, 'NotFound');
    await expectError(await partner.request('GET', '/v1/nothing'), 404, 'NotFound');
    await expectError(await partner.request('PUT', '/v1/bank', { signed: false }), 405, 'InvalidRequest');
    // A partner token is no dashboard session.
    await expectError(await partner.request('GET', '/dashboard/api/transfer'), 401, 'Unauthorized');
  });
});

describe('transfers', () => {
  it('approve: PROCESSING, the amount reserved, the review names the operator; the partner API shows PROCESSING', async () => {
    const created = await createTransfer(partner, { amountCents: 12_345 });
    const before = await balanceOf(partner);
    const approved = await okJson<DashboardTransferJson>(
      await approver.request('POST', `/dashboard/api/transfer/${created.id}/approve`),
    );
    expect(approved.transfer).toEqual({ ...created, status: 'PROCESSING', reviewedAt: app.clock.now() });
    expect(approved.review).toEqual({
      decision: 'APPROVED',
      decidedAt: app.clock.now(),
      operator: { id: approver.session.operator.id, username: approver.username },
    });
    expect(await balanceOf(partner)).toBe(before - 12_345);
    expect(await partnerTransfer(created.id)).toEqual(approved.transfer);
    const again = await expectError(
      await approver.request('POST', `/dashboard/api/transfer/${created.id}/approve`),
      400,
      'InvalidRequest',
    );
    expect(again.message).toMatch(/PROCESSING/);
    await expectError(
      await approver.request('POST', `/dashboard/api/transfer/${created.id}/reject`, { body: { reason: 'late' } }),
      400,
      'InvalidRequest',
    );
    expect(await balanceOf(partner)).toBe(before - 12_345);
  });

  it('reject: REJECTED with the reason, nothing reserved; the partner API shows REJECTED', async () => {
    const created = await createTransfer(partner, { amountCents: 5_000 });
    const before = await balanceOf(partner);
    const reason = 'No purchase order for this payment.';
    const rejected = await okJson<DashboardTransferJson>(
      await approver.request('POST', `/dashboard/api/transfer/${created.id}/reject`, { body: { reason } }),
    );
    expect(rejected.transfer).toEqual({ ...created, status: 'REJECTED', reviewedAt: app.clock.now() });
    expect(rejected.review).toEqual({
      decision: 'REJECTED',
      decidedAt: app.clock.now(),
      operator: { id: approver.session.operator.id, username: approver.username },
      reason,
    });
    expect(await balanceOf(partner)).toBe(before);
    expect((await partnerTransfer(created.id)).status).toBe('REJECTED');
    await expectError(await transferAction(partner, created.id, 'execute'), 400, 'InvalidRequest');
    await expectError(
      await approver.request('POST', `/dashboard/api/transfer/${created.id}/approve`),
      400,
      'InvalidRequest',
    );
  });

  it('a cancelled transfer cannot be decided; an executed one shows an approval by no operator', async () => {
    const cancelled = await createTransfer(partner);
    expect((await transferAction(partner, cancelled.id, 'cancel')).status).toBe(200);
    await expectError(
      await approver.request('POST', `/dashboard/api/transfer/${cancelled.id}/approve`),
      400,
      'InvalidRequest',
    );
    await expectError(
      await approver.request('POST', `/dashboard/api/transfer/${cancelled.id}/reject`, { body: { reason: 'x' } }),
      400,
      'InvalidRequest',
    );
    const executed = await createTransfer(partner);
    expect((await transferAction(partner, executed.id, 'execute')).status).toBe(200);
    const page = await okJson<{ transfers: DashboardTransferJson[] }>(
      await viewer.request('GET', '/dashboard/api/transfer?status=PROCESSING&limit=100'),
    );
    expect(page.transfers.find((entry) => entry.transfer.id === executed.id)?.review).toEqual({
      decision: 'APPROVED',
      decidedAt: app.clock.now(),
      operator: null,
    });
    const cancelledPage = await okJson<{ transfers: DashboardTransferJson[] }>(
      await viewer.request('GET', '/dashboard/api/transfer?status=CANCELLED'),
    );
    expect(cancelledPage.transfers.find((entry) => entry.transfer.id === cancelled.id)?.review).toBeNull();
  });

  it('get: one transfer with its review, as the list gives it, through PENDING, an approval and a rejection', async () => {
    const read = async (who: Operator, id: string): Promise<DashboardTransferJson> =>
      okJson<DashboardTransferJson>(await who.request('GET', `/dashboard/api/transfer/${id}`));
    const listed = async (entry: DashboardTransferJson): Promise<DashboardTransferJson | undefined> => {
      const amount = entry.transfer.amountCents;
      const page = await okJson<{ transfers: DashboardTransferJson[] }>(
        await viewer.request('GET', `/dashboard/api/transfer?minAmountCents=${amount}&maxAmountCents=${amount}`),
      );
      return page.transfers.find((candidate) => candidate.transfer.id === entry.transfer.id);
    };

    const created = await createTransfer(partner, { amountCents: 23_456 });
    expect(await read(viewer, created.id)).toEqual({ transfer: created, review: null });

    const approved = await okJson<DashboardTransferJson>(
      await approver.request('POST', `/dashboard/api/transfer/${created.id}/approve`),
    );
    // The approver reads their own decision; the viewer another operator's: both name the approver.
    expect(await read(approver, created.id)).toEqual(approved);
    expect(await read(viewer, created.id)).toEqual(approved);
    expect(approved.review?.operator?.username).toBe(approver.username);
    expect(await listed(approved)).toEqual(approved);

    const executed = await createTransfer(partner);
    expect((await transferAction(partner, executed.id, 'execute')).status).toBe(200);
    expect((await read(viewer, executed.id)).review).toEqual({
      decision: 'APPROVED',
      decidedAt: app.clock.now(),
      operator: null,
    });

    const toReject = await createTransfer(partner);
    const rejected = await okJson<DashboardTransferJson>(
      await approver.request('POST', `/dashboard/api/transfer/${toReject.id}/reject`, {
        body: { reason: 'Duplicate of an earlier payment.' },
      }),
    );
    expect(await read(viewer, toReject.id)).toEqual(rejected);

    await expectError(
      await dashboardFetch(app.baseUrl, 'GET', `/dashboard/api/transfer/${created.id}`),
      401,
      'Unauthorized',
    );
    await expectError(await viewer.request('GET', '/dashboard/api/transfer/not%20an%20id'), 400, 'InvalidRequest');
    await expectError(
      await viewer.request('GET', `/dashboard/api/transfer/${created.id}?expand=review`),
      400,
      'InvalidRequest',
    );
  });

  it('approve with too little balance is 400 InsufficientFunds and the transfer stays PENDING', async () => {
    const poor = await app.onboard({ name: 'Small Balance', balanceCents: 1_000 });
    const operator = await loginFirstOperator(app, poor);
    const created = await createTransfer(poor, { amountCents: 1_001 });
    const body = await expectError(
      await operator.request('POST', `/dashboard/api/transfer/${created.id}/approve`),
      400,
      'InsufficientFunds',
    );
    expect(body.details).toBe('balanceCents: 1000, amountCents: 1001');
    expect((await okJson<TransferJson>(await poor.request('GET', `/v1/transfer/${created.id}`))).status).toBe(
      'PENDING',
    );
    expect(await balanceOf(poor)).toBe(1_000);
  });

  it('lists pending first, each group newest first, in keyset pages that skip and repeat nothing; the filters of the partner API apply', async () => {
    const lister = await app.onboard({ name: 'Lister' });
    const operator = await loginFirstOperator(app, lister);
    const ids: string[] = [];
    for (let i = 0; i < 7; i += 1) {
      app.clock.advance(1_000);
      ids.push((await createTransfer(lister, { amountCents: 1_000 + i })).id);
    }
    // Oldest two decided: they go after every pending one, whatever their dates.
    expect((await transferAction(lister, ids[0] ?? '', 'cancel')).status).toBe(200);
    expect((await transferAction(lister, ids[1] ?? '', 'execute')).status).toBe(200);
    const seen: DashboardTransferJson[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 10; pages += 1) {
      const query = `?limit=2${cursor !== undefined ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page = await okJson<{ transfers: DashboardTransferJson[]; nextCursor?: string }>(
        await operator.request('GET', `/dashboard/api/transfer${query}`),
      );
      seen.push(...page.transfers);
      cursor = page.nextCursor;
      if (cursor === undefined) break;
    }
    expect(seen.map((entry) => entry.transfer.id)).toEqual([ids[6], ids[5], ids[4], ids[3], ids[2], ids[1], ids[0]]);
    const filtered = await okJson<{ transfers: DashboardTransferJson[] }>(
      await operator.request('GET', '/dashboard/api/transfer?minAmountCents=1003&maxAmountCents=1004'),
    );
    expect(filtered.transfers.map((entry) => entry.transfer.id)).toEqual([ids[4], ids[3]]);
    await expectError(
      await operator.request('GET', '/dashboard/api/transfer?minAmountCents=5&maxAmountCents=4'),
      400,
      'InvalidRequest',
    );
    // A cursor of the partner API's list (another order) is not one of this list.
    const partnerPage = await okJson<{ nextCursor: string }>(await lister.request('GET', '/v1/transfer?limit=2'));
    await expectError(
      await operator.request(
        'GET',
        `/dashboard/api/transfer?limit=2&cursor=${encodeURIComponent(partnerPage.nextCursor)}`,
      ),
      400,
      'InvalidRequest',
    );
  });
});

describe('cards, the ledger, the balance and the clients', () => {
  it("setting and adjusting a card's limits: the partner API's GET card responds with the new limits", async () => {
    const card = await app.db
      .selectFrom('cards')
      .select('id')
      .where('organization_id', '=', partner.organizationId)
      .where('approval_based_limit', 'is', null)
      .executeTakeFirstOrThrow();
    const mergePatch = 'application/merge-patch+json';
    const put = await okJson<{ limits: unknown }>(
      await approver.request('PUT', `/dashboard/api/card/${card.id}/limits`, {
        body: { daily: 400_000, monthly: 1_500_000, atm: 200_000 },
        contentType: mergePatch,
      }),
    );
    expect(put.limits).toEqual({ daily: 400_000, monthly: 1_500_000, atm: 200_000, approvalBased: null });
    const patched = await okJson<{ limits: unknown }>(
      await approver.request('PATCH', `/dashboard/api/card/${card.id}/limits`, {
        body: { daily: 100_000, atm: -50_000 },
        contentType: mergePatch,
      }),
    );
    expect(patched.limits).toEqual({ daily: 500_000, monthly: 1_500_000, atm: 150_000, approvalBased: null });
    const seen = await okJson<{ limits: unknown }>(await partner.request('GET', `/v1/card/${card.id}`));
    expect(seen).toEqual(patched);
    await expectError(
      await approver.request('PATCH', `/dashboard/api/card/${card.id}/limits`, {
        body: { daily: -600_000 },
        contentType: mergePatch,
      }),
      400,
      'InvalidRequest',
    );
    await expectError(
      await approver.request('PUT', `/dashboard/api/card/${card.id}/limits`, {
        body: { daily: 1, monthly: 1, atm: 1, approvalBased: 5 },
        contentType: mergePatch,
      }),
      400,
      'InvalidRequest',
    );
    await expectError(
      await approver.request('PUT', `/dashboard/api/card/${card.id}/limits`, { body: { daily: 1 } }),
      415,
      'InvalidRequest',
    );
    expect(await okJson<{ limits: unknown }>(await partner.request('GET', `/v1/card/${card.id}`))).toEqual(patched);
  });

  it('cards list in pages, as the partner API lists them', async () => {
    const dashboard = await okJson<unknown>(await viewer.request('GET', '/dashboard/api/card?limit=5'));
    const api = await okJson<{ nextCursor: string }>(await partner.request('GET', '/v1/card?limit=5'));
    expect(dashboard).toEqual(api);
  });

  it('the ledger pages with keyset cursors and the partner API filters, every record once', async () => {
    const total = await app.db
      .selectFrom('transactions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('organization_id', '=', partner.organizationId)
      .executeTakeFirstOrThrow();
    const seen = new Set<string>();
    let cursor: string | undefined;
    let pages = 0;
    do {
      const query = `?limit=100${cursor !== undefined ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page = await okJson<{ transactions: Array<{ id: string }>; nextCursor?: string }>(
        await viewer.request('GET', `/dashboard/api/transaction${query}`),
      );
      for (const transaction of page.transactions) seen.add(transaction.id);
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor !== undefined && pages < 50);
    expect(seen.size).toBe(Number(total.n));
    const filter = '?statuses=SUCCEEDED,DECLINED&categories=TRAVEL,FOOD_BEVERAGE&limit=7';
    const dashboard = await okJson<unknown>(await viewer.request('GET', `/dashboard/api/transaction${filter}`));
    expect(dashboard).toEqual(await okJson<unknown>(await partner.request('GET', `/v1/transaction${filter}`)));
    await expectError(
      await viewer.request('GET', '/dashboard/api/transaction?statuses=SUCCEEDED,NOPE'),
      400,
      'InvalidRequest',
    );
    await expectError(
      await viewer.request('GET', '/dashboard/api/transaction?fromDate=10&toDate=5'),
      400,
      'InvalidRequest',
    );
  });

  it('the balance: available, processing and pending, read at one moment', async () => {
    const org = await app.onboard({ name: 'Balance Org', balanceCents: 100_000 });
    const operator = await loginFirstOperator(app, org);
    const first = await createTransfer(org, { amountCents: 30_000 });
    await createTransfer(org, { amountCents: 20_000 });
    expect((await operator.request('POST', `/dashboard/api/transfer/${first.id}/approve`)).status).toBe(200);
    expect(await okJson<unknown>(await operator.request('GET', '/dashboard/api/balance'))).toEqual({
      currency: 'EGP',
      availableCents: 70_000,
      processingCents: 30_000,
      pendingCents: 20_000,
    });
  });

  it('the API clients: ids, scopes, creation and key counts, never a secret', async () => {
    const response = await viewer.request('GET', '/dashboard/api/client');
    const text = await response.text();
    expect(response.status, text).toBe(200);
    expect(JSON.parse(text)).toEqual({
      clients: [
        { clientId: partner.clientId, scopes: [...partner.scopes], createdAt: expect.any(Number), activePublicKeys: 1 },
      ],
    });
    expect(text).not.toContain(partner.clientSecret);
    expectNoLeak(text);
    expect(text).not.toMatch(/BEGIN|secret|hash/i);
  });
});

describe('outsiders', () => {
  it("another organization's operator sees only their own", async () => {
    const listed = await okJson<{ clients: Array<{ clientId: string }> }>(
      await outsider.request('GET', '/dashboard/api/client'),
    );
    expect(listed.clients.map((client) => client.clientId)).toEqual([other.clientId]);
    const session = await okJson<{ organization: { id: string } }>(
      await outsider.request('GET', '/dashboard/api/session'),
    );
    expect(session.organization.id).toBe(other.organizationId);
  });
});
