import type { Browser, Page } from 'playwright-core';
import { browserAvailable, launchBrowser } from '../helpers/browser';
import { signIn } from '../helpers/console-page';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { freePort, startTestApp, type TestApp } from '../helpers/test-app';

// Passkeys work in the console as the api comes, with nothing configured for WebAuthn: an
// api listening on 127.0.0.1 names itself http://localhost:<port> (PUBLIC_BASE_URL's
// default), so its relying party is `localhost` and the console opened there registers a
// passkey (Chromium's CDP virtual authenticator). Opened by address, or in a browser without
// WebAuthn, the page disables "Register a passkey" and says why before anyone clicks.
const haveBrowser = browserAvailable('console passkeys by default browser test');

let app: TestApp;
let browser: Browser;
let port: number;
let dee: TestKey;

(haveBrowser ? describe : describe.skip)('passkeys in the console by default', () => {
  beforeAll(async () => {
    port = await freePort();
    // PORT as an operator sets it; no PUBLIC_BASE_URL, no WEBAUTHN_RP_ID, no WEBAUTHN_ORIGINS.
    app = await startTestApp('console-passkeys-default', { port, env: { PORT: String(port) } });
    dee = await createTestKey(app, {
      entitlement: 'strategic',
      accessLayer: 2,
      name: 'Dee Default',
    });
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  const keysOf = async (who: TestKey) =>
    (
      await call<{ payload: { items: { kind: string; status: string }[] } }>(
        app.url,
        'GET',
        '/v1/principals/me/keys',
        { key: who.apiKey },
      )
    ).body.payload.items;

  /** The register button's state and the reason it points at (`aria-describedby`). */
  const registerButton = (page: Page) =>
    page.evaluate<{ disabled: boolean; reason: string | null; shown: boolean }>(`(() => {
      const button = document.getElementById('passkey-register');
      const reason = document.getElementById(button.getAttribute('aria-describedby'));
      return {
        disabled: button.disabled,
        reason: reason?.textContent ?? null,
        shown: Boolean(reason?.offsetHeight),
      };
    })()`);

  it('names the api localhost, the relying party of its passkeys', () => {
    expect(app.deps.config).toMatchObject({
      publicBaseUrl: `http://localhost:${port}`,
      webauthnRpId: 'localhost',
      webauthnOrigins: [`http://localhost:${port}`],
    });
  });

  it('disables "Register a passkey" on a page served from an IP address, saying where to go', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const byAddress = `http://127.0.0.1:${port}`;
    await signIn(page, byAddress, dee);
    await page.goto(`${byAddress}/console#/keys`);
    await page.locator('#keys-empty').waitFor();
    const button = await registerButton(page);
    expect(button).toMatchObject({ disabled: true, shown: true });
    expect(button.reason).toContain('Passkeys cannot belong to an IP address');
    expect(button.reason).toContain(`open the console at http://localhost:${port}/console#/keys`);
    await page.close();
  });

  it('disables it in a browser without WebAuthn (no PublicKeyCredential)', async () => {
    const page = await browser.newPage({ viewport: { width: 375, height: 812 } });
    await page.addInitScript('delete window.PublicKeyCredential');
    const named = `http://localhost:${port}`;
    await signIn(page, named, dee);
    await page.goto(`${named}/console#/keys`);
    await page.locator('#keys-empty').waitFor();
    const button = await registerButton(page);
    expect(button).toMatchObject({ disabled: true, shown: true });
    expect(button.reason).toContain('This browser has no passkey support');
    await page.close();
  });

  it('registers a passkey at http://localhost:<port>, the address the api gives', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
      },
    });
    const named = `http://localhost:${port}`;
    await signIn(page, named, dee);
    await page.goto(`${named}/console#/keys`);
    await page.locator('#keys-empty').waitFor();
    await expect(registerButton(page)).resolves.toMatchObject({ disabled: false, reason: null });
    await page.fill('#passkey-name', 'laptop');
    await page.click('#passkey-register');
    // The result under the register button, where the eyes are, not the banner at the top.
    await page.locator('#passkey-result', { hasText: 'Passkey “laptop” registered.' }).waitFor();
    await expect(page.locator('#banner').isHidden()).resolves.toBe(true);
    await expect(keysOf(dee)).resolves.toMatchObject([{ kind: 'passkey', status: 'active' }]);
    await page.close();
  });
});
