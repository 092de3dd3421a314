import { storedIn } from '../helpers/collections';
import { call } from '../helpers/http';
import { startTestApp, type TestApp } from '../helpers/test-app';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp('admin_keys');
});
afterAll(() => app.close());

type Payload = { payload: Record<string, unknown>; error?: { code: string } };

describe('POST /v1/admin/principals/create and /v1/admin/keys/create', () => {
  it('creates a principal and a key whose secret is shown once, auditing both without secrets', async () => {
    const principal = await call<Payload>(app.url, 'POST', '/v1/admin/principals/create', {
      key: app.adminKey,
      body: { name: 'Grace', email: 'Grace@Example.test', role: 'member' },
    });
    expect(principal.status).toBe(201);
    expect(principal.body.payload).toMatchObject({
      name: 'Grace',
      role: 'member',
      status: 'active',
    });
    const principalId = principal.body.payload['principal_id'] as string;

    const key = await call<Payload>(app.url, 'POST', '/v1/admin/keys/create', {
      key: app.adminKey,
      body: {
        principal_id: principalId,
        entitlement: 'institutional',
        access_layer: 'layer1_public',
        label: 'ci',
      },
    });
    expect(key.status).toBe(201);
    const apiKey = key.body.payload['api_key'] as string;
    expect(key.body.payload).toMatchObject({
      principal_id: principalId,
      entitlement: 'institutional',
      access_layer: 'layer1_public',
      label: 'ci',
      status: 'active',
      limits: { requests_per_minute: 600, daily_quota: 50000 },
    });
    expect((await call(app.url, 'GET', '/v1/runtime/status', { key: apiKey })).status).toBe(200);

    const rows = await storedIn(app.deps.db)
      .audit.find({ action: { $in: ['principal.create', 'key.create'] } })
      .toArray();
    expect(rows.map((r) => r.action).sort()).toEqual(['key.create', 'principal.create']);
    for (const row of rows) {
      expect(row.before).toBeNull();
      expect(row.after).toBeTruthy();
      expect(row.actor.principal_id).toBeTruthy();
      expect(row.request_id).toBeTruthy();
    }
    const everything =
      JSON.stringify(rows) +
      JSON.stringify(await app.deps.db.collection<{ _id: string }>('api_keys').find().toArray());
    expect(everything).not.toContain(apiKey);
    expect(everything).not.toContain(app.adminKey);
  });

  it('answers 409 for a taken e-mail, 404 for an unknown principal, 422 for a past expiry or a bad layer', async () => {
    const body = { name: 'Dup', email: 'dup@example.test', role: 'member' };
    expect(
      (await call(app.url, 'POST', '/v1/admin/principals/create', { key: app.adminKey, body }))
        .status,
    ).toBe(201);
    const again = await call<Payload>(app.url, 'POST', '/v1/admin/principals/create', {
      key: app.adminKey,
      body: { ...body, email: 'DUP@example.test' },
    });
    expect(again.status).toBe(409);
    const unknown = await call(app.url, 'POST', '/v1/admin/keys/create', {
      key: app.adminKey,
      body: {
        principal_id: 'prn_01JABCDEFGHJKMNPQRSTVWXYZ0',
        entitlement: 'sandbox',
        access_layer: 0,
      },
    });
    expect(unknown.status).toBe(404);
    const principal = (
      await call<Payload>(app.url, 'POST', '/v1/admin/principals/create', {
        key: app.adminKey,
        body: { name: 'Exp', email: 'exp@example.test', role: 'member' },
      })
    ).body.payload['principal_id'];
    const past = await call(app.url, 'POST', '/v1/admin/keys/create', {
      key: app.adminKey,
      body: {
        principal_id: principal,
        entitlement: 'sandbox',
        access_layer: 0,
        expires_at: '2020-01-01T00:00:00Z',
      },
    });
    expect(past.status).toBe(422);
    const badLayer = await call(app.url, 'POST', '/v1/admin/keys/create', {
      key: app.adminKey,
      body: { principal_id: principal, entitlement: 'sandbox', access_layer: 7 },
    });
    expect(badLayer.status).toBe(422);
  });

  it('lets a minted operator key reach the control plane', async () => {
    const principal = (
      await call<Payload>(app.url, 'POST', '/v1/admin/principals/create', {
        key: app.adminKey,
        body: { name: 'Op', email: 'op@example.test', role: 'operator' },
      })
    ).body.payload['principal_id'];
    const key = (
      await call<Payload>(app.url, 'POST', '/v1/admin/keys/create', {
        key: app.adminKey,
        body: { principal_id: principal, entitlement: 'institutional', access_layer: 0 },
      })
    ).body.payload['api_key'] as string;
    const created = await call(app.url, 'POST', '/v1/admin/principals/create', {
      key,
      body: { name: 'By op', email: 'byop@example.test', role: 'member' },
    });
    expect(created.status).toBe(201);
  });
});
