import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../scripts/proof/app.js';
import { checkInvariants, processingCount } from '../../scripts/proof/invariants.js';
import { seedFrom } from '../../scripts/proof/seed.js';
import { runCheck } from 'contract-first/check';
import { settleDueTransfers } from '../../server/settlement-worker.js';
import { partnerAuth } from '../check/partner-auth.js';

// The toolkit's contract checker (`npm run check`, contract-first/check) against this service,
// as a partner's integration would meet it: requests generated from openapi/openapi.yaml, signed and
// authorized through the SDK (test/check/partner-auth.ts), on PostgreSQL when DATABASE_URL is set,
// else on the embedded database. No finding is allowed, and the funds invariants hold afterwards.
// CHECK_CASES valid requests per operation (default 20; as many invalid ones); the long run:
// CHECK_CASES=800 CHECK_SEED=N npx vitest run test/proof/check.test.ts (some 10,000 valid cases).

const cases = Number(process.env['CHECK_CASES'] ?? 20);
const seed = seedFrom(process.env['CHECK_SEED']);
const START_CENTS = 5_000_000_00;
const NETWORK_DELAY_MS = 50;

describe('the contract checker against the service', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ paymentNetworkDelayMs: NETWORK_DELAY_MS });
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });

  it(`finds nothing in ${cases} cases per operation (seed ${seed}), and the money adds up afterwards`, async () => {
    const partner = await app.onboard({ name: 'Checked Ltd', balanceCents: START_CENTS });
    const { clientId, clientSecret, privateKeyPem } = partner;
    if (privateKeyPem === undefined) throw new Error('onboarding made no key pair');
    const report = await runCheck({
      input: 'openapi/openapi.yaml',
      baseUrl: app.baseUrl,
      cases,
      seed,
      timeoutMs: 30_000,
      auth: partnerAuth({ baseUrl: app.baseUrl, clientId, clientSecret, privateKeyPem, now: () => app.clock.now() }),
    });
    console.info(
      `check (seed ${seed}): ${report.operations} operations, ${report.requests} requests in ${Math.round(report.durationMs / 1000)} s; ` +
        `p99 ${report.timings.p99Ms} ms; replay with CHECK_SEED=${seed} CHECK_CASES=${cases}`,
    );
    expect(
      report.findings.map((finding) => `${finding.kind} ${finding.operation}: ${finding.message}\n  ${finding.curl}`),
    ).toEqual([]);
    expect(report.operations).toBeGreaterThanOrEqual(13);
    expect(report.requests).toBeGreaterThan(report.operations * cases);

    // The test app runs no settlement worker and its clock stands still: move the clock past the
    // network's delay and settle what fell due, as the worker would.
    app.clock.advance(NETWORK_DELAY_MS);
    while ((await settleDueTransfers(app.db, app.clock.now())) > 0);
    expect(await processingCount(app.db, [partner.organizationId])).toBe(0);
    const invariants = await checkInvariants(app.db, [{ id: partner.organizationId, startCents: START_CENTS }]);
    expect(invariants.violations).toEqual([]);
  }, 600_000);
});
