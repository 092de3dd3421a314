import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';

// GET /v1/principals/me: who the calling key is, for any valid key.

interface Me {
  key: { key_id: string; entitlement: string; access_layer: string; status: string };
  principal: { principal_id: string; name: string; role: string; status: string };
  organization: { organization_id: string; name: string; status: string };
  access: { role: string; entitlement: string; access_layer: string; families: string[] };
  limits: { requests_per_minute: number; daily_quota: number };
  links: { temporal_ui: string };
}
type Answer = { ok: boolean; payload: Me; error?: { code: string; message: string } };

let app: TestApp;
let member: TestKey;

beforeAll(async () => {
  app = await startTestApp('principals');
  member = await createTestKey(app, {
    entitlement: 'institutional',
    accessLayer: 1,
    name: 'Ada Member',
  });
});
afterAll(() => app.close());

const me = (key?: string) => call<Answer>(app.url, 'GET', '/v1/principals/me', { key });

it("answers a member key's id, principal, organization, families and limits", async () => {
  const { status, body } = await me(member.apiKey);
  expect(status).toBe(200);
  expect(body.payload).toMatchObject({
    key: { key_id: member.keyId, entitlement: 'institutional', access_layer: 'layer1_public' },
    principal: { principal_id: member.principalId, name: 'Ada Member', role: 'member' },
    access: { role: 'member', entitlement: 'institutional', access_layer: 'layer1_public' },
    limits: { requests_per_minute: 600, daily_quota: 50_000 },
  });
  expect(body.payload.organization.organization_id).toMatch(/^org_/);
  expect(body.payload.links.temporal_ui).toMatch(/^https?:\/\//);
  // Families at its class and layer, none above them, none operator-only, none planned.
  expect(body.payload.access.families).toEqual(
    expect.arrayContaining(['principals_self', 'sessions', 'runtime_witness', 'assays']),
  );
  for (const family of ['external_action_proposal', 'admin_ops', 'witness_future']) {
    expect(body.payload.access.families).not.toContain(family);
  }
});

it('names the admin families for an operator key', async () => {
  const { status, body } = await me(app.adminKey);
  expect(status).toBe(200);
  expect(body.payload.principal.role).toBe('operator');
  expect(body.payload.key).toMatchObject({
    entitlement: 'strategic',
    access_layer: 'layer3_partner',
  });
  expect(body.payload.access.families).toEqual(
    expect.arrayContaining(['admin_control_plane', 'admin_ops', 'external_action_proposal']),
  );
});

it('refuses a missing or malformed key with 401 and says which', async () => {
  const missing = await me();
  expect(missing.status).toBe(401);
  expect(missing.body.error).toMatchObject({
    code: 'unauthorized',
    message: 'missing X-API-Key header',
  });
  const malformed = await me('not-a-key');
  expect(malformed.status).toBe(401);
  expect(malformed.body.error?.message).toBe('malformed API key');
});

it('stops answering once the key is suspended', async () => {
  const suspended = await createTestKey(app, { entitlement: 'sandbox', accessLayer: 0 });
  expect((await me(suspended.apiKey)).status).toBe(200);
  const change = await call(app.url, 'POST', '/v1/admin/keys/status', {
    key: app.adminKey,
    body: { key_id: suspended.keyId, status: 'suspended' },
  });
  expect(change.status).toBe(200);
  expect((await me(suspended.apiKey)).status).toBe(401);
});
