import { storedIn } from '../helpers/collections';
import { call, type HttpResult } from '../helpers/http';
import { startTestApp, type TestApp } from '../helpers/test-app';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp('access');
});
afterAll(() => app.close());

const request = (email: string, extra: Record<string, unknown> = {}) =>
  call<Record<string, unknown>>(app.url, 'POST', '/v1/access/request', {
    body: { name: 'Ada', email, intended_use: 'evaluating the API', ...extra },
  });

describe('POST /v1/access/request', () => {
  it('returns the bare grant with the sandbox limits, and the key works at once', async () => {
    const res = await request('ada@example.test');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      api_key: expect.stringMatching(/^grk_[0-9a-f]{12}_[0-9A-Za-z]{38}$/),
      entitlement: 'sandbox',
      access_layer: 'layer0_public',
      limits: { requests_per_minute: 60, daily_quota: 1000 },
      key_id: expect.stringMatching(/^[0-9a-f]{12}$/),
    });
    const status = await call(app.url, 'GET', '/v1/runtime/status', {
      key: res.body['api_key'] as string,
    });
    expect(status.status).toBe(200);
    expect(status.headers.get('ratelimit-policy')).toBe('"minute";q=60;w=60, "day";q=1000;w=86400');
  });

  it('stores only a hash of the key', async () => {
    const res = await request('hash-check@example.test');
    const stored = await app.deps.repos.apiKeys.findById(res.body['key_id'] as string);
    expect(stored).toMatchObject({ entitlement: 'sandbox', access_layer: 0, status: 'active' });
    expect(JSON.stringify(stored)).not.toContain(res.body['api_key'] as string);
    const audit = JSON.stringify(await storedIn(app.deps.db).audit.find().toArray());
    expect(audit).not.toContain(res.body['api_key'] as string);
  });

  it('audits the request with no key as its actor, in the documented shape (issue 16 D)', async () => {
    await request('audited@example.test');
    // Responses are checked against their schema here: `key_id: "public"` failed it.
    const res = await call<{
      payload: { items: { action: string; actor: { key_id: string | null } }[] };
    }>(app.url, 'GET', '/v1/admin/audit?limit=500', { key: app.adminKey });
    expect(res.status).toBe(200);
    const actors = res.body.payload.items
      .filter((item) => item.action.startsWith('access'))
      .map((item) => item.actor.key_id);
    expect(actors.length).toBeGreaterThan(0);
    expect(new Set(actors)).toEqual(new Set([null]));
  });

  it('answers 409 conflict for the same e-mail, whatever its case', async () => {
    expect((await request('Grace@Example.test')).status).toBe(200);
    const again = await request('grace@EXAMPLE.TEST');
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ ok: false, error: { code: 'conflict' } });
    expect(
      await app.deps.db.collection<{ _id: string }>('principals').countDocuments({
        email_key: 'grace@example.test',
      }),
    ).toBe(1);
  });

  it('gives exactly one grant when the same e-mail races', async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, () => request('race@example.test')),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(7);
    expect(
      await app.deps.db.collection<{ _id: string }>('api_keys').countDocuments({}),
    ).toBeGreaterThan(0);
  });

  it.each([
    [{ email: 'not-an-email' }, ['body', 'email'], 'value_error'],
    [{ name: '' }, ['body', 'name'], 'string_too_short'],
    [{ intended_use: 7 }, ['body', 'intended_use'], 'string_type'],
    [{ admin: true }, ['body', 'admin'], 'extra_forbidden'],
  ])('rejects %j with a 422 list', async (patch, loc, type) => {
    const res = await request('shape@example.test', patch);
    expect(res.status).toBe(422);
    expect(res.body['detail']).toEqual(
      expect.arrayContaining([expect.objectContaining({ loc, type })]),
    );
  });

  it('rejects a missing field with type missing', async () => {
    const res = await call(app.url, 'POST', '/v1/access/request', {
      body: { name: 'x', email: 'm@example.test' },
    });
    expect(res.status).toBe(422);
    expect(res.body['detail']).toEqual([
      { loc: ['body', 'intended_use'], msg: 'Field required', type: 'missing' },
    ]);
  });
});

describe('access request rate limit per client address', () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await startTestApp('access_limit', { env: { ACCESS_REQUEST_LIMIT_PER_HOUR: '3' } });
  });
  afterAll(() => limited.close());

  it('answers 429 with Retry-After past the hourly limit, minting nothing more', async () => {
    const responses: HttpResult[] = [];
    for (let i = 0; i < 5; i += 1) {
      responses.push(
        await call(limited.url, 'POST', '/v1/access/request', {
          body: { name: 'n', email: `bulk${i}@example.test`, intended_use: 'bulk' },
        }),
      );
    }
    const statuses = responses.map((r) => r.status);
    const last = responses[4];
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    expect(last.body).toMatchObject({ ok: false, error: { code: 'rate_limited' } });
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(
      await limited.deps.db
        .collection<{ _id: string }>('principals')
        .countDocuments({ email: /^bulk/ }),
    ).toBe(3);
  });
});
