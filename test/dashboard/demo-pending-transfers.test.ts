import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomIds } from '../../server/clock-and-ids.js';
import { onboardDemoOrganization, type DemoOrganization } from '../../server/sandbox/first-run.js';
import {
  DEMO_PENDING_TRANSFERS,
  pendingAmountCents,
  type PendingTransferKind,
} from '../../server/sandbox/pending-transfers.js';
import { settleDueTransfers } from '../../server/settlement-worker.js';
import { getBalance } from '../../server/store/organizations.js';
import { getTransfer, listTransfers } from '../../server/store/transfers.js';
import { startTestApp, type TestApp } from '../../scripts/proof/app.js';
import { loginAs, type Operator } from '../http/dashboard-support.js';
import { expectError } from '../http/support.js';

// The demo organization a first start onboards (server/sandbox/first-run.ts) on the real app, with
// response validation on: it comes with PENDING transfers of each kind, once per database, and its
// operator decides them through the dashboard's API with the outcome each kind promises.

const BALANCE_CENTS = 50_000_000_00;
const NETWORK_DELAY_MS = 1_000;

let app: TestApp;
let demo: DemoOrganization;
let operator: Operator;

beforeAll(async () => {
  app = await startTestApp({ paymentNetworkDelayMs: NETWORK_DELAY_MS });
  const onboarded = await onboardDemoOrganization(
    app.db,
    { ids: randomIds, clock: app.clock },
    { balanceCents: BALANCE_CENTS },
  );
  if (onboarded === undefined) throw new Error('a fresh database gets the demo organization');
  demo = onboarded;
  operator = await loginAs(app.baseUrl, demo.onboarding.operator.operator.username, demo.onboarding.operator.password);
}, 120_000);

afterAll(async () => {
  await app?.close();
});

const idOf = (kind: PendingTransferKind): string => {
  const index = DEMO_PENDING_TRANSFERS.findIndex((spec) => spec.kind === kind);
  const transfer = demo.pendingTransfers[index];
  if (transfer === undefined) throw new Error(`no ${kind} transfer`);
  return transfer.id;
};

const statusOf = async (id: string): Promise<string | undefined> =>
  (await getTransfer(app.db, demo.onboarding.organizationId, id))?.status;

describe('the demo organization of a first start', () => {
  it('starts with one PENDING transfer of each kind, made by its API client, and a second start adds nothing', async () => {
    const stored = await listTransfers(app.db, demo.onboarding.organizationId, { status: 'PENDING', limit: 100 });
    expect(stored.map((transfer) => transfer.id).sort()).toEqual(
      demo.pendingTransfers.map((transfer) => transfer.id).sort(),
    );
    expect(stored).toHaveLength(DEMO_PENDING_TRANSFERS.length);
    expect(new Set(DEMO_PENDING_TRANSFERS.map((spec) => spec.kind))).toEqual(
      new Set(['covered', 'rejectedByNetwork', 'nearBalance', 'notCovered']),
    );
    for (const transfer of demo.pendingTransfers) {
      expect(transfer).toMatchObject({ status: 'PENDING', clientId: demo.onboarding.clientId, reviewedAt: null });
      expect(transfer.submissionDate).toBeLessThan(app.clock.now());
    }

    expect(
      await onboardDemoOrganization(app.db, { ids: randomIds, clock: app.clock }, { balanceCents: BALANCE_CENTS }),
    ).toBeUndefined();
    expect(await listTransfers(app.db, demo.onboarding.organizationId, { limit: 100 })).toHaveLength(
      DEMO_PENDING_TRANSFERS.length,
    );
  });

  it('amounts: two small ones, one leaving a fiftieth of the balance, one above it', () => {
    const amount = (kind: PendingTransferKind): number =>
      demo.pendingTransfers[DEMO_PENDING_TRANSFERS.findIndex((spec) => spec.kind === kind)]?.amountCents ?? Number.NaN;
    expect(amount('covered') + amount('rejectedByNetwork') + amount('nearBalance')).toBeLessThanOrEqual(BALANCE_CENTS);
    expect(BALANCE_CENTS - amount('nearBalance')).toBe(BALANCE_CENTS / 50);
    expect(amount('notCovered')).toBeGreaterThan(BALANCE_CENTS);
    expect(pendingAmountCents('notCovered', 99_999_999_999)).toBe(99_999_999_999);
  });

  it("the dashboard's list shows them first; the operator approves and rejects them with the outcome each kind promises", async () => {
    const list = await operator.request('GET', '/dashboard/api/transfer?status=PENDING');
    expect(list.status).toBe(200);
    const listed = ((await list.json()) as { transfers: { transfer: { id: string } }[] }).transfers.map(
      (entry) => entry.transfer.id,
    );
    expect(listed).toEqual(demo.pendingTransfers.map((transfer) => transfer.id));

    const approve = (kind: PendingTransferKind): Promise<Response> =>
      operator.request('POST', `/dashboard/api/transfer/${idOf(kind)}/approve`);
    for (const kind of ['covered', 'rejectedByNetwork', 'nearBalance'] as const) {
      const response = await approve(kind);
      expect(response.status, `${kind}: ${await response.clone().text()}`).toBe(200);
      expect(((await response.json()) as { transfer: { status: string } }).transfer.status).toBe('PROCESSING');
    }
    await expectError(await approve('notCovered'), 400, 'InsufficientFunds');
    expect(await statusOf(idOf('notCovered'))).toBe('PENDING');
    const rejected = await operator.request('POST', `/dashboard/api/transfer/${idOf('notCovered')}/reject`, {
      body: { reason: 'Above our balance' },
    });
    expect(rejected.status).toBe(200);

    app.clock.advance(NETWORK_DELAY_MS + 1);
    await settleDueTransfers(app.db, app.clock.now());
    expect(await statusOf(idOf('covered'))).toBe('SUCCEEDED');
    expect(await statusOf(idOf('rejectedByNetwork'))).toBe('FAILED');
    expect(await statusOf(idOf('nearBalance'))).toBe('SUCCEEDED');
    expect(await statusOf(idOf('notCovered'))).toBe('REJECTED');
    // The rejected amount came back; the others left.
    const spent = demo.pendingTransfers
      .filter((_, index) => ['covered', 'nearBalance'].includes(DEMO_PENDING_TRANSFERS[index]?.kind ?? ''))
      .reduce((sum, transfer) => sum + transfer.amountCents, 0);
    expect(await getBalance(app.db, demo.onboarding.organizationId)).toBe(BALANCE_CENTS - spent);
  });
});
