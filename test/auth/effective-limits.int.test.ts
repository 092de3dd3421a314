import { bootstrapKeyId } from '../../src/auth/authenticator';
import { call } from '../helpers/http';
import { createTestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';

// One rule for a key's limits (src/auth/effective-limits.ts): what the reports show is what
// the rate limiter enforces, read from the RateLimit-Policy header of the key's own requests.

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp('effective_limits');
});
afterAll(() => app.close());

type Limits = { requests_per_minute: number; daily_quota: number };

/** The limits enforced on a key: its rules as its own request's RateLimit-Policy names them. */
async function enforced(apiKey: string): Promise<Limits> {
  const res = await call(app.url, 'GET', '/v1/runtime/status', { key: apiKey });
  expect(res.status).toBe(200);
  const policy = res.headers.get('ratelimit-policy') ?? '';
  const quota = (name: string) => Number(new RegExp(`"${name}";q=(\\d+)`).exec(policy)?.[1]);
  return { requests_per_minute: quota('minute'), daily_quota: quota('day') };
}

const policy = async (scope: Record<string, string>, perMinute: number, perDay: number) => {
  const res = await call<{ payload: { policy_id: string } }>(
    app.url,
    'POST',
    '/v1/admin/policies/create',
    {
      key: app.adminKey,
      body: { name: 'class-wide', scope, requests_per_minute: perMinute, daily_quota: perDay },
    },
  );
  expect(res.status).toBe(201);
  return res.body.payload.policy_id;
};

const usageLimits = async (keyId: string) => {
  const res = await call<{ payload: { limits: Limits & { source: string } } }>(
    app.url,
    'GET',
    `/v1/admin/usage/${keyId}`,
    { key: app.adminKey },
  );
  expect(res.status).toBe(200);
  return res.body.payload.limits;
};

describe('the limits a report shows are the limits enforced', () => {
  it('for the bootstrap key under a class-wide policy, which never applies to it', async () => {
    const policyId = await policy({ entitlement: 'strategic' }, 500, 50_000);
    // Another key of the class runs under the policy, and its report says so.
    const member = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
    expect(await enforced(member.apiKey)).toEqual({
      requests_per_minute: 500,
      daily_quota: 50_000,
    });
    expect(await usageLimits(member.keyId)).toEqual({
      requests_per_minute: 500,
      daily_quota: 50_000,
      source: policyId,
    });
    // The bootstrap key keeps its class's defaults, and its report shows those.
    const bootstrap = await enforced(app.adminKey);
    expect(bootstrap).toEqual({ requests_per_minute: 3_000, daily_quota: 1_000_000 });
    expect(await usageLimits(bootstrapKeyId(app.adminKey))).toEqual({
      ...bootstrap,
      source: 'class:strategic',
    });
  });

  it('for a sandbox grant under a class-wide policy, which applies from its first request', async () => {
    await policy({ entitlement: 'sandbox' }, 30, 500);
    const res = await call<{ api_key: string; key_id: string; limits: Limits }>(
      app.url,
      'POST',
      '/v1/access/request',
      { body: { name: 'Ada', email: 'ada@example.test', intended_use: 'evaluating the API' } },
    );
    expect(res.status).toBe(200);
    const limits = await enforced(res.body.api_key);
    expect(limits).toEqual({ requests_per_minute: 30, daily_quota: 500 });
    expect(res.body.limits).toEqual(limits);
    expect(await usageLimits(res.body.key_id)).toMatchObject(limits);
  });
});
