import { accessSync, constants } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/**
 * Debian's Chromium for the browser tests (the dashboard's pages), as `npm run docs:check` uses
 * it; `.ci/run` installs it. Without it those tests skip, saying why.
 */
export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

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
