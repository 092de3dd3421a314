import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { seedObject } from '../helpers/actions';
import { browserAvailable, launchBrowser } from '../helpers/browser';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';
import { testTemporalAddress } from '../test-env';

// The Temporal Web UI in a real headless browser (Debian's Chromium, as the console test):
// an action proposed through the api is found in the workflow list, then by a search
// attribute query, and its page shows who asked, for what, and 1 of 2 approvals by whom.
const haveBrowser = browserAvailable('Temporal UI browser test');
/** The dev server's UI: its port is the frontend's plus 1000 (7233 → 8233, 17233 → 18233). */
const UI =
  process.env['TEST_TEMPORAL_UI_URL'] ??
  `http://127.0.0.1:${Number(testTemporalAddress().split(':').pop()) + 1000}`;
/** Screenshots go to .data; UPDATE_SCREENSHOTS=1 writes the ones docs/temporal-ui.md shows. */
const SHOTS = process.env['UPDATE_SCREENSHOTS']
  ? join(__dirname, '../../docs/images')
  : join(__dirname, '../../.data/test/screenshots');

let app: TestApp;
let worker: TestWorker;
let browser: Browser;
let ada: TestKey;
let ben: TestKey;
let cy: TestKey;

(haveBrowser ? describe : describe.skip)('the Temporal Web UI', () => {
  beforeAll(async () => {
    // The links in the static details as `npm start` serves them (this app's port is random).
    app = await startTestApp('temporal-ui', {
      env: { PUBLIC_BASE_URL: 'http://127.0.0.1:8080', TEMPORAL_UI_URL: UI },
    });
    worker = await startTestWorker(app.deps);
    const key = (name: string) =>
      createTestKey(app, { entitlement: 'strategic', accessLayer: 2, name });
    [ada, ben, cy] = await Promise.all([key('Ada Lovelace'), key('Ben Okri'), key('Cy Twombly')]);
    browser = await launchBrowser();
    mkdirSync(SHOTS, { recursive: true });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await worker?.stop();
    await app?.close();
  });

  /** Waits until visibility lists the workflow under `query` (the list is eventually consistent). */
  async function listed(query: string, workflowId: string): Promise<void> {
    const client = await app.deps.temporal.getClient();
    for (let i = 0; i < 100; i++) {
      for await (const execution of client.workflow.list({ query })) {
        if (execution.workflowId === workflowId) return;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`${workflowId} never listed under ${query}`);
  }

  const listUrl = (query: string) =>
    `${UI}/namespaces/default/workflows?query=${encodeURIComponent(query)}`;

  /** The list page's rows, once they have loaded. */
  async function rowsOf(page: Page, workflowId: string) {
    const row = page.locator('tbody tr', { hasText: workflowId });
    await row.first().waitFor({ timeout: 15_000 });
    return page.locator('tbody tr');
  }

  it('finds an action awaiting a second approval, filters it by search attributes and shows its state', async () => {
    const object = await seedObject(app, {
      name: `Reading lamp ${randomBytes(2).toString('hex')}`,
      attributes: { status: 'draft' },
    });
    const rule = await call(app.url, 'POST', '/v1/admin/approval-rules/create', {
      key: app.adminKey,
      body: {
        name: 'two eyes on the lamps',
        match: { target_prefix: object._id },
        required_approvals: 2,
      },
    });
    expect(rule.status).toBe(201);
    const proposed = await call<{ payload: { action_id: string; workflow_url: string } }>(
      app.url,
      'POST',
      '/v1/external-actions/propose',
      {
        key: ada.apiKey,
        body: {
          action_kind: 'world.update_object',
          target: { world_object_ref: object._id },
          parameters: { patch: { status: 'reviewed' } },
          bounds: { allowed_fields: ['status'] },
          reason: 'the lamp passed its safety check',
        },
      },
    );
    expect(proposed.status).toBe(201);
    const { action_id: actionId, workflow_url: workflowUrl } = proposed.body.payload;
    const workflowId = `action-${actionId}`;
    const approved = await call(app.url, 'POST', `/v1/external-actions/${actionId}/approve`, {
      key: ben.apiKey,
      body: { reason: 'checked the certificate' },
    });
    expect(approved.status).toBe(200);
    const filter = `ActionStatus = "awaiting_approval" AND ApprovalsRemaining > 0 AND ProposedBy != "${cy.principalId}" AND WorldObjectId = "${object._id}"`;
    await listed(filter, workflowId);

    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));

    // The list of running actions holds it.
    const running = 'WorkflowType = "externalActionWorkflow" AND ExecutionStatus = "Running"';
    await page.goto(listUrl(running));
    await rowsOf(page, workflowId);
    await page.screenshot({ path: join(SHOTS, 'temporal-ui-list.png') });

    // What Cy may be asked to approve, about this object: exactly this action.
    await page.goto(listUrl(filter));
    const rows = await rowsOf(page, workflowId);
    await expect(rows.count()).resolves.toBe(1);
    await page.screenshot({ path: join(SHOTS, 'temporal-ui-filtered.png') });

    // Its page: the summary names the object and the proposer, the current details say 1 of 2.
    await page.locator('tbody tr a', { hasText: workflowId }).first().click();
    await page.waitForURL(/\/workflows\/action-act_/);
    expect(page.url()).toContain(workflowUrl.replace(/^https?:\/\/[^/]+/, ''));
    await page.getByText('User Metadata', { exact: true }).click();
    // The current details come from a query the UI sends to our worker; they render in a frame.
    const currentDetails = async (): Promise<string> => {
      for (const frame of page.frames()) {
        const body = await frame
          .locator('body')
          .innerText()
          .catch(() => '');
        if (body.includes('Stage:')) return body;
      }
      return '';
    };
    let current = '';
    for (let i = 0; i < 150 && !current.includes('Approvals: 1 of 2'); i++) {
      await page.waitForTimeout(100);
      current = await currentDetails();
    }
    expect(current).toContain('Stage: awaiting_approval');
    expect(current).toMatch(/Approvals: 1 of 2 \(Ben Okri/);
    expect(current).toContain('Next: 1 more approval from anyone but Ada Lovelace');
    // Summary, details and current details render as Markdown, each in a frame of its own.
    const texts = [await page.locator('main').innerText()];
    for (const frame of page.frames()) {
      texts.push(
        await frame
          .locator('body')
          .innerText()
          .catch(() => ''),
      );
    }
    const text = texts.join('\n');
    expect(text).toContain(
      `world.update_object → ${object.name} (${object._id}) · by Ada Lovelace · 2 approvals · the lamp passed its safety check`,
    );
    expect(text).toContain(`http://127.0.0.1:8080/v1/external-actions/${actionId}`);
    // The activities' summaries read as a story in the event history (a tab of its own since UI 2.4x).
    await page.locator('a, button', { hasText: 'Event History' }).first().click();
    await page.getByText('record approval by Ben Okri (1/2)').first().waitFor({ timeout: 15_000 });
    await page.screenshot({ path: join(SHOTS, 'temporal-ui-detail.png'), fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);
});
