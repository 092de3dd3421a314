import { createPublicKey } from 'node:crypto';
import { newApproverKeyPair, registerApproverKey } from '../helpers/approver-keys';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';

// Approver keys: registered, listed and revoked by their principal, listed and revoked by
// operators, audited (docs/approvals.md, "Approver keys").
interface KeyView {
  key_id: string;
  principal_id: string;
  kind: string;
  public_key: string;
  fingerprint: string;
  status: string;
  revoked_by: string | null;
}

let app: TestApp;
let ada: TestKey;
let ben: TestKey;
beforeAll(async () => {
  app = await startTestApp('approver-keys');
  ada = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
  ben = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
});
afterAll(() => app.close());

const mine = (who: TestKey) =>
  call<{ payload: { items: KeyView[] } }>(app.url, 'GET', '/v1/principals/me/keys', {
    key: who.apiKey,
  });

describe('approver keys', () => {
  it('registers an OpenSSH Ed25519 key with its ssh fingerprint, lists it, and audits it', async () => {
    const pair = newApproverKeyPair();
    const keyId = await registerApproverKey(app, ada, pair);
    const listed = (await mine(ada)).body.payload.items;
    const key = listed.find((k) => k.key_id === keyId)!;
    expect(key).toMatchObject({
      principal_id: ada.principalId,
      kind: 'ed25519',
      public_key: pair.hex,
      status: 'active',
    });
    expect(key.fingerprint).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
    // Ben sees none of Ada's keys.
    expect((await mine(ben)).body.payload.items.map((k) => k.key_id)).not.toContain(keyId);
    const audit = await app.deps.repos.audit.list({ target_id: keyId }, 10);
    expect(JSON.stringify(audit)).toContain('approver_key.register');
  });

  it('takes the same key as PEM, hex or base64, and refuses it twice (409) or a non-Ed25519 key (422)', async () => {
    const pair = newApproverKeyPair();
    const pem = createPublicKey(pair.privateKey).export({ format: 'pem', type: 'spki' }).toString();
    const first = await call<{ payload: KeyView }>(
      app.url,
      'POST',
      '/v1/principals/me/keys/register',
      {
        key: ben.apiKey,
        body: { name: 'pem', public_key: pem },
      },
    );
    expect(first.status).toBe(201);
    expect(first.body.payload.public_key).toBe(pair.hex);
    for (const form of [pair.hex, Buffer.from(pair.hex, 'hex').toString('base64')]) {
      const again = await call(app.url, 'POST', '/v1/principals/me/keys/register', {
        key: ben.apiKey,
        body: { name: 'again', public_key: form },
      });
      expect(again.status).toBe(409);
    }
    const rsa = await call<{ detail: { msg: string }[] }>(
      app.url,
      'POST',
      '/v1/principals/me/keys/register',
      {
        key: ben.apiKey,
        body: { name: 'rsa', public_key: 'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQC7 x@y' },
      },
    );
    expect(rsa.status).toBe(422);
    expect(rsa.body.detail[0].msg).toMatch(/only ssh-ed25519/);
  });

  it('lets the principal revoke only their own key, and operators any key', async () => {
    const adaKey = await registerApproverKey(app, ada, newApproverKeyPair());
    const notBens = await call(app.url, 'POST', '/v1/principals/me/keys/revoke', {
      key: ben.apiKey,
      body: { key_id: adaKey },
    });
    expect(notBens.status).toBe(422);
    const revoked = await call<{ payload: KeyView }>(
      app.url,
      'POST',
      '/v1/principals/me/keys/revoke',
      {
        key: ada.apiKey,
        body: { key_id: adaKey },
      },
    );
    expect(revoked.status).toBe(200);
    expect(revoked.body.payload).toMatchObject({ status: 'revoked', revoked_by: ada.principalId });
    const twice = await call(app.url, 'POST', '/v1/principals/me/keys/revoke', {
      key: ada.apiKey,
      body: { key_id: adaKey },
    });
    expect(twice.status).toBe(409);

    const benKey = await registerApproverKey(app, ben, newApproverKeyPair());
    const listed = await call<{ payload: { items: KeyView[] } }>(
      app.url,
      'GET',
      `/v1/admin/approver-keys?principal_id=${ben.principalId}&status=active`,
      { key: app.adminKey },
    );
    expect(listed.status).toBe(200);
    expect(listed.body.payload.items.map((k) => k.key_id)).toContain(benKey);
    const byOperator = await call<{ payload: KeyView }>(
      app.url,
      'POST',
      '/v1/admin/approver-keys/revoke',
      {
        key: app.adminKey,
        body: { key_id: benKey },
      },
    );
    expect(byOperator.status).toBe(200);
    expect(byOperator.body.payload.status).toBe('revoked');
    const unknown = await call(app.url, 'POST', '/v1/admin/approver-keys/revoke', {
      key: app.adminKey,
      body: { key_id: 'apk_01JZZZZZZZZZZZZZZZZZZZZZZZ' },
    });
    expect(unknown.status).toBe(404);
    // Members may not use the operators' routes.
    const member = await call(app.url, 'GET', '/v1/admin/approver-keys', { key: ben.apiKey });
    expect(member.status).toBe(403);
  });

  it('gives passkey creation options that require user verification', async () => {
    const res = await call<{ payload: { nonce: string; options: Record<string, unknown> } }>(
      app.url,
      'POST',
      '/v1/principals/me/keys/passkey/options',
      { key: ada.apiKey },
    );
    expect(res.status).toBe(200);
    expect(res.body.payload.nonce).toMatch(/^ach_/);
    expect(res.body.payload.options).toMatchObject({
      authenticatorSelection: { userVerification: 'required' },
      rp: { id: app.deps.config.webauthnRpId },
    });
    const forged = await call(app.url, 'POST', '/v1/principals/me/keys/passkey/register', {
      key: ada.apiKey,
      body: {
        name: 'forged',
        nonce: res.body.payload.nonce,
        credential: {
          id: 'AAAA',
          raw_id: 'AAAA',
          client_data_json: 'e30',
          attestation_object: 'oA',
        },
      },
    });
    expect(forged.status).toBe(403);
  });
});
