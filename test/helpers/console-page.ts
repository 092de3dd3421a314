import type { Page } from 'playwright-core';
import type { TestKey } from './keys';

/** Opens the console and uses `apiKey` (a test key, or any string a person might paste). */
export async function signIn(page: Page, url: string, key: TestKey | string): Promise<void> {
  await page.goto(`${url}/console`);
  await page.fill('#key-input', typeof key === 'string' ? key : key.apiKey);
  await page.click('#key-use');
}

/** Page errors and console errors, collected for the test to assert there were none. */
export function problemsOf(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  return problems;
}

/** How far the page is wider than the window (0: no horizontal scroll). */
export const horizontalOverflow = (page: Page): Promise<number> =>
  page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');

/** Clicks a decision button and confirms it in the dialog when it asks. */
export async function decide(page: Page, decision: 'approve' | 'reject' | 'execute') {
  await page.click(`#${decision}`);
  if (decision !== 'approve') await page.click('#confirm-yes');
}
