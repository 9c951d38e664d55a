import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PENDING_TRANSFERS } from '../../server/sandbox/pending-transfers.js';
import { buildService, freePort, startScriptEnvironment, startScriptNodeFlags } from '../../scripts/bench/processes.js';
import { eventually } from '../http/support.js';
import { hasChromium, launchChromium, NO_CHROMIUM } from '../helpers/chromium.js';

// A first `npm start`, as a new user runs it: the build (server, dashboard pages, API references),
// then the compiled server on a fresh embedded database (in memory here, so that nothing is left in
// the project's .data/). Its printed dashboard login works at once in Chromium: the demo
// organization's transfers wait there, one is approved and another rejected with no setup step,
// and the approved one's row reaches SUCCEEDED or FAILED on the page without a reload. The API
// references are served at /docs and /docs/dashboard, and an unknown path's 404 names them.
// Chromium is Debian's, as for the dashboard's other browser tests; without it those parts skip.

const ROOT = resolve(import.meta.dirname, '../..');
const MAIN = join(ROOT, '.build', 'server', 'main.js');
const NETWORK_DELAY_MS = 1_000;

const payee = (kind: 'covered' | 'notCovered'): string => DEMO_PENDING_TRANSFERS.find((spec) => spec.kind === kind)?.accountName ?? kind;

let child: ChildProcessWithoutNullStreams;
let exited: Promise<unknown>;
let stdout = '';
let stderr = '';
let port: number;
let base: string;
let browser: Browser | undefined;

beforeAll(async () => {
  buildService();
  port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...startScriptEnvironment(),
    PORT: String(port),
    DATABASE_URL: 'memory://',
    PAYMENT_NETWORK_DELAY_MS: String(NETWORK_DELAY_MS),
    LOG_LEVEL: 'warn',
  };
  delete env['NODE_ENV'];
  delete env['PUBLIC_URL'];
  child = spawn(process.execPath, [...startScriptNodeFlags(), MAIN], { cwd: ROOT, env });
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  exited = new Promise((done) => child.once('close', done));
  base = `http://127.0.0.1:${port}`;
  await eventually(async () => {
    if (child.exitCode !== null) throw new Error(`the server exited early: ${stderr}`);
    return stdout.includes('A demo organization was created') && stdout.includes('The API reference:');
  }, 45_000);
  if (hasChromium) browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  if (child !== undefined && child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM');
    await exited;
  }
});

describe('a first npm start', () => {
  it('prints the dashboard login, the waiting transfers and where the API reference is', () => {
    expect(stdout).toMatch(/^ {2}username: \S+$/m);
    expect(stdout).toMatch(/^ {2}password: \S+$/m);
    expect(stdout).toContain(`${DEMO_PENDING_TRANSFERS.length} transfers wait there for a decision`);
    expect(stdout).toContain(`The API reference: http://localhost:${port}/docs (the dashboard's: http://localhost:${port}/docs/dashboard)`);
  });

  it("serves the partner API's reference at /docs and the dashboard's at /docs/dashboard", async () => {
    for (const [where, title] of [
      ['/docs', 'Partner Payments'],
      ['/docs/dashboard', 'Partner Dashboard API'],
    ] as const) {
      const response = await fetch(`${base}${where}`);
      expect(response.status, where).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const html = await response.text();
      expect(html).toMatch(new RegExp(`<title>[^<]*${title}[^<]*</title>`));
      expect(html).toContain('</html>');
    }
  });

  it("answers an unknown path with the contract's Error, naming the reference", async () => {
    for (const [where, reference] of [
      ['/no-such-path', '/docs'],
      ['/v1/transfers', '/docs'],
      ['/dashboard/api/nothing', '/docs/dashboard'],
    ] as const) {
      const response = await fetch(`${base}${where}`);
      expect(response.status, where).toBe(404);
      expect(await response.json()).toEqual({ message: `No such path. The API reference is at http://localhost:${port}${reference}`, type: 'NotFound' });
    }
  });

  it.skipIf(!hasChromium)(hasChromium ? 'in Chromium, the printed operator approves one waiting transfer and rejects another; the approved one settles on the page' : NO_CHROMIUM, async () => {
    if (browser === undefined) throw new Error('no browser');
    const username = /^ {2}username: (\S+)$/m.exec(stdout)?.[1] ?? '';
    const password = /^ {2}password: (\S+)$/m.exec(stdout)?.[1] ?? '';
    const context = await browser.newContext({ baseURL: base, viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(5_000);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (entry) => {
      // Chromium logs each answer of 400 and above as "Failed to load resource"; the login page expects a 401.
      if (entry.type() === 'error' && !entry.text().startsWith('Failed to load resource')) problems.push(`console: ${entry.text()}`);
    });

    await page.goto('/dashboard');
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Log in' }).click();

    // The demo's transfers wait, pending first.
    const pendingBadges = page.locator('tr[data-transfer-id] .badge', { hasText: 'PENDING' });
    await expect.poll(() => pendingBadges.count()).toBe(DEMO_PENDING_TRANSFERS.length);
    // A mark in the page's own window: gone if the page were reloaded.
    await page.evaluate('window.notReloaded = true');

    const approved = page.locator('tr[data-transfer-id]', { hasText: payee('covered') });
    const rejected = page.locator('tr[data-transfer-id]', { hasText: payee('notCovered') });
    await approved.getByRole('button', { name: /^Approve/ }).click();
    await expect.poll(() => approved.locator('.badge').textContent()).toBe('PROCESSING');

    await rejected.getByRole('button', { name: /^Reject/ }).click();
    await page.getByLabel('Reason for rejecting').fill('Above the organization balance');
    await page.getByRole('button', { name: 'Reject transfer' }).click();
    await expect.poll(() => rejected.locator('.badge').textContent()).toBe('REJECTED');

    // The network settles it after PAYMENT_NETWORK_DELAY_MS; the page asks again until it shows.
    await expect.poll(() => approved.locator('.badge').textContent(), { timeout: 20_000 }).toMatch(/^(SUCCEEDED|FAILED)$/);
    expect(await approved.textContent()).toContain(`Approved by ${username}`);
    expect(await page.evaluate('window.notReloaded === true')).toBe(true);
    expect(problems).toEqual([]);
    await context.close();
  });
});
