import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { newId } from '../../src/lib/ids';
import { proposeUpdate } from '../helpers/actions';
import { browserAvailable, launchBrowser } from '../helpers/browser';
import { decide, horizontalOverflow, problemsOf, signIn } from '../helpers/console-page';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { freePort, startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';

// Passkeys in the console, in a real headless Chromium whose authenticator is a CDP virtual
// one (WebAuthn domain: CTAP2, internal, resident keys, user verification that succeeds).
// The page is served as http://localhost:<port>, the relying party's origin
// (WEBAUTHN_RP_ID=localhost): a passkey is registered in the page, approves an action under
// a rule requiring the approver's own signature, and the action executes; the ledger keeps
// the assertion. An approver without a key sees the api's 403; a page at another origin says
// why it cannot make a passkey; the keys view works at 375 px by keyboard.
const haveBrowser = browserAvailable('console passkeys browser test');
const SHOTS = join(__dirname, '../../.data/test/screenshots');

interface KeyView {
  key_id: string;
  kind: string;
  status: string;
  fingerprint: string;
  last_used_at: string | null;
}

let app: TestApp;
let worker: TestWorker;
let browser: Browser;
let origin: string;
let proposer: TestKey;
let ann: TestKey;
let kim: TestKey;
const context = `ctx-console-passkey-${newId('tsk')}`;
const RULE = 'payments need the approver’s passkey';

/**
 * Waits until Execute is enabled; if it never is, fails saying what the page and the api
 * show (the decision's result line, the status on the page and in the record), so a
 * failure on a loaded machine explains itself.
 */
async function executable(page: Page, actionId: string): Promise<void> {
  try {
    await page.locator('#execute:not([disabled])').waitFor({ timeout: 45_000 });
  } catch (error) {
    const text = (selector: string) =>
      page
        .locator(selector)
        .first()
        .textContent({ timeout: 1_000 })
        .catch(() => '(none)');
    const record = await call<{ payload?: { status?: string } }>(
      app.url,
      'GET',
      `/v1/external-actions/${actionId}`,
      { key: app.adminKey },
    );
    throw new Error(
      `Execute never enabled: result "${await text('#decision-result')}", page status "${await text('.toolbar .status')}", banner "${await text('#banner')}", record status ${record.body.payload?.status ?? record.status}`,
      { cause: error },
    );
  }
}

(haveBrowser ? describe : describe.skip)('passkeys in the console', () => {
  beforeAll(async () => {
    const port = await freePort();
    origin = `http://localhost:${port}`;
    app = await startTestApp('console-passkeys', {
      port,
      env: { WEBAUTHN_RP_ID: 'localhost', WEBAUTHN_ORIGINS: origin },
    });
    worker = await startTestWorker(app.deps);
    const strategic = { entitlement: 'strategic', accessLayer: 2 } as const;
    proposer = await createTestKey(app, { ...strategic, name: 'Pat Proposer' });
    ann = await createTestKey(app, { ...strategic, name: 'Ann Approver' });
    kim = await createTestKey(app, { ...strategic, name: 'Kim Keyless' });
    const rule = await call(app.url, 'POST', '/v1/admin/approval-rules/create', {
      key: app.adminKey,
      body: { name: RULE, match: { shared_context_id: context }, require_approver_signature: true },
    });
    expect(rule.status).toBe(201);
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
      patch: { status: 'published' },
      bounds: { required_approvals: 1 },
      shared_context_id: context,
    });
  const keysOf = async (who: TestKey) =>
    (
      await call<{ payload: { items: KeyView[] } }>(app.url, 'GET', '/v1/principals/me/keys', {
        key: who.apiKey,
      })
    ).body.payload.items;
  /** An action's status (from the api) and the approver assertion its ledger keeps. */
  async function recordOf(actionId: string) {
    const [action, ledger] = await Promise.all([
      call<{ payload: { status: string } }>(app.url, 'GET', `/v1/external-actions/${actionId}`, {
        key: ann.apiKey,
      }),
      call<{
        payload: {
          items: {
            detail: { decision?: { approver_assertion?: { key_id: string; webauthn?: object } } };
          }[];
        };
      }>(app.url, 'GET', `/v1/external-actions/history?action_id=${actionId}&limit=100`, {
        key: ann.apiKey,
      }),
    ]);
    const assertion = ledger.body.payload.items.find((e) => e.detail.decision?.approver_assertion)
      ?.detail.decision?.approver_assertion;
    return { status: action.body.payload.status, assertion };
  }

  /**
   * Waits for a result line of the keys view (`#passkey-result` under the register form,
   * `#keys-result` under the key table) to say `text` (it says "Confirm with…" first) and
   * hold the focus, as the result of what was just done; fails with what it and the banner say.
   */
  const keysSay = async (page: Page, line: string, text: string | RegExp) => {
    await page
      .locator(line, { hasText: text })
      .waitFor({ timeout: 15_000 })
      .catch(async () => {
        const [said, banner] = await Promise.all(
          [line, '#banner'].map((at) => page.locator(at).textContent()),
        );
        throw new Error(`${line} says "${said}", the banner "${banner}"`);
      });
    await expect(page.evaluate('document.activeElement.id')).resolves.toBe(line.slice(1));
  };

  /** Waits for a decision's result, beside the buttons, to say `text`; fails with what it says. */
  const resultSays = async (page: Page, text: string | RegExp) => {
    const line = page.locator('#decision-result', { hasText: text });
    await line.waitFor({ timeout: 15_000 }).catch(async () => {
      throw new Error(`the result says "${await page.locator('#decision-result').textContent()}"`);
    });
  };

  /** A page whose browser holds a virtual platform authenticator that verifies the user. */
  async function pageWithAuthenticator(
    width: number,
  ): Promise<{ page: Page; cdp: CDPSession; authenticatorId: string }> {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
      },
    });
    return { page, cdp, authenticatorId };
  }

  it('registers a passkey, approves (and rejects) with it under a signature rule; the action executes', async () => {
    const { page, cdp, authenticatorId } = await pageWithAuthenticator(1440);
    const problems = problemsOf(page);
    await signIn(page, origin, ann);
    await page.click('a[data-nav="keys"]');
    await page.locator('#keys-empty').waitFor();
    await page.fill('#passkey-name', 'test laptop');
    await page.click('#passkey-register');
    await keysSay(page, '#passkey-result', 'Passkey “test laptop” registered.');
    await expect(page.locator('#keys-count').textContent()).resolves.toBe('Your keys: 1 active');

    const [key] = await keysOf(ann);
    expect(key).toMatchObject({ kind: 'passkey', status: 'active', last_used_at: null });
    // The credential the browser's authenticator holds is the one the api registered.
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(
      credentials.map((c) => Buffer.from(c.credentialId, 'base64').toString('base64url')),
    ).toEqual([key.fingerprint]);
    const row = page.locator(`tr[data-id="${key.key_id}"]`);
    await expect(row.textContent()).resolves.toMatch(/test laptop.*passkey.*never.*active/);

    const actionId = await propose();
    await page.goto(`${origin}/console#/action/${actionId}`);
    await page.locator('#approve:not([disabled])').waitFor();
    await expect(page.locator('#signature-rule').textContent()).resolves.toContain('passkey');
    await page.fill('#decision-reason', 'signed on my laptop');
    await decide(page, 'approve');
    await executable(page, actionId);
    await resultSays(page, 'approve recorded, signed with your passkey');
    await decide(page, 'execute');
    await page.locator('.toolbar .status.executed').waitFor({ timeout: 15_000 });

    // The api says executed; the ledger keeps the approver's WebAuthn assertion.
    const approved = await recordOf(actionId);
    expect(approved.status).toBe('executed');
    expect(approved.assertion?.key_id).toBe(key.key_id);
    expect(approved.assertion?.webauthn).toMatchObject({ credential_id: key.fingerprint });

    // Reject signs the same way (after its confirmation).
    const rejectedId = await propose();
    await page.goto(`${origin}/console#/action/${rejectedId}`);
    await page.locator('#reject:not([disabled])').waitFor();
    await page.fill('#decision-reason', 'not this week');
    await decide(page, 'reject');
    await page.locator('.toolbar .status.rejected').waitFor();
    await resultSays(page, 'reject recorded, signed with your passkey');
    const rejected = await recordOf(rejectedId);
    expect(rejected.status).toBe('rejected');
    expect(rejected.assertion?.key_id).toBe(key.key_id);

    // The proof check verifies the approval's assertion offline.
    const proof = await call<{ payload: { results: { status: string; checked: number }[] } }>(
      app.url,
      'POST',
      '/v1/proofs/checks',
      { key: app.adminKey, body: { checks: ['approver_signatures'] } },
    );
    expect(proof.body.payload.results[0]).toMatchObject({ status: 'passed' });
    expect(proof.body.payload.results[0].checked).toBeGreaterThanOrEqual(1);

    // The keys view now says when the passkey was last used; revoking it asks first.
    await page.click('a[data-nav="keys"]');
    await expect(row.textContent()).resolves.not.toContain('never');
    await page.screenshot({ path: join(SHOTS, 'console-keys.png') });
    await page.click(`button[data-revoke="${key.key_id}"]`);
    await page.click('#confirm-yes');
    await keysSay(page, '#keys-result', 'Key “test laptop” revoked.');
    await expect(page.locator('#keys-count').textContent()).resolves.toBe('Your keys: 0 active');
    expect((await keysOf(ann))[0]).toMatchObject({ status: 'revoked' });
    expect((await keysOf(ann))[0].last_used_at).not.toBeNull();
    expect(problems).toEqual([]);
    await page.close();
  }, 120_000);

  it("tells an approver without a passkey to register one; a passkey revoked meanwhile gets the api's 403", async () => {
    const actionId = await propose();
    const { page } = await pageWithAuthenticator(1440);
    await signIn(page, origin, kim);
    await page.goto(`${origin}/console#/action/${actionId}`);
    await page.locator('#approve[disabled]').waitFor();
    await expect(page.locator('#reject').isDisabled()).resolves.toBe(true);
    await expect(page.locator('#why-approve').textContent()).resolves.toBe(
      'Approve, Reject: this rule needs your signature; register a passkey in Your keys',
    );

    // Lee registers a passkey and opens the action; the passkey is revoked (elsewhere)
    // before Lee approves: the decision goes without a signature and the api refuses it.
    const lee = await createTestKey(app, {
      entitlement: 'strategic',
      accessLayer: 2,
      name: 'Lee Later',
    });
    await signIn(page, origin, lee);
    await page.goto(`${origin}/console#/keys`);
    await page.fill('#passkey-name', 'soon revoked');
    await page.click('#passkey-register');
    await keysSay(page, '#passkey-result', 'Passkey “soon revoked” registered.');
    await page.goto(`${origin}/console#/action/${actionId}`);
    await page.locator('#approve:not([disabled])').waitFor();
    const [key] = await keysOf(lee);
    const revoked = await call(app.url, 'POST', '/v1/principals/me/keys/revoke', {
      key: lee.apiKey,
      body: { key_id: key.key_id },
    });
    expect(revoked.status).toBe(200);
    await decide(page, 'approve');
    await resultSays(page, /requires the approver's own signature to approve/);
    const said = (await page.locator('#decision-result').textContent()) ?? '';
    expect(said).toContain(`approval rule "${RULE}"`);
    expect(said).toContain('/v1/principals/me/keys/register');
    expect(said).toContain('Your keys → Register a passkey');
    const action = await call<{ payload: { status: string; approvals: unknown[] } }>(
      app.url,
      'GET',
      `/v1/external-actions/${actionId}`,
      { key: kim.apiKey },
    );
    expect(action.body.payload).toMatchObject({ status: 'awaiting_approval', approvals: [] });
    await page.close();
  });

  it('says a passkey cannot be made for a relying party elsewhere, or for an IP address', async () => {
    const { page } = await pageWithAuthenticator(1440);
    // A relying party elsewhere, and an operator who named the api by its address.
    const cases: { env: (port: number) => Record<string, string>; says: string }[] = [
      {
        env: () => ({ WEBAUTHN_RP_ID: 'example.com' }),
        says: "the page must be served from the relying party's origin (WEBAUTHN_RP_ID=example.com",
      },
      {
        env: (port) => ({ PUBLIC_BASE_URL: `http://127.0.0.1:${port}` }),
        says: 'Passkeys cannot belong to an IP address (WEBAUTHN_RP_ID=127.0.0.1)',
      },
    ];
    for (const { env, says } of cases) {
      const port = await freePort();
      const other = await startTestApp('console-passkeys-rp', {
        dbName: app.dbName,
        port,
        env: env(port),
      });
      try {
        const named = `http://localhost:${port}`;
        await signIn(page, named, kim);
        await page.goto(`${named}/console#/keys`);
        await page.fill('#passkey-name', 'nowhere');
        await page.click('#passkey-register');
        await keysSay(page, '#passkey-result', says);
        await expect(keysOf(kim)).resolves.toEqual([]);
      } finally {
        await other.stop();
      }
    }
    await page.close();
  });

  it('works at 375 px by keyboard: no horizontal scroll, visible focus, register and revoke', async () => {
    const { page } = await pageWithAuthenticator(375);
    const problems = problemsOf(page);
    await signIn(page, origin, kim);
    await page.goto(`${origin}/console#/keys`);
    await page.locator('#keys-empty').waitFor();
    await page.focus('#passkey-name');
    await page.keyboard.type('phone');
    await page.keyboard.press('Enter');
    await keysSay(page, '#passkey-result', 'Passkey “phone” registered.');
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);

    // Tab from the name field to the register button, then on to the key's Revoke button.
    await page.focus('#passkey-name');
    await page.keyboard.press('Tab');
    await expect(page.evaluate('document.activeElement.id')).resolves.toBe('passkey-register');
    await page.keyboard.press('Tab');
    await expect(
      page.evaluate(
        '[document.activeElement.dataset.revoke !== undefined, getComputedStyle(document.activeElement).outlineStyle]',
      ),
    ).resolves.toEqual([true, 'solid']);
    await page.keyboard.press('Enter');
    await page.locator('dialog#confirm[open]').waitFor();
    await page.keyboard.press('Tab'); // from Cancel to Revoke
    await page.keyboard.press('Enter');
    await keysSay(page, '#keys-result', 'Key “phone” revoked.');
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    expect(problems).toEqual([]);
    await page.close();
  });
});
