import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { needsIntegrationTier } from '../test-env';

/** Debian's Chromium, as scripts/ensure-browser.sh installs it (or `CHROMIUM_PATH`). */
export const BROWSER_PATH = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

/** Whether a browser test can run here; when not, it says why (the test then skips). */
export function browserAvailable(test: string): boolean {
  needsIntegrationTier('Chromium');
  if (existsSync(BROWSER_PATH)) return true;
  console.warn(
    `${test} skipped: no Chromium at ${BROWSER_PATH} (scripts/ensure-browser.sh installs it)`,
  );
  return false;
}

/** Headless Chromium; the closed network refuses its own background connections, so those are off. */
export const launchBrowser = (): Promise<Browser> =>
  chromium.launch({
    executablePath: BROWSER_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
