import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { mintApiKey } from '../../src/auth/api-key';
import { newId } from '../../src/lib/ids';
import { proposeUpdate } from '../helpers/actions';
import { browserAvailable, launchBrowser } from '../helpers/browser';
import {
  decide,
  horizontalOverflow,
  problemsOf,
  signIn as signInAt,
} from '../helpers/console-page';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';

// The approvals console in a real headless browser (Debian's Chromium, installed by
// scripts/ensure-browser.sh): propose by API → it appears in another principal's inbox →
// approved in the page → executed → the history shows it; names beside ids, refused
// decisions with their reason, a refused key cleared, and the same journey at 375 px.
const haveBrowser = browserAvailable('console browser test');
const SHOTS = join(__dirname, '../../.data/test/screenshots');

let app: TestApp;
let worker: TestWorker;
let browser: Browser;
let proposer: TestKey;
let approver: TestKey;

(haveBrowser ? describe : describe.skip)('the approvals console', () => {
  beforeAll(async () => {
    app = await startTestApp('console');
    worker = await startTestWorker(app.deps);
    const strategic = { entitlement: 'strategic', accessLayer: 2 } as const;
    proposer = await createTestKey(app, { ...strategic, name: 'Pat Proposer' });
    approver = await createTestKey(app, { ...strategic, name: 'Ann Approver' });
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
  const signIn = (page: Parameters<typeof signInAt>[0], key: TestKey | string) =>
    signInAt(page, app.url, key);
  const actionOf = async (id: string) =>
    (
      await call<{
        payload: {
          status: string;
          decisions: { reason: string }[];
          target: { world_object_ref: string };
        };
      }>(app.url, 'GET', `/v1/external-actions/${id}`, { key: approver.apiKey })
    ).body.payload;

  it('takes an action from the inbox to executed, and keeps the key in session storage only', async () => {
    const actionId = await propose();
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const problems = problemsOf(page);

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
    await decide(page, 'approve');
    await page.locator('#execute:not([disabled])').waitFor();
    await page.screenshot({ path: join(SHOTS, 'console-detail.png'), fullPage: true });
    await decide(page, 'execute');
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

    const action = await actionOf(actionId);
    expect(action.status).toBe('executed');
    expect(action.decisions[0].reason).toBe('checked the review notes');
    await page.close();
  });

  it('shows names beside the ids of principals and objects, the ids whole', async () => {
    const actionId = await propose();
    const objectId = (await actionOf(actionId)).target.world_object_ref;
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await signIn(page, approver);
    const row = page.locator(`tr[data-id="${actionId}"]`);
    await row.waitFor();
    const rowText = await row.textContent();
    expect(rowText).toContain(`Pat Proposer ${proposer.principalId}`);
    expect(rowText).toContain(`Test document ${objectId}`);

    await row.click();
    await page.fill('#decision-reason', 'fine');
    await decide(page, 'approve');
    await page.locator('#execute:not([disabled])').waitFor();
    await expect(page.locator('#proposed-by').textContent()).resolves.toBe(
      `Pat Proposer ${proposer.principalId}`,
    );
    await expect(page.locator('#target').textContent()).resolves.toBe(`Test document ${objectId}`);
    await expect(page.locator('ul.approvals').textContent()).resolves.toContain(
      `Ann Approver ${approver.principalId}`,
    );
    await expect(page.locator('#ledger').textContent()).resolves.toContain(
      `Ann Approver ${approver.principalId}`,
    );
    await page.close();
  });

  it("shows a refused decision's reason and the principal it claimed to be", async () => {
    const actionId = await propose();
    // A decision sent around the api, straight to the workflow, claiming to be the approver.
    const client = await app.deps.temporal.getClient();
    const forged = client.workflow.getHandle(`action-${actionId}`).executeUpdate('approve', {
      args: [{ principal_id: approver.principalId, key_id: approver.keyId }],
    });
    await expect(forged).rejects.toMatchObject({
      cause: { message: expect.stringMatching(/not signed by the api/) },
    });

    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await signIn(page, approver);
    await page.goto(`${app.url}/console#/action/${actionId}`);
    const ledger = page.locator('#ledger');
    await ledger.locator('.refusal').waitFor();
    const refusal = await ledger.locator('.refusal').textContent();
    expect(refusal).toContain('decision refused');
    expect(refusal).toContain(`approve claimed by Ann Approver ${approver.principalId}`);
    expect(refusal).toMatch(/refused: this approve is not signed by the api/);
    await expect(page.locator('#refused-count').textContent()).resolves.toContain('1 decision');
    await page.close();
  });

  it('clears a key the API refuses, says why, and no longer shows it in use', async () => {
    const page = await browser.newPage();
    for (const [key, reason] of [
      ['not-a-key', 'malformed API key'],
      [mintApiKey('0123456789ab'), 'unknown API key'],
    ]) {
      await signIn(page, key);
      await page.locator('#banner:not([hidden])').waitFor();
      const said = await page.locator('#banner').textContent();
      expect(said).toContain(reason);
      expect(said).toMatch(/cleared/);
      await expect(page.locator('#key-state').textContent()).resolves.toBe('');
      await expect(page.locator('#key-forget').isHidden()).resolves.toBe(true);
      await expect(page.evaluate('sessionStorage.length')).resolves.toBe(0);
      await expect(page.evaluate('document.activeElement.id')).resolves.toBe('key-input');
    }
    // A good key after a refused one works as usual.
    await page.fill('#key-input', approver.apiKey);
    await page.click('#key-use');
    await page.locator('#inbox-count').waitFor();
    await expect(page.locator('#banner').isHidden()).resolves.toBe(true);
    await expect(page.locator('#key-state').textContent()).resolves.toContain(
      approver.apiKey.slice(-4),
    );
    await page.close();
  });

  it('works at 375 px: no horizontal scroll, and the journey by keyboard', async () => {
    const actionId = await propose();
    const page = await browser.newPage({ viewport: { width: 375, height: 812 } });
    const problems = problemsOf(page);
    await signIn(page, approver);
    const row = page.locator(`tr[data-id="${actionId}"]`);
    await row.waitFor();
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await page.screenshot({ path: join(SHOTS, 'console-inbox-375.png'), fullPage: true });

    // Into the action by keyboard: its link takes the focus, visibly, and Enter opens it.
    const link = row.locator('a.open');
    await link.focus();
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Tab');
    await expect(
      page.evaluate(
        "[document.activeElement.className, document.activeElement.closest('tr').dataset.id, getComputedStyle(document.activeElement).outlineStyle]",
      ),
    ).resolves.toEqual(['open', actionId, 'solid']);
    await page.keyboard.press('Enter');
    await page.locator('#approve').waitFor();
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);

    // Reject asks first; Escape closes the dialog and sends nothing.
    await page.focus('#reject');
    await page.keyboard.press('Space');
    await page.locator('dialog#confirm[open]').waitFor();
    await page.keyboard.press('Escape');
    await page.locator('dialog#confirm').waitFor({ state: 'detached' });
    await expect(page.evaluate('document.activeElement.id')).resolves.toBe('reject');
    expect((await actionOf(actionId)).status).toBe('awaiting_approval');

    await page.focus('#decision-reason');
    await page.keyboard.type('read on a phone');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter'); // Approve
    await page.locator('#execute:not([disabled])').waitFor();
    await page.focus('#execute');
    await page.keyboard.press('Enter');
    await page.locator('dialog#confirm[open]').waitFor();
    await page.keyboard.press('Tab'); // from Cancel to Execute
    await page.keyboard.press('Enter');
    await page.locator('.toolbar .status.executed').waitFor({ timeout: 15_000 });
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await page.screenshot({ path: join(SHOTS, 'console-detail-375.png'), fullPage: true });

    await page.click('a[data-nav="history"]');
    await page.locator(`tr[data-id="${actionId}"]`).first().waitFor();
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    expect(problems).toEqual([]);
    expect((await actionOf(actionId)).decisions[0].reason).toBe('read on a phone');
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
