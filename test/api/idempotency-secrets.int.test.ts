import { randomBytes } from 'node:crypto';
import { apiRoutes } from '../../src/api/routes';
import { call } from '../helpers/http';
import { eventually } from '../helpers/eventually';
import { startTestApp, type TestApp } from '../helpers/test-app';

/**
 * Idempotency records of routes whose answer carries a secret (a new API key) keep a
 * redacted answer: no secret is stored in `idempotency_keys`, a replay never shows the
 * secret again and says so. Records expire after IDEMPOTENCY_RETENTION_HOURS and are pruned
 * (docs/conventions.md, Idempotency-Key).
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp('idem_secrets', { env: { SERVICE_MONITOR_INTERVAL_MS: '100' } });
});
afterAll(() => app.close());

interface KeyAnswer {
  payload: { key_id: string; api_key: string; status: string };
}

const raw = () => app.deps.db.collection<{ _id: string; created_at: string }>('idempotency_keys');

async function principal(): Promise<string> {
  const created = await call<{ payload: { principal_id: string } }>(
    app.url,
    'POST',
    '/v1/admin/principals/create',
    {
      key: app.adminKey,
      body: {
        name: 'secret holder',
        email: `s-${randomBytes(4).toString('hex')}@example.test`,
        role: 'member',
      },
    },
  );
  expect(created.status).toBe(201);
  return created.body.payload.principal_id;
}

/** Every stored idempotency record, as the database holds it. */
const storedText = async (): Promise<string> => JSON.stringify(await raw().find({}).toArray());

/** The secret part of `grk_<key_id>_<secret>`. */
const secretOf = (apiKey: string): string => apiKey.split('_').slice(2).join('_');

describe('Idempotency-Key on routes that answer a secret', () => {
  it('keys/create: stores no secret, and a replay says the secret is not shown again', async () => {
    const body = { principal_id: await principal(), entitlement: 'sandbox', access_layer: 0 };
    const headers = { 'Idempotency-Key': `create-${randomBytes(4).toString('hex')}` };
    const first = await call<KeyAnswer>(app.url, 'POST', '/v1/admin/keys/create', {
      key: app.adminKey,
      body,
      headers,
    });
    expect(first.status).toBe(201);
    const apiKey = first.body.payload.api_key;
    expect(apiKey).toMatch(/^grk_/);
    // The key works: it is a real secret.
    expect((await call(app.url, 'GET', '/v1/principals/me', { key: apiKey })).status).toBe(200);

    const stored = await storedText();
    expect(stored).not.toContain(apiKey);
    expect(stored).not.toContain(secretOf(apiKey));

    const replay = await call<KeyAnswer>(app.url, 'POST', '/v1/admin/keys/create', {
      key: app.adminKey,
      body,
      headers,
    });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.headers.get('idempotent-redacted')).toBe('api_key');
    expect(replay.body.payload.key_id).toBe(first.body.payload.key_id);
    expect(replay.text).not.toContain(secretOf(apiKey));
    expect(replay.body.payload.api_key).toMatch(/redacted/);
  });

  it('keys/rotate: stores no new secret, and a replay does not show it', async () => {
    const created = await call<KeyAnswer>(app.url, 'POST', '/v1/admin/keys/create', {
      key: app.adminKey,
      body: { principal_id: await principal(), entitlement: 'sandbox', access_layer: 0 },
    });
    const headers = { 'Idempotency-Key': `rotate-${randomBytes(4).toString('hex')}` };
    const rotate = () =>
      call<KeyAnswer>(app.url, 'POST', '/v1/admin/keys/rotate', {
        key: app.adminKey,
        body: { key_id: created.body.payload.key_id, grace_seconds: 0 },
        headers,
      });
    const first = await rotate();
    expect(first.status).toBe(200);
    const rotated = first.body.payload.api_key;
    expect((await call(app.url, 'GET', '/v1/principals/me', { key: rotated })).status).toBe(200);
    expect(await storedText()).not.toContain(secretOf(rotated));

    const replay = await rotate();
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.headers.get('idempotent-redacted')).toBe('api_key');
    expect(replay.text).not.toContain(secretOf(rotated));
  });
});

describe('Idempotency records expire', () => {
  const createPrincipal = (idempotencyKey: string, email: string) =>
    call<{ payload: { principal_id: string } }>(app.url, 'POST', '/v1/admin/principals/create', {
      key: app.adminKey,
      body: { name: 'expiring', email, role: 'member' },
      headers: { 'Idempotency-Key': idempotencyKey },
    });
  const dayAndAHourAgo = () => new Date(Date.now() - 25 * 3600 * 1000).toISOString();

  it('a record older than the retention (24 h) is pruned by the periodic monitor', async () => {
    const email = `prune-${randomBytes(4).toString('hex')}@example.test`;
    expect((await createPrincipal(`prune-${email}`, email)).status).toBe(201);
    const young = await createPrincipal(`young-${email}`, `young-${email}`);
    expect(young.status).toBe(201);
    const records = await raw().find({}).sort({ created_at: -1 }).limit(2).toArray();
    const [youngest, older] = records;
    await raw().updateOne({ _id: older._id }, { $set: { created_at: dayAndAHourAgo() } });
    await eventually(
      () => raw().findOne({ _id: older._id }),
      (record) => record === null,
      10_000,
    );
    expect(await raw().findOne({ _id: youngest._id })).not.toBeNull();
  });

  it('an expired record is not replayed, even before it is pruned', async () => {
    const email = `expired-${randomBytes(4).toString('hex')}@example.test`;
    const first = await createPrincipal(`expired-${email}`, email);
    expect(first.status).toBe(201);
    await app.deps.monitor.stop(); // no pruning from here on: the claim itself must see it
    await raw().updateMany({}, { $set: { created_at: dayAndAHourAgo() } });
    // The same key and request, past the retention: it runs again (here: the e-mail is taken).
    const again = await createPrincipal(`expired-${email}`, email);
    expect(again.status).toBe(409);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
  });
});

describe('routes whose answer carries a secret', () => {
  const SECRET_NAME = /api_key|secret|password|private_key|token/;

  /** Names of the properties (at any depth) of a success answer's schema that look secret. */
  function secretNames(schema: unknown, found = new Set<string>()): Set<string> {
    if (typeof schema !== 'object' || schema === null) return found;
    const properties = (schema as { properties?: Record<string, unknown> }).properties ?? {};
    for (const [name, inner] of Object.entries(properties)) {
      if (SECRET_NAME.test(name)) found.add(name);
      secretNames(inner, found);
    }
    for (const key of ['anyOf', 'oneOf', 'allOf', 'items'] as const) {
      const inner = (schema as Record<string, unknown>)[key];
      for (const each of Array.isArray(inner) ? inner : [inner]) secretNames(each, found);
    }
    return found;
  }

  it('declare those fields, so an idempotent answer is stored and replayed without them', () => {
    const undeclared: string[] = [];
    const withSecrets: string[] = [];
    for (const route of apiRoutes(() => [])) {
      for (const [status, response] of Object.entries(route.responses)) {
        if (Number(status) >= 300) continue;
        for (const name of secretNames(response.schema)) {
          withSecrets.push(`${route.operationId}.${name}`);
          if (!route.secretFields?.includes(name)) undeclared.push(`${route.operationId}: ${name}`);
        }
      }
    }
    expect(withSecrets.sort()).toEqual([
      'access.request.api_key',
      'admin.keys.create.api_key',
      'admin.keys.rotate.api_key',
    ]);
    expect(undeclared).toEqual([]);
  });
});
