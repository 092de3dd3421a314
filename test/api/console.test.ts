import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { newId } from '../../src/lib/ids';
import { proposeUpdate } from '../helpers/actions';
import { browserAvailable, launchBrowser } from '../helpers/browser';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';

// The approvals console in a real headless browser (Debian's Chromium, installed by
// scripts/ensure-browser.sh): propose by API → it appears in another principal's inbox →
// approved in the page → executed → the history shows it.
const haveBrowser = browserAvailable('console browser test');
/** Screenshots go to .data; UPDATE_SCREENSHOTS=1 writes the ones docs/console.md shows. */
const SHOTS = process.env['UPDATE_SCREENSHOTS']
  ? join(__dirname, '../../docs/images')
  : join(__dirname, '../../.data/test/screenshots');

let app: TestApp;
let worker: TestWorker;
let browser: Browser;
let proposer: TestKey;
let approver: TestKey;

(haveBrowser ? describe : describe.skip)('the approvals console', () => {
  beforeAll(async () => {
    app = await startTestApp('console');
    worker = await startTestWorker(app.deps);
    proposer = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
    approver = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
    browser = await launchBrowser();
    mkdirSync(SHOTS, { recursive: true });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await worker?.stop();
    await app?.close();
  });

  const propose = () =>
    proposeUpdate(app, proposer, {
      patch: { tier: 'critical' },
      attributes: { tier: 'standard', owner: 'ops' },
      reason: 'payments moved to the critical tier after the incident review',
    });

  async function signIn(page: Page, key: TestKey): Promise<void> {
    await page.goto(`${app.url}/console`);
    await page.fill('#key-input', key.apiKey);
    await page.click('#key-use');
  }

  it('takes an action from the inbox to executed, and keeps the key in session storage only', async () => {
    const actionId = await propose();
    const page = await browser.newPage({ viewport: { width: 1280, height: 820 } });
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });

    await signIn(page, approver);
    const row = page.locator(`tr[data-id="${actionId}"]`);
    await row.waitFor();
    await expect(row.textContent()).resolves.toContain('tier: "standard" → "critical"');
    await page.screenshot({ path: join(SHOTS, 'console-inbox.png') });

    await row.click();
    await page.locator('#approve').waitFor();
    await expect(page.locator('table.diff').textContent()).resolves.toContain('critical');
    const temporalLink = await page.locator('#temporal-link').getAttribute('href');
    expect(temporalLink).toContain(`/workflows/action-${actionId}/`);
    await page.fill('#decision-reason', 'checked the review notes');
    await page.click('#approve');
    await page.locator('#execute:not([disabled])').waitFor();
    await page.screenshot({ path: join(SHOTS, 'console-detail.png'), fullPage: true });
    await page.click('#execute');
    await page.locator('.toolbar .status.executed').waitFor({ timeout: 15_000 });

    await page.click('a[data-nav="history"]');
    await page.locator(`tr[data-id="${actionId}"]`).first().waitFor();
    await expect(page.locator('main table').textContent()).resolves.toContain('executed');

    await page.click('a[data-nav="inbox"]');
    await page.locator('#inbox-count').waitFor();
    await expect(page.locator(`tr[data-id="${actionId}"]`).count()).resolves.toBe(0);

    const stored = await page.evaluate(
      '({ session: Object.values(sessionStorage), local: Object.keys(localStorage).length })',
    );
    expect(stored).toEqual({ session: [approver.apiKey], local: 0 });
    expect(problems).toEqual([]);

    const action = await call<{ payload: { status: string; decisions: { reason: string }[] } }>(
      app.url,
      'GET',
      `/v1/external-actions/${actionId}`,
      { key: approver.apiKey },
    );
    expect(action.body.payload.status).toBe('executed');
    expect(action.body.payload.decisions[0].reason).toBe('checked the review notes');
    await page.close();
  });

  it("does not offer a decision to the action's own proposer, and shows the API's refusals", async () => {
    const actionId = await propose();
    const page = await browser.newPage();
    await signIn(page, proposer);
    await page.locator('#inbox-count').waitFor();
    await expect(page.locator(`tr[data-id="${actionId}"]`).count()).resolves.toBe(0); // never one's own
    await page.goto(`${app.url}/console#/action/${actionId}`);
    await page.locator('#approve').waitFor();
    await expect(page.locator('#approve').isDisabled()).resolves.toBe(true);

    await page.goto(`${app.url}/console#/action/${newId('act')}`);
    await page.locator('#banner:not([hidden])').waitFor();
    await expect(page.locator('#banner').textContent()).resolves.toMatch(/not found/i);
    await page.close();
  });

  it('serves the page with a policy that lets it run only its own code against this origin', async () => {
    const res = await fetch(`${app.url}/console`);
    expect(res.status).toBe(200);
    const policy = res.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("connect-src 'self'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect((await fetch(`${app.url}/console/assets/nope.js`)).status).toBe(404);
  });
});
