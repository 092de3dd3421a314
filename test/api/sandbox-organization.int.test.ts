import { call } from '../helpers/http';
import { createTestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';

/**
 * The `sandbox` organization holds every self-service key: suspending or archiving it needs
 * `confirm` naming it, and the refusal says how many keys it would stop (issue 40).
 */
let app: TestApp;
let sandboxId: string;
beforeAll(async () => {
  app = await startTestApp('sandbox_org');
  const sandbox = await app.deps.repos.organizations.findByName('sandbox');
  sandboxId = sandbox!._id;
});
afterAll(() => app.close());

interface Answer {
  payload: { item: { status: string }; previous_status: string };
  error: { code: string; message: string; active_keys?: number };
  detail: { loc: string[]; msg: string }[];
}

const setStatus = (body: Record<string, unknown>) =>
  call<Answer>(app.url, 'POST', '/v1/admin/organizations/status', { key: app.adminKey, body });
const works = async (apiKey: string) =>
  (await call(app.url, 'GET', '/v1/principals/me', { key: apiKey })).status;
const activeSandboxKeys = () =>
  app.deps.db
    .collection('api_keys')
    .countDocuments({ organization_id: sandboxId, status: 'active' });

describe('the sandbox organization', () => {
  it('is not suspended or archived without confirm: the refusal says how many keys it would stop', async () => {
    const holder = await createTestKey(app, { entitlement: 'sandbox', accessLayer: 0 });
    await createTestKey(app, { entitlement: 'sandbox', accessLayer: 0 });
    const keys = await activeSandboxKeys();
    expect(keys).toBeGreaterThanOrEqual(2);
    for (const status of ['suspended', 'archived']) {
      const refused = await setStatus({ organization_id: sandboxId, status });
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('invalid_state');
      expect(refused.body.error.message).toContain('sandbox');
      expect(refused.body.error.message).toContain(`${keys} active keys`);
      expect(refused.body.error.message).toContain('confirm: "sandbox"');
      expect(refused.body.error.active_keys).toBe(keys);
    }
    expect(await works(holder.apiKey)).toBe(200);
    const organization = await app.deps.repos.organizations.findById(sandboxId);
    expect(organization!.status).toBe('active');
  });

  it('a confirm that does not name the organization is 422 and changes nothing', async () => {
    const wrong = await setStatus({
      organization_id: sandboxId,
      status: 'archived',
      confirm: 'yes',
    });
    expect(wrong.status).toBe(422);
    expect(wrong.body.detail[0].loc).toEqual(['body', 'confirm']);
    expect((await app.deps.repos.organizations.findById(sandboxId))!.status).toBe('active');
  });

  it('with confirm naming it, it is suspended (its keys answer 401) and brought back without one', async () => {
    const holder = await createTestKey(app, { entitlement: 'sandbox', accessLayer: 0 });
    const suspended = await setStatus({
      organization_id: sandboxId,
      status: 'suspended',
      confirm: 'sandbox',
    });
    expect(suspended.status).toBe(200);
    expect(suspended.body.payload.item.status).toBe('suspended');
    expect(await works(holder.apiKey)).toBe(401);
    const restored = await setStatus({ organization_id: sandboxId, status: 'active' });
    expect(restored.status).toBe(200);
    expect(await works(holder.apiKey)).toBe(200);
  });

  it('another organization needs no confirm', async () => {
    const created = await call<{ payload: { organization_id: string } }>(
      app.url,
      'POST',
      '/v1/admin/organizations/create',
      { key: app.adminKey, body: { name: `plain-${Date.now()}` } },
    );
    const archived = await setStatus({
      organization_id: created.body.payload.organization_id,
      status: 'archived',
    });
    expect(archived.status).toBe(200);
  });
});
