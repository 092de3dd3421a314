import type { Browser, Page } from 'playwright-core';
import { newId } from '../../src/lib/ids';
import { proposeUpdate } from '../helpers/actions';
import { browserAvailable, launchBrowser } from '../helpers/browser';
import { decide, problemsOf, signIn as signInAt } from '../helpers/console-page';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';

// One action in the console never shows the wrong thing, at a phone's width and a desktop's:
// a load error leaves no stale action behind; a decision's result shows beside the buttons
// and takes the focus; a disabled button says why; a failed dry run and a finished action
// show what happened; the header names who is signed in; a link to an action survives the
// sign-in it needs.
const haveBrowser = browserAvailable('console action browser test');

let app: TestApp;
let worker: TestWorker;
let browser: Browser;
let proposer: TestKey;
let approver: TestKey;
let other: TestKey;
const signedContext = `ctx-console-action-${newId('tsk')}`;

/** The text of what a control's `aria-describedby` points at (why it is disabled). */
const describedBy = (page: Page, id: string): Promise<string> =>
  page.evaluate<string>(
    `(document.getElementById(${JSON.stringify(id)}).getAttribute('aria-describedby') ?? '')
      .split(' ').map((ref) => document.getElementById(ref)?.textContent ?? '').join(' ')`,
  );

/** How far apart (px, vertically) the decision's result and the decision buttons are. */
const resultGap = (page: Page): Promise<number> =>
  page.evaluate<number>(`(() => {
    const result = document.getElementById('decision-result').getBoundingClientRect();
    const buttons = document.querySelector('.decide .buttons').getBoundingClientRect();
    return Math.max(result.top - buttons.bottom, buttons.top - result.bottom, 0);
  })()`);

/** Whether the element is inside the window (the browser scrolled to it). */
const inView = (page: Page, id: string): Promise<boolean> =>
  page.evaluate<boolean>(`(() => {
    const box = document.getElementById(${JSON.stringify(id)}).getBoundingClientRect();
    return box.top >= 0 && box.bottom <= window.innerHeight;
  })()`);

/** The focused element's id (or its tag name: BODY when the focus was dropped). */
const focused = (page: Page): Promise<string> =>
  page.evaluate<string>('document.activeElement?.id || document.activeElement?.tagName || ""');

(haveBrowser ? describe : describe.skip)('one action in the console', () => {
  beforeAll(async () => {
    app = await startTestApp('console-action');
    worker = await startTestWorker(app.deps);
    const strategic = { entitlement: 'strategic', accessLayer: 2 } as const;
    proposer = await createTestKey(app, { ...strategic, name: 'Pat Proposer' });
    approver = await createTestKey(app, { ...strategic, name: 'Ann Approver' });
    other = await createTestKey(app, { ...strategic, name: 'Kim Other' });
    const rule = await call(app.url, 'POST', '/v1/admin/approval-rules/create', {
      key: app.adminKey,
      body: {
        name: 'signed approvals',
        match: { shared_context_id: signedContext },
        require_approver_signature: true,
      },
    });
    expect(rule.status).toBe(201);
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await worker?.stop();
    await app?.close();
  });

  const propose = (extra: { shared_context_id?: string; bounds?: Record<string, unknown> } = {}) =>
    proposeUpdate(app, proposer, {
      patch: { tier: 'critical' },
      attributes: { tier: 'standard' },
      reason: 'moved to the critical tier',
      ...extra,
    });
  const rejectByApi = async (id: string, reason: string) => {
    const res = await call(app.url, 'POST', `/v1/external-actions/${id}/reject`, {
      key: other.apiKey,
      body: { reason },
    });
    expect(res.status).toBe(200);
  };

  describe.each([
    { width: 375, height: 812 },
    { width: 1440, height: 900 },
  ])('at $width px', ({ width, height }) => {
    let page: Page;
    let problems: string[];
    beforeEach(async () => {
      page = await browser.newPage({ viewport: { width, height } });
      problems = problemsOf(page);
    });
    afterEach(async () => {
      await page.close();
    });
    const open = async (key: TestKey, id: string) => {
      await signInAt(page, app.url, key);
      await page.locator('#inbox-count').waitFor();
      await page.goto(`${app.url}/console#/action/${id}`);
      await page.locator(`.toolbar code[title="${id}"]`).waitFor();
    };

    it('clears the action when the next one fails to load: no stale action, no buttons', async () => {
      const id = await propose();
      await open(approver, id);
      await page.locator('#approve:not([disabled])').waitFor();
      await page.goto(`${app.url}/console#/action/${newId('act')}`);
      await page.locator('#banner:not([hidden])').waitFor();
      await expect(page.locator('#banner').textContent()).resolves.toMatch(/not found/i);
      await expect(page.locator('#view').textContent()).resolves.not.toContain(id);
      await expect(page.locator('#view button, #view textarea').count()).resolves.toBe(0);
    });

    it("shows a decision's result beside the buttons and gives it the focus", async () => {
      const id = await propose();
      await open(approver, id);
      await page.fill('#decision-reason', 'checked');
      await decide(page, 'approve');
      await page.locator('#decision-result', { hasText: 'approve recorded' }).waitFor();
      expect(await focused(page)).toBe('decision-result');
      expect(await resultGap(page)).toBeLessThan(80);
      expect(await inView(page, 'decision-result')).toBe(true);

      // Executed, the action is finished: the result stays where the buttons were, focused.
      await decide(page, 'execute');
      await page.locator('#decision-result', { hasText: 'execute recorded' }).waitFor();
      await page.locator('.toolbar .status.executed').waitFor();
      expect(await focused(page)).toBe('decision-result');
      expect(await inView(page, 'decision-result')).toBe(true);
      expect(problems).toEqual([]);
    });

    it('shows the decided status even when the first read after the decision lags behind', async () => {
      const id = await propose();
      await open(approver, id);
      await page.locator('#approve:not([disabled])').waitFor();
      // The decision's answer comes from the workflow, a read from the record it writes
      // next: under load the first read can still say awaiting_approval. Serve that.
      let decided = false;
      let staleReads = 0;
      await page.route(`**/v1/external-actions/${id}`, async (route) => {
        const response = await route.fetch();
        const body = (await response.json()) as { payload: { status: string } };
        if (decided && staleReads === 0) {
          staleReads += 1;
          body.payload.status = 'awaiting_approval';
        }
        await route.fulfill({ response, json: body });
      });
      await page.route(`**/v1/external-actions/${id}/approve`, async (route) => {
        const response = await route.fetch();
        decided = true;
        await route.fulfill({ response });
      });
      await page.fill('#decision-reason', 'checked');
      await decide(page, 'approve');
      await page.locator('#decision-result', { hasText: 'approve recorded' }).waitFor();
      expect(staleReads).toBe(1);
      await page.locator('#execute:not([disabled])').waitFor({ timeout: 10_000 });
      await page.locator('.toolbar .status.approved').waitFor();
    });

    it("shows a refused decision beside the buttons, focused, and the action's news", async () => {
      const id = await propose();
      await open(approver, id);
      await page.locator('#approve:not([disabled])').waitFor();
      await rejectByApi(id, 'someone else said no'); // the page still offers Approve
      await decide(page, 'approve');
      await page.locator('#decision-result.bad').waitFor();
      await expect(page.locator('#decision-result').textContent()).resolves.toMatch(/rejected/);
      expect(await focused(page)).toBe('decision-result');
      expect(await inView(page, 'decision-result')).toBe(true);
      await page.locator('.toolbar .status.rejected').waitFor();
    });

    it('says why a button is disabled', async () => {
      const id = await propose();
      await open(proposer, id);
      await expect(page.locator('#approve').isDisabled()).resolves.toBe(true);
      await expect(describedBy(page, 'approve')).resolves.toMatch(/you proposed it/);
      await expect(describedBy(page, 'execute')).resolves.toMatch(/1 more approval/);

      // Under a rule that needs the approver's own signature, without a passkey, on a page
      // that could make one (a host name, not an address).
      const signed = await propose({ shared_context_id: signedContext });
      const named = app.url.replace('127.0.0.1', 'localhost');
      await signInAt(page, named, approver);
      await page.goto(`${named}/console#/action/${signed}`);
      await page.locator('#approve[disabled]').waitFor();
      await expect(describedBy(page, 'approve')).resolves.toMatch(/this rule needs your signature/);
      await expect(page.locator('#reject').isDisabled()).resolves.toBe(true);
      await page.click('.decide a[href="#/keys"]');
      await page.locator('#keys-count').waitFor();
    });

    it('shows why a dry run failed, and no decision to take', async () => {
      const id = await propose({ bounds: { allowed_fields: ['owner'] } });
      await open(approver, id);
      await page.locator('.toolbar .status.dry_run_failed').waitFor();
      await expect(page.locator('#outcome').textContent()).resolves.toContain(
        'fields outside bounds.allowed_fields: tier',
      );
      await expect(page.locator('#decision-reason').count()).resolves.toBe(0);
    });

    it('shows a finished action its result, not a Decide box and a running window', async () => {
      const id = await propose();
      await rejectByApi(id, 'not this quarter');
      await open(approver, id);
      const outcome = await page.locator('#outcome').textContent();
      expect(outcome).toContain('Rejected by Kim Other');
      expect(outcome).toContain('not this quarter');
      await expect(page.locator('#decision-reason, #approve').count()).resolves.toBe(0);
      await expect(page.locator('#view').textContent()).resolves.not.toContain('Window ends');
    });

    it('says who is signed in', async () => {
      await signInAt(page, app.url, approver);
      await page.locator('#inbox-count').waitFor();
      const said = await page.locator('#key-state').textContent();
      expect(said).toContain('Ann Approver');
      expect(said).toContain(approver.keyId);
    });

    it('opens the action a link names once the person has signed in', async () => {
      const id = await propose();
      await page.goto(`${app.url}/console/#/action/${id}`);
      await expect(page.locator('#intro').textContent()).resolves.toContain(id);
      // A key the api refuses does not lose the link either.
      await page.fill('#key-input', 'not-a-key');
      await page.click('#key-use');
      await page.locator('#banner:not([hidden])').waitFor();
      await expect(page.locator('#intro').textContent()).resolves.toContain(id);
      await page.fill('#key-input', approver.apiKey);
      await page.click('#key-use');
      await page.locator(`.toolbar code[title="${id}"]`).waitFor();
      await page.locator('#approve:not([disabled])').waitFor();
    });
  });
});
