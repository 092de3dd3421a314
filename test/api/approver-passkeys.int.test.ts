import { newId } from '../../src/lib/ids';
import { challengeFor } from '../helpers/approver-keys';
import { proposeUpdate } from '../helpers/actions';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import {
  newSoftwarePasskey,
  passkeyAssertion,
  registrationCredential,
} from '../helpers/software-passkey';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';

// A passkey end to end on real WebAuthn bytes (a software authenticator): registered through
// the ceremony, then approving an action under a rule that requires approver signatures,
// checked by the api and again by the worker before the effect.
interface ActionView {
  action_id: string;
  status: string;
  decisions: unknown[];
}

let app: TestApp;
let worker: TestWorker;
let proposer: TestKey;
let ben: TestKey;
const passkey = newSoftwarePasskey();
const context = `ctx-passkey-${newId('tsk')}`;

beforeAll(async () => {
  app = await startTestApp('approver-passkeys');
  worker = await startTestWorker(app.deps);
  proposer = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
  ben = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
  const rule = await call(app.url, 'POST', '/v1/admin/approval-rules/create', {
    key: app.adminKey,
    body: {
      name: 'signed with a passkey',
      match: { shared_context_id: context },
      require_approver_signature: true,
    },
  });
  expect(rule.status).toBe(201);
});
afterAll(async () => {
  await worker.stop();
  await app.close();
});

const relyingParty = () => ({
  rpId: app.deps.config.webauthnRpId,
  origin: app.deps.config.webauthnOrigins[0],
});

describe('passkeys', () => {
  let keyId: string;

  // Node 24's WebCrypto has ML-DSA-44, which the WebAuthn library then offers first; its
  // signatures do not fit a decision body, so the service names the algorithms itself.
  it('offers EdDSA, ES256 and RS256 passkeys only, whatever the runtime supports', async () => {
    const options = await call<{ payload: { options: { pubKeyCredParams: { alg: number }[] } } }>(
      app.url,
      'POST',
      '/v1/principals/me/keys/passkey/options',
      { key: ben.apiKey },
    );
    expect(options.body.payload.options.pubKeyCredParams.map((p) => p.alg)).toEqual([-8, -7, -257]);
  });

  it('registers a passkey through the ceremony, once per challenge', async () => {
    const options = await call<{ payload: { nonce: string; options: { challenge: string } } }>(
      app.url,
      'POST',
      '/v1/principals/me/keys/passkey/options',
      { key: ben.apiKey },
    );
    expect(options.status).toBe(200);
    const body = {
      name: 'laptop',
      nonce: options.body.payload.nonce,
      credential: registrationCredential(passkey, {
        challenge: options.body.payload.options.challenge,
        ...relyingParty(),
      }),
    };
    const res = await call<{ payload: { key_id: string; kind: string; status: string } }>(
      app.url,
      'POST',
      '/v1/principals/me/keys/passkey/register',
      { key: ben.apiKey, body },
    );
    expect(res.status).toBe(201);
    expect(res.body.payload).toMatchObject({
      kind: 'passkey',
      status: 'active',
      last_used_at: null,
    });
    keyId = res.body.payload.key_id;
    // The same ceremony again: the challenge was used.
    const again = await call(app.url, 'POST', '/v1/principals/me/keys/passkey/register', {
      key: ben.apiKey,
      body,
    });
    expect(again.status).toBe(403);
  });

  const lastUsed = async () =>
    (
      await call<{ payload: { items: { key_id: string; last_used_at: string | null }[] } }>(
        app.url,
        'GET',
        '/v1/principals/me/keys',
        { key: ben.apiKey },
      )
    ).body.payload.items.find((k) => k.key_id === keyId)?.last_used_at;

  it('approves with the passkey; the worker checks it again and the action executes', async () => {
    const id = await proposeUpdate(app, proposer, {
      patch: { status: 'published' },
      bounds: { required_approvals: 1 },
      shared_context_id: context,
    });
    const assertion = (
      challenge: { nonce: string; expires_at: string },
      webauthnChallenge: string,
    ) => ({
      approver_assertion: {
        key_id: keyId,
        nonce: challenge.nonce,
        expires_at: challenge.expires_at,
        webauthn: passkeyAssertion(passkey, { challenge: webauthnChallenge, ...relyingParty() }),
      },
    });
    // Signed over another challenge: refused, nothing recorded, and the challenge is spent.
    const spent = await challengeFor(app, ben, id);
    const wrong = await call(app.url, 'POST', `/v1/external-actions/${id}/approve`, {
      key: ben.apiKey,
      body: assertion(spent, Buffer.from('another challenge').toString('base64url')),
    });
    expect(wrong.status).toBe(403);
    expect(await lastUsed()).toBeNull();
    const challenge = await challengeFor(app, ben, id);
    const approved = await call<{ payload: ActionView }>(
      app.url,
      'POST',
      `/v1/external-actions/${id}/approve`,
      { key: ben.apiKey, body: assertion(challenge, challenge.webauthn_challenge) },
    );
    expect(approved.status).toBe(200);
    expect(approved.body.payload.status).toBe('approved');
    // The key's last use is the approval just taken (the refused one did not count).
    expect(Date.parse((await lastUsed()) ?? '')).toBeGreaterThan(Date.now() - 60_000);
    const executed = await call<{ payload: ActionView }>(
      app.url,
      'POST',
      `/v1/external-actions/${id}/execute`,
      { key: ben.apiKey, body: {} },
    );
    expect(executed.status).toBe(200);
    expect(executed.body.payload.status).toBe('executed');
  });
});
