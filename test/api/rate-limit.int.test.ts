import { storedIn } from '../helpers/collections';
import { call, type HttpResult } from '../helpers/http';
import { createTestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';

let a: TestApp;
let b: TestApp;
beforeAll(async () => {
  a = await startTestApp('ratelimit');
  b = await startTestApp('ratelimit_b', { dbName: a.dbName, adminKey: a.adminKey });
});
afterAll(async () => {
  await b.stop();
  await a.close();
});

/** Sends requests until the minute window would roll over mid-test, then waits it out. */
async function awaitFreshMinute(): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 40_000) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 200));
}

describe('per-key rate limit', () => {
  it('admits 60 sandbox requests a minute, then answers 429 with Retry-After and RateLimit headers', async () => {
    const key = await createTestKey(a, { entitlement: 'sandbox', accessLayer: 0 });
    await awaitFreshMinute();
    const responses: HttpResult[] = [];
    for (let i = 0; i < 62; i += 1)
      responses.push(await call(a.url, 'GET', '/v1/runtime/status', { key: key.apiKey }));
    const statuses = responses.map((r) => r.status);
    const first = responses[0];
    const last = responses[responses.length - 1];
    expect(statuses.filter((s) => s === 200)).toHaveLength(60);
    expect(statuses.slice(60)).toEqual([429, 429]);
    expect(first.headers.get('ratelimit-limit')).toBe('60');
    expect(first.headers.get('ratelimit-remaining')).toBe('59');
    expect(last.body).toMatchObject({ ok: false, error: { code: 'rate_limited' } });
    expect(last.headers.get('ratelimit-remaining')).toBe('0');
    const retryAfter = Number(last.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(Number(last.headers.get('ratelimit-reset'))).toBe(retryAfter);
  });

  it('holds across two api instances sharing the store', async () => {
    const key = await createTestKey(a, { entitlement: 'sandbox', accessLayer: 0 });
    await awaitFreshMinute();
    let admitted = 0;
    for (let i = 0; i < 80; i += 1) {
      const target = i % 2 === 0 ? a : b;
      const res = await call(target.url, 'GET', '/v1/runtime/status', { key: key.apiKey });
      if (res.status === 200) admitted += 1;
      else expect(res.status).toBe(429);
    }
    expect(admitted).toBe(60);
  });

  it('counts a 403 or 401 against nothing', async () => {
    const key = await createTestKey(a, { entitlement: 'sandbox', accessLayer: 0 });
    for (let i = 0; i < 5; i += 1) {
      const res = await call(a.url, 'GET', '/v1/external-actions/history', { key: key.apiKey });
      expect(res.status).toBe(403);
    }
    const ok = await call(a.url, 'GET', '/v1/runtime/status', { key: key.apiKey });
    expect(ok.headers.get('ratelimit-remaining')).toBe('59');
  });
});

describe('daily quota under a quota policy', () => {
  const policy = (scope: Record<string, string>, perMinute: number, perDay: number) =>
    call(a.url, 'POST', '/v1/admin/policies/create', {
      key: a.adminKey,
      body: { name: 'test policy', scope, requests_per_minute: perMinute, daily_quota: perDay },
    });

  it('answers 429 quota_exceeded past the quota, with Retry-After until 00:00 UTC', async () => {
    const key = await createTestKey(a, { entitlement: 'institutional', accessLayer: 1 });
    expect((await policy({ key_id: key.keyId }, 100, 3)).status).toBe(201);
    const responses: HttpResult[] = [];
    for (let i = 0; i < 4; i += 1)
      responses.push(await call(a.url, 'GET', '/v1/runtime/status', { key: key.apiKey }));
    const statuses = responses.map((r) => r.status);
    const last = responses[3];
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(last.body).toMatchObject({ ok: false, error: { code: 'quota_exceeded' } });
    const now = new Date();
    const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
    const expected = Math.ceil((midnight - now.getTime()) / 1000);
    expect(Math.abs(Number(last.headers.get('retry-after')) - expected)).toBeLessThanOrEqual(2);
    expect(last.headers.get('ratelimit-policy')).toBe('"minute";q=100;w=60, "day";q=3;w=86400');
  });

  it('lets the most specific active policy win', async () => {
    const key = await createTestKey(a, { entitlement: 'institutional', accessLayer: 1 });
    const stored = await a.deps.repos.apiKeys.findById(key.keyId);
    expect((await policy({ entitlement: 'institutional' }, 7, 700)).status).toBe(201);
    expect((await policy({ organization_id: stored!.organization_id }, 8, 800)).status).toBe(201);
    expect((await policy({ key_id: key.keyId }, 9, 900)).status).toBe(201);
    const res = await call(a.url, 'GET', '/v1/runtime/status', { key: key.apiKey });
    expect(res.headers.get('ratelimit-policy')).toBe('"minute";q=9;w=60, "day";q=900;w=86400');
    const audit = await storedIn(a.deps.db).audit.countDocuments({ action: 'policy.create' });
    expect(audit).toBeGreaterThanOrEqual(3);
  });
});
