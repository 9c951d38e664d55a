import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PartnerClient } from '../../client/index.js';
import { randomIds } from '../../server/clock-and-ids.js';
import { seedSandboxData } from '../../server/sandbox/demo-organization.js';
import { settleDueTransfers } from '../../server/settlement-worker.js';
import { buildDashboardPages, SCRIPT_BUDGET_BYTES, type BuiltPages } from '../../scripts/build/dashboard.js';
import { startTestApp, type Partner, type TestApp } from '../../scripts/proof/app.js';
import { sdkFor, SUCCEEDING_IBAN, transferTo } from '../sdk/sdk-app.js';
import { hasChromium, launchChromium, NO_CHROMIUM, openPage } from '../helpers/chromium.js';

// The dashboard's pages (client/dashboard/) in a real headless Chromium against the real app on a
// real database, response validation on: an operator logs in, decides the transfers a partner
// created through the SDK, edits a card's limits, pages the ledger, reads the organization and logs
// out, and the partner API shows each change. Then the keyboard alone, and a 360 px wide screen.
// Chromium is Debian's, as for `npm run docs:check`; without it the browser tests skip, saying so.
// The embedded database whatever DATABASE_URL says: what the pages ask of the API is
// test/http/dashboard.test.ts's, which runs on both databases.

/** The README's screenshots are taken when this names a folder (client/dashboard/screenshots). */
const SCREENSHOTS = process.env['DASHBOARD_SCREENSHOTS'];
const NETWORK_DELAY_MS = 1_000;

let built: BuiltPages;
let outDir: string;
let app: TestApp;
let partner: Partner;
let sdk: PartnerClient;
let browser: Browser | undefined;
let shots: string;
const pending: string[] = [];

beforeAll(async () => {
  outDir = await mkdtemp(path.join(tmpdir(), 'dashboard-pages-'));
  built = await buildDashboardPages(outDir);
  app = await startTestApp({ paymentNetworkDelayMs: NETWORK_DELAY_MS, dashboardPagesDir: outDir, database: 'pglite' });
  partner = await app.onboard({ name: 'Nile Delta Trading', balanceCents: 1_000_000_00 });
  const seeded = await seedSandboxData(app.db, {
    organizationId: partner.organizationId,
    now: app.clock.now(),
    ids: randomIds,
  });
  expect(seeded.transactions).toBeGreaterThan(50);
  sdk = sdkFor(app, partner);
  // A maker's transfers, through the partner API: they wait for the dashboard.
  for (const amount of [1_234_56, 2_000_00, 345_00]) {
    const { data, error } = await sdk.POST('/v1/transfer', { body: transferTo(SUCCEEDING_IBAN, amount) });
    expect(error).toBeUndefined();
    if (data !== undefined) pending.push(data.id);
  }
  shots = SCREENSHOTS === undefined ? path.join(outDir, 'screenshots') : path.resolve(SCREENSHOTS);
  await mkdir(shots, { recursive: true });
  if (hasChromium) browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  if (outDir !== undefined) await rm(outDir, { recursive: true, force: true });
});

describe('the built pages', () => {
  it(`the first view's script is under ${SCRIPT_BUDGET_BYTES / 1024} KB`, () => {
    expect(built.scriptBytes).toBeGreaterThan(0);
    expect(built.scriptBytes).toBeLessThan(SCRIPT_BUDGET_BYTES);
  });

  it('/dashboard and /dashboard/ are the page, with a strict Content-Security-Policy; its assets are cached for good', async () => {
    for (const where of ['/dashboard', '/dashboard/']) {
      const response = await fetch(`${app.baseUrl}${where}`);
      const html = await response.text();
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('content-security-policy')).toMatch(/script-src 'self';/);
      expect(response.headers.get('content-security-policy')).not.toMatch(/unsafe-inline|unsafe-eval/);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
    }
    const html = await (await fetch(`${app.baseUrl}/dashboard`)).text();
    const script = /src="(\/dashboard\/assets\/app-[\w-]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${app.baseUrl}${script ?? ''}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect((await asset.arrayBuffer()).byteLength).toBe(built.scriptBytes);
    // Nothing else under /dashboard is a page: the partner API's 404.
    expect((await fetch(`${app.baseUrl}/dashboard/assets/app-missing.js`)).status).toBe(404);
    expect((await fetch(`${app.baseUrl}/dashboard/transfers`)).status).toBe(404);
  });
});

/** A fresh browser context at the test app's address (openPage in test/helpers/chromium.ts). */
async function open(viewport?: { width: number; height: number }): ReturnType<typeof openPage> {
  if (browser === undefined) throw new Error('no browser');
  return openPage(browser, app.baseUrl, viewport);
}

async function logIn(page: Page, password = partner.operator.password): Promise<void> {
  await page.goto('/dashboard');
  await page.getByLabel('Username').fill(partner.operator.operator.username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
}

const row = (page: Page, id: string) => page.locator(`tr[data-transfer-id="${id}"]`);

async function partnerTransfer(id: string): Promise<string | undefined> {
  const { data } = await sdk.GET('/v1/transfer/{id}', { params: { path: { id } } });
  return data?.status;
}

describe.skipIf(!hasChromium)(hasChromium ? 'in Chromium' : `in Chromium (${NO_CHROMIUM})`, () => {
  it('an operator logs in, decides transfers, edits a card limit, pages the ledger, reads the organization and logs out', async () => {
    const { context, page, problems } = await open();
    const [approved, rejected, cancelled] = pending;
    if (approved === undefined || rejected === undefined || cancelled === undefined)
      throw new Error('three transfers expected');

    // Login: a wrong password is said in words, then the right one.
    await logIn(page, 'not-the-password');
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Wrong username or password.');
    await page.screenshot({ path: path.join(shots, 'login.png') });
    await page.getByLabel('Password').fill(partner.operator.password);
    await page.getByRole('button', { name: 'Log in' }).click();

    // Transfers: the three pending ones first.
    await expect.poll(() => page.locator('tbody tr').count()).toBe(3);
    for (const id of pending) await expect.poll(() => row(page, id).locator('.badge').textContent()).toBe('PENDING');
    expect(await row(page, approved).textContent()).toContain('EGP 1,234.56');
    await page.screenshot({ path: path.join(shots, 'transfers.png') });

    // Approve: PROCESSING, who and when; the partner API agrees, and it settles.
    await row(page, approved)
      .getByRole('button', { name: /^Approve/ })
      .click();
    await expect.poll(() => row(page, approved).locator('.badge').textContent()).toBe('PROCESSING');
    expect(await row(page, approved).textContent()).toContain(`Approved by ${partner.operator.operator.username}`);
    expect(await partnerTransfer(approved)).toBe('PROCESSING');
    app.clock.advance(NETWORK_DELAY_MS + 1);
    await settleDueTransfers(app.db, app.clock.now());
    expect(await partnerTransfer(approved)).toBe('SUCCEEDED');

    // Reject with a reason, asked in a dialog; the partner API shows REJECTED.
    await row(page, rejected)
      .getByRole('button', { name: /^Reject/ })
      .click();
    await page.getByLabel('Reason for rejecting').fill('No purchase order on file');
    await page.getByRole('button', { name: 'Reject transfer' }).click();
    await expect.poll(() => row(page, rejected).locator('.badge').textContent()).toBe('REJECTED');
    expect(await row(page, rejected).textContent()).toContain('Reason: No purchase order on file');
    expect(await partnerTransfer(rejected)).toBe('REJECTED');

    // A transfer the maker cancelled meanwhile: approving it is rejected, in words.
    const cancel = await sdk.POST('/v1/transfer/{id}/cancel', { params: { path: { id: cancelled } } });
    expect(cancel.error).toBeUndefined();
    await row(page, cancelled)
      .getByRole('button', { name: /^Approve/ })
      .click();
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toMatch(/^Could not approve the transfer of EGP 345\.00: .*PENDING/);

    const shownTransfers = () =>
      page
        .locator('tr[data-transfer-id]')
        .evaluateAll((rows) => rows.map((element) => element.getAttribute('data-transfer-id')));
    // The filters: REJECTED finds the rejected one, EGP 1,000 to 1,500 the approved one.
    await page.getByLabel('Status').selectOption('REJECTED');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(shownTransfers).toEqual([rejected]);
    await page.getByLabel('Status').selectOption('');
    await page.getByLabel('Minimum amount (EGP)').fill('1000');
    await page.getByLabel('Maximum amount (EGP)').fill('1500');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(shownTransfers).toEqual([approved]);

    // Cards: set a plain card's limits (PUT), then lower one (PATCH); the partner API responds to them.
    const cards = await sdk.GET('/v1/card', { params: { query: { limit: 20 } } });
    const card = cards.data?.cards.find(
      (candidate) => candidate.last4 !== null && candidate.limits.approvalBased === null,
    );
    if (card === undefined) throw new Error('a plain, activated card expected on the first page');
    await page.getByRole('link', { name: 'Cards' }).click();
    const cardRow = page.locator(`tr[data-card-id="${card.id}"]`);
    await cardRow.getByRole('button', { name: /^Edit limits/ }).click();
    await page.getByLabel('Daily limit (EGP)', { exact: true }).fill('1,234.56');
    await page.getByLabel('Monthly limit (EGP)', { exact: true }).fill('20000');
    await page.getByLabel('Monthly ATM limit (EGP)', { exact: true }).fill('5000.00');
    await page.getByRole('button', { name: 'Set limits' }).click();
    await expect.poll(() => cardRow.textContent()).toContain('EGP 1,234.56');
    const afterPut = await sdk.GET('/v1/card/{id}', { params: { path: { id: card.id } } });
    expect(afterPut.data?.limits).toEqual({ daily: 1_234_56, monthly: 20_000_00, atm: 5_000_00, approvalBased: null });
    await cardRow.getByRole('button', { name: /^Edit limits/ }).click();
    await page.getByLabel('Change of the daily limit (EGP)').fill('-34.56');
    await page.getByRole('button', { name: 'Adjust limits' }).click();
    await expect.poll(() => cardRow.textContent()).toContain('EGP 1,200.00');
    const afterPatch = await sdk.GET('/v1/card/{id}', { params: { path: { id: card.id } } });
    expect(afterPatch.data?.limits).toEqual({
      daily: 1_200_00,
      monthly: 20_000_00,
      atm: 5_000_00,
      approvalBased: null,
    });
    await page.screenshot({ path: path.join(shots, 'cards.png') });

    // The ledger: a page of 25, "More" for the next 25, and a filter.
    await page.getByRole('link', { name: 'Ledger' }).click();
    await expect.poll(() => page.locator('tr[data-transaction-id]').count()).toBe(25);
    const first = await page.locator('tr[data-transaction-id]').first().getAttribute('data-transaction-id');
    await page.screenshot({ path: path.join(shots, 'ledger.png') });
    await page.getByRole('button', { name: 'More transactions' }).click();
    await expect.poll(() => page.locator('tr[data-transaction-id]').count()).toBe(50);
    const ids = await page
      .locator('tr[data-transaction-id]')
      .evaluateAll((rows) => rows.map((element) => element.getAttribute('data-transaction-id')));
    expect(new Set(ids).size).toBe(50);
    const partnerFirst = await sdk.GET('/v1/transaction', { params: { query: { limit: 25 } } });
    expect(partnerFirst.data?.transactions[0]?.id).toBe(first);
    await page.getByText('Filters', { exact: true }).click();
    await page.getByLabel('Statuses', { exact: true }).selectOption(['DECLINED']);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect
      .poll(async () =>
        (await page.locator('tr[data-transaction-id]').allTextContents()).every((text) => text.includes('Declined')),
      )
      .toBe(true);
    expect(await page.locator('tr[data-transaction-id]').count()).toBeGreaterThan(0);

    // The organization: its balance and API clients, never a secret.
    await page.getByRole('link', { name: 'Organization' }).click();
    await expect.poll(() => page.locator('#balance-available').textContent()).toMatch(/^EGP [\d,]+\.\d\d$/);
    const text = (await page.locator('main').textContent()) ?? '';
    expect(text).toContain(partner.clientId);
    expect(text).not.toContain(partner.clientSecret);
    await page.screenshot({ path: path.join(shots, 'organization.png') });

    // Log out: the login form again, and the session's cookie no longer works.
    const cookie = (await context.cookies()).find((candidate) => candidate.name === 'dashboard_session');
    expect(cookie?.httpOnly).toBe(true);
    await page.getByRole('button', { name: 'Log out' }).click();
    await expect.poll(() => page.getByText('You are logged out.').count()).toBe(1);
    const replay = await fetch(`${app.baseUrl}/dashboard/api/session`, {
      headers: { Cookie: `dashboard_session=${cookie?.value ?? ''}` },
    });
    expect(replay.status).toBe(401);

    expect(problems).toEqual([]);
    await context.close();
  });

  it('the keyboard alone logs in and moves between pages, with focus visible', async () => {
    const { context, page, problems } = await open();
    await page.goto('/dashboard');
    await page.getByLabel('Username').waitFor();
    // Expressions run in the page (the tests are type-checked without the DOM's types).
    const focused = () =>
      page.evaluate<string>("document.activeElement?.id || document.activeElement?.textContent || ''");
    const outlineStyle = () => page.evaluate<string>('getComputedStyle(document.activeElement).outlineStyle');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Skip to content');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('username');
    expect(await outlineStyle()).not.toBe('none');
    await page.keyboard.type(partner.operator.operator.username);
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('password');
    await page.keyboard.type(partner.operator.password);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Transfers' }).waitFor();
    // Once the page has loaded, focus is on its main region; back from there through the header to
    // the Cards link, then Enter. (Tabbing on before focus moved raced the page's own move.)
    await expect.poll(focused).toBe('main');
    for (let step = 0; step < 10 && (await focused()) !== 'Cards'; step += 1) await page.keyboard.press('Shift+Tab');
    expect(await focused()).toBe('Cards');
    expect(await outlineStyle()).not.toBe('none');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Cards' }).waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('at 360 px wide no page scrolls sideways; wide tables scroll in their own box', async () => {
    const { context, page, problems } = await open({ width: 360, height: 780 });
    await page.goto('/dashboard');
    await page.getByLabel('Username').waitFor();
    const overflow = () =>
      page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    expect(await overflow()).toBe(0);
    await logIn(page);
    for (const [hash, heading] of [
      ['transfers', 'Transfers'],
      ['cards', 'Cards'],
      ['ledger', 'Ledger'],
      ['organization', 'Nile Delta Trading'],
    ] as const) {
      await page.goto(`/dashboard#/${hash}`);
      await page.getByRole('heading', { name: heading, exact: true }).waitFor();
      await page.locator('table').first().waitFor();
      expect(await overflow(), `#/${hash}`).toBe(0);
    }
    expect(problems).toEqual([]);
    await context.close();
  });
});
