import { accessSync, constants } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/**
 * Debian's Chromium for the browser tests (the dashboard's pages), as `npm run docs:check` uses
 * it; `.ci/run` installs it. Without it those tests skip, saying why.
 */
export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const hasChromium = ((): boolean => {
  try {
    accessSync(CHROMIUM, constants.X_OK);
    return true;
  } catch {
    return false;
  }
})();

/** The name a browser test takes when it skips. */
export const NO_CHROMIUM = `skipped: ${CHROMIUM} not found; the browser tests need Debian's Chromium (apt-get update && apt-get install -y chromium)`;

/**
 * Chromium started for a test file. Its start-up takes a second or two on a quiet machine and
 * far longer on a busy one (a CI run's other test files), so it is given a minute.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 60_000 });
}

/**
 * A fresh browser context (its own cookies) at `baseURL` and the given size, with its page and
 * the page's errors and console errors as they come (`problems`, expected empty at the end).
 */
export async function openPage(
  browser: Browser,
  baseURL: string,
  viewport = { width: 1280, height: 900 },
): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport, baseURL });
  context.setDefaultTimeout(5_000);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (entry) => {
    // Chromium logs each response of 400 and above as "Failed to load resource"; the pages expect some (401 before login).
    if (entry.type() === 'error' && !entry.text().startsWith('Failed to load resource'))
      problems.push(`console: ${entry.text()}`);
  });
  return { context, page, problems };
}
