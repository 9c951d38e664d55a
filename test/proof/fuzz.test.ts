import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../scripts/proof/app.js';
import { OPERATIONS } from '../../scripts/proof/fuzz-cases.js';
import { runFuzz } from '../../scripts/proof/fuzz-runner.js';
import { rawRequest } from '../../scripts/proof/raw-http.js';
import { seedFrom } from '../../scripts/proof/seed.js';

// Fuzz in CI: FUZZ_RUNS cases (default 1,000) built from the document, on PostgreSQL when
// DATABASE_URL is set, else on the embedded database: the toolkit's contract checker
// (contract-first/check) with the service's plug-in. What is generated: the checker's own
// requests and the case families of scripts/proof/fuzz-cases.ts; what is checked: the checker's
// judgement and scripts/proof/fuzz-plugin.ts (its header lists each check); the wiring:
// scripts/proof/fuzz-runner.ts. The long run: `tsx scripts/proof/fuzz.ts --runs 10000 --seed N`.
// Replay a failure: FUZZ_SEED=<seed> FUZZ_RUNS=<runs>.

const runs = Number(process.env['FUZZ_RUNS'] ?? 1000);
const seed = seedFrom(process.env['FUZZ_SEED']);

describe('fuzz from the document', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp();
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });

  it(`responds to ${runs} generated requests within the contract (seed ${seed})`, async () => {
    console.info(`fuzz: ${runs} cases, seed ${seed} (replay with FUZZ_SEED=${seed} FUZZ_RUNS=${runs})`);
    const report = await runFuzz(
      { baseUrl: app.baseUrl, db: app.db, clock: app.clock, onboard: (request) => app.onboard(request) },
      { runs, seed },
    );
    console.info(
      `fuzz (seed ${seed}): ${report.cases} cases in ${Math.round(report.durationMs / 1000)} s, ${report.writesChecked} writes checked against the database; ` +
        `by status ${JSON.stringify(report.byStatus)}; by family ${JSON.stringify(report.byFamily)}`,
    );
    expect(report.cases).toBeGreaterThanOrEqual(runs);
    if (runs >= 500) {
      // Every operation of the document was exercised.
      expect(Object.keys(report.byOperation).sort()).toEqual(
        OPERATIONS.map((operation) => operation.operationId).sort(),
      );
    }
  }, 600_000);

  it("query text with ! ' ( ) * left raw, as encodeURIComponent sends it (RFC 3986 allows it), is taken as meant", async () => {
    const partner = await app.onboard({ name: 'Sub-delims Ltd' });
    for (const merchant of ['Cafe (Zamalek)', 'Yalla!', 'A*B', "McDonald's"]) {
      // The raw socket: fetch would percent-encode the apostrophe itself.
      const target = `/v1/transaction?merchant=${encodeURIComponent(merchant)}`;
      const response = await rawRequest(
        Number(new URL(app.baseUrl).port),
        { method: 'GET', target, headers: [['Authorization', `Bearer ${await partner.token()}`]] },
        10_000,
      );
      expect(response.status, `${merchant}: ${response.body.toString('utf8')}`).toBe(200);
    }
  });
});
