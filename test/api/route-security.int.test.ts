import { writeAsTheService } from '../helpers/sealed-records';
import { allRoutes } from '../../src/api/app';
import { ENTITLEMENTS, FAMILIES, type FamilyName } from '../../src/auth/families';
import { call } from '../helpers/http';
import { createTestKey, type TestKey, type TestKeySpec } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';

const routes = allRoutes(() => ({})).filter((r) => !r.hidden);
const guarded = routes.filter((r) => r.family !== 'public');

let app: TestApp;
const keys = new Map<string, TestKey>();
const keyFor = (spec: TestKeySpec): TestKey =>
  keys.get(`${spec.entitlement}/${spec.accessLayer}/${spec.role ?? 'member'}`)!;

beforeAll(async () => {
  app = await startTestApp('route_security');
  const specs: TestKeySpec[] = [];
  for (const entitlement of ENTITLEMENTS) {
    for (const accessLayer of [0, 1, 2, 3] as const) specs.push({ entitlement, accessLayer });
  }
  for (const spec of specs) {
    keys.set(`${spec.entitlement}/${spec.accessLayer}/member`, await createTestKey(app, spec));
  }
}, 120_000);
afterAll(() => app.close());

/** A concrete URL for a route template (auth runs before validation, so values are free). */
const urlOf = (path: string): string =>
  path
    .replace('{artifact_path}', 'substrates/dep_x/manifest.json')
    .replace(/\{[a-z_]+\}/g, 'sample');

const isAuthError = (status: number): boolean => status === 401 || status === 403;

describe('every guarded route', () => {
  it.each(guarded.map((r) => [r.method, r.path, r.family] as const))(
    '%s %s (%s) answers 401 without a key or with a bad one',
    async (method, path) => {
      const missing = await call(app.url, method, urlOf(path));
      expect(missing.status).toBe(401);
      expect(missing.headers.get('www-authenticate')).toBe('APIKey');
      expect(missing.body).toMatchObject({ ok: false, error: { code: 'unauthorized' } });
      const wrong = await call(app.url, method, urlOf(path), {
        key: 'grk_000000000000_' + 'A'.repeat(38),
      });
      expect(wrong.status).toBe(401);
    },
  );

  it.each(guarded.map((r) => [r.method, r.path, r.family as FamilyName] as const))(
    '%s %s (%s) answers 403 below its class, layer or role, and admits its minimum',
    async (method, path, family) => {
      const policy = FAMILIES[family];
      const classIndex = ENTITLEMENTS.indexOf(policy.minEntitlement);
      if (classIndex > 0) {
        const below = keyFor({ entitlement: ENTITLEMENTS[classIndex - 1], accessLayer: 3 });
        const res = await call<{ error: Record<string, unknown> }>(app.url, method, urlOf(path), {
          key: below.apiKey,
        });
        expect(res.status).toBe(403);
        expect(res.body.error).toMatchObject({
          code: 'forbidden',
          family,
          required: { entitlement: policy.minEntitlement },
          held: { entitlement: ENTITLEMENTS[classIndex - 1] },
        });
      }
      if (policy.minLayer > 0) {
        const below = keyFor({
          entitlement: 'strategic',
          accessLayer: (policy.minLayer - 1) as 0 | 1 | 2,
        });
        const res = await call<{ error: Record<string, unknown> }>(app.url, method, urlOf(path), {
          key: below.apiKey,
        });
        expect(res.status).toBe(403);
        expect(res.body.error).toMatchObject({
          family,
          held: { access_layer: `layer${policy.minLayer - 1}_public` },
        });
      }
      if (policy.operatorOnly) {
        const member = keyFor({ entitlement: 'strategic', accessLayer: 3 });
        const res = await call<{ error: Record<string, unknown> }>(app.url, method, urlOf(path), {
          key: member.apiKey,
        });
        expect(res.status).toBe(403);
        expect(res.body.error).toMatchObject({
          required: { role: 'operator' },
          held: { role: 'member' },
        });
        const operator = await call(app.url, method, urlOf(path), { key: app.adminKey });
        expect(isAuthError(operator.status)).toBe(false);
      } else {
        const minimum = keyFor({
          entitlement: policy.minEntitlement,
          accessLayer: policy.minLayer,
        });
        const res = await call(app.url, method, urlOf(path), { key: minimum.apiKey });
        expect(isAuthError(res.status)).toBe(false);
      }
    },
  );
});

describe('public routes', () => {
  it.each(
    routes.filter((r) => r.family === 'public' && r.method === 'GET').map((r) => [r.path] as const),
  )('GET %s needs no key', async (path) => {
    const res = await call(app.url, 'GET', path);
    expect(isAuthError(res.status)).toBe(false);
  });
});

describe('key states', () => {
  it('answers 401 for a suspended or expired key, and for a suspended principal', async () => {
    const fresh = await startTestApp('key_states', { env: { KEY_CACHE_TTL_MS: '0' } });
    try {
      const key = await createTestKey(fresh, { entitlement: 'sandbox', accessLayer: 0 });
      expect((await call(fresh.url, 'GET', '/v1/runtime/status', { key: key.apiKey })).status).toBe(
        200,
      );
      // Written as another instance of the service would (sealed): a status it changed.
      const db = fresh.deps.db;
      await writeAsTheService(db, 'api_keys', key.keyId, { status: 'suspended' });
      const suspended = await call(fresh.url, 'GET', '/v1/runtime/status', { key: key.apiKey });
      expect(suspended.status).toBe(401);
      expect(suspended.body).toMatchObject({ error: { message: 'API key is suspended' } });
      await writeAsTheService(db, 'api_keys', key.keyId, {
        status: 'active',
        expires_at: '2020-01-01T00:00:00.000Z',
      });
      expect((await call(fresh.url, 'GET', '/v1/runtime/status', { key: key.apiKey })).status).toBe(
        401,
      );
      await writeAsTheService(db, 'api_keys', key.keyId, {}, ['expires_at']);
      await writeAsTheService(db, 'principals', key.principalId, { status: 'suspended' });
      expect((await call(fresh.url, 'GET', '/v1/runtime/status', { key: key.apiKey })).status).toBe(
        401,
      );
    } finally {
      await fresh.close();
    }
  });
});
