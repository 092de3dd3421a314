import { storedIn } from '../helpers/collections';
import { randomBytes } from 'node:crypto';
import { allRoutes } from '../../src/api/app';
import { FAMILIES } from '../../src/auth/families';
import { STALE_ROTATION_CLAIM_MS } from '../../src/domain/governance/admin-keys.service';
import { call, type HttpResult } from '../helpers/http';
import { createTestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';

/** `a` keeps the default 5 s key cache; `b` shares its database with a 300 ms cache. */
let a: TestApp;
let b: TestApp;
beforeAll(async () => {
  a = await startTestApp('admin_control_plane');
  b = await startTestApp('admin_control_plane_b', {
    dbName: a.dbName,
    adminKey: a.adminKey,
    env: { KEY_CACHE_TTL_MS: '300' },
  });
}, 60_000);
afterAll(async () => {
  await b.stop();
  await a.close();
});

type Body = {
  ok: boolean;
  payload: Record<string, unknown> & { items?: Record<string, unknown>[]; next_cursor?: string };
  error?: { code: string; message: string };
  detail?: { loc: (string | number)[] }[];
};

const admin = (method: string, path: string, body?: unknown, app: TestApp = a) =>
  call<Body>(app.url, method, path, { key: app.adminKey, body });
const as = (key: string, method: string, path: string, body?: unknown, app: TestApp = a) =>
  call<Body>(app.url, method, path, { key, body });
const status = async (key: string, app: TestApp = a) =>
  (await call(app.url, 'GET', '/v1/runtime/status', { key })).status;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const unique = (word: string) => `${word}-${randomBytes(4).toString('hex')}`;

/** Polls until `probe` returns `want` (or the deadline passes); returns the elapsed ms. */
async function until(want: number, probe: () => Promise<number>, deadlineMs = 3000) {
  const started = Date.now();
  let got = await probe();
  while (got !== want && Date.now() - started < deadlineMs) {
    await sleep(50);
    got = await probe();
  }
  expect(got).toBe(want);
  return Date.now() - started;
}

/** The one audit row of a mutation, found by the response's request id. */
async function auditOf(res: HttpResult<Body>, action: string) {
  const requestId = res.headers.get('x-request-id')!;
  const rows = await storedIn(a.deps.db).audit.find({ request_id: requestId }).toArray();
  expect(rows).toHaveLength(1);
  const row = rows[0];
  expect(row.action).toBe(action);
  expect(row.actor.key_id).toBeTruthy();
  expect(row.actor.principal_id).toMatch(/^prn_/);
  expect(JSON.stringify(row)).not.toMatch(/secret_hash|grk_[0-9a-f]{12}_[0-9A-Za-z]{20}/);
  return row;
}

async function newOrganization(name = unique('org')) {
  const res = await admin('POST', '/v1/admin/organizations/create', { name });
  expect(res.status).toBe(201);
  return res.body.payload['organization_id'] as string;
}

/** A principal in `organizationId` with one key. */
async function keyIn(
  organizationId: string,
  role: 'member' | 'operator' = 'member',
  entitlement: 'sandbox' | 'institutional' | 'strategic' = 'sandbox',
) {
  const principal = await admin('POST', '/v1/admin/principals/create', {
    name: 'holder',
    email: `${unique('p')}@example.test`,
    organization_id: organizationId,
    role,
  });
  expect(principal.status).toBe(201);
  const principalId = principal.body.payload['principal_id'] as string;
  const key = await admin('POST', '/v1/admin/keys/create', {
    principal_id: principalId,
    entitlement,
    access_layer: 0,
    label: 'holder key',
  });
  expect(key.status).toBe(201);
  return {
    principalId,
    keyId: key.body.payload['key_id'] as string,
    apiKey: key.body.payload['api_key'] as string,
  };
}

describe('organizations and projects', () => {
  it('creates, refuses a taken name case-insensitively, validates, lists by page and status, audits', async () => {
    const name = unique('Acme');
    const created = await admin('POST', '/v1/admin/organizations/create', { name });
    expect(created.status).toBe(201);
    expect(created.body.payload).toMatchObject({ name, status: 'active' });
    const row = await auditOf(created, 'organization.create');
    expect(row.before).toBeNull();
    expect(row.after).toMatchObject({ name, status: 'active' });

    const dup = await admin('POST', '/v1/admin/organizations/create', { name: name.toUpperCase() });
    expect(dup.status).toBe(409);
    expect(dup.body.error!.code).toBe('conflict');
    const missing = await admin('POST', '/v1/admin/organizations/create', {});
    expect(missing.status).toBe(422);
    expect(missing.body.detail![0].loc).toEqual(['body', 'name']);

    const ids = [await newOrganization(), await newOrganization(), await newOrganization()];
    const first = await admin('GET', '/v1/admin/organizations?limit=2');
    expect(first.body.payload.items!.map((o) => o['organization_id'])).toEqual([ids[2], ids[1]]);
    expect(first.body.payload.next_cursor).toBeTruthy();
    const second = await admin(
      'GET',
      `/v1/admin/organizations?limit=2&cursor=${first.body.payload.next_cursor}`,
    );
    expect(second.body.payload.items![0]['organization_id']).toBe(ids[0]);

    const suspended = await admin('POST', '/v1/admin/organizations/status', {
      organization_id: ids[1],
      status: 'suspended',
    });
    expect(suspended.status).toBe(200);
    expect(suspended.body.payload).toMatchObject({
      item: { organization_id: ids[1], status: 'suspended' },
      previous_status: 'active',
    });
    const statusRow = await auditOf(suspended, 'organization.status');
    expect(statusRow.before).toMatchObject({ status: 'active' });
    expect(statusRow.after).toMatchObject({ status: 'suspended' });
    const listed = await admin('GET', '/v1/admin/organizations?status=suspended');
    expect(listed.body.payload.items!.map((o) => o['organization_id'])).toEqual([ids[1]]);

    const unknown = await admin('POST', '/v1/admin/organizations/status', {
      organization_id: 'org_01JABCDEFGHJKMNPQRSTVWXYZ0',
      status: 'archived',
    });
    expect(unknown.status).toBe(404);
    const badStatus = await admin('POST', '/v1/admin/organizations/status', {
      organization_id: ids[0],
      status: 'revoked',
    });
    expect(badStatus.status).toBe(422);
    expect(badStatus.body.detail![0].loc).toEqual(['body', 'status']);
    const badCursor = await admin('GET', '/v1/admin/organizations?cursor=bm90LWEtY3Vyc29y');
    expect(badCursor.status).toBe(422);
  });

  it('creates projects in an active organization only, lists and changes them, audits', async () => {
    const org = await newOrganization();
    const other = await newOrganization();
    const created = await admin('POST', '/v1/admin/projects/create', {
      organization_id: org,
      name: 'Apollo',
    });
    expect(created.status).toBe(201);
    expect(created.body.payload).toMatchObject({
      organization_id: org,
      name: 'Apollo',
      status: 'active',
    });
    expect(created.body.payload['project_id']).toMatch(/^prj_/);
    await auditOf(created, 'project.create');
    const projectId = created.body.payload['project_id'] as string;

    const dup = await admin('POST', '/v1/admin/projects/create', {
      organization_id: org,
      name: 'APOLLO',
    });
    expect(dup.status).toBe(409);
    const elsewhere = await admin('POST', '/v1/admin/projects/create', {
      organization_id: other,
      name: 'Apollo',
    });
    expect(elsewhere.status).toBe(201);
    const unknownOrg = await admin('POST', '/v1/admin/projects/create', {
      organization_id: 'org_01JABCDEFGHJKMNPQRSTVWXYZ0',
      name: 'x',
    });
    expect(unknownOrg.status).toBe(404);
    const badOrg = await admin('POST', '/v1/admin/projects/create', {
      organization_id: 'nope',
      name: 'x',
    });
    expect(badOrg.status).toBe(422);
    expect(badOrg.body.detail![0].loc).toEqual(['body', 'organization_id']);

    const byOrg = await admin('GET', `/v1/admin/projects?organization_id=${org}`);
    expect(byOrg.body.payload.items!.map((p) => p['project_id'])).toEqual([projectId]);

    const archived = await admin('POST', '/v1/admin/projects/status', {
      project_id: projectId,
      status: 'archived',
    });
    expect(archived.status).toBe(200);
    expect(archived.body.payload).toMatchObject({
      item: { status: 'archived' },
      previous_status: 'active',
    });
    const row = await auditOf(archived, 'project.status');
    expect(row.before).toMatchObject({ status: 'active' });
    expect(row.after).toMatchObject({ status: 'archived' });
    const archivedList = await admin(
      'GET',
      `/v1/admin/projects?organization_id=${org}&status=archived`,
    );
    expect(archivedList.body.payload.items).toHaveLength(1);
    const activeList = await admin(
      'GET',
      `/v1/admin/projects?organization_id=${org}&status=active`,
    );
    expect(activeList.body.payload.items).toHaveLength(0);

    // Same status again: a no-op, no audit row.
    const again = await admin('POST', '/v1/admin/projects/status', {
      project_id: projectId,
      status: 'archived',
    });
    expect(again.status).toBe(200);
    expect(again.body.payload['previous_status']).toBe('archived');
    const requestId = again.headers.get('x-request-id')!;
    expect(await storedIn(a.deps.db).audit.countDocuments({ request_id: requestId })).toBe(0);

    await admin('POST', '/v1/admin/organizations/status', {
      organization_id: org,
      status: 'suspended',
    });
    const inSuspended = await admin('POST', '/v1/admin/projects/create', {
      organization_id: org,
      name: 'Gemini',
    });
    expect(inSuspended.status).toBe(409);
    expect(inSuspended.body.error!.code).toBe('invalid_state');
  });
});

describe('principals', () => {
  it('lists by organization, role and status, and changes status with an audit row', async () => {
    const org = await newOrganization();
    const member = await keyIn(org, 'member');
    const operator = await keyIn(org, 'operator');
    const all = await admin('GET', `/v1/admin/principals?organization_id=${org}`);
    expect(all.body.payload.items!.map((p) => p['principal_id'])).toEqual([
      operator.principalId,
      member.principalId,
    ]);
    const operators = await admin(
      'GET',
      `/v1/admin/principals?organization_id=${org}&role=operator`,
    );
    expect(operators.body.payload.items!.map((p) => p['principal_id'])).toEqual([
      operator.principalId,
    ]);
    const paged = await admin('GET', `/v1/admin/principals?organization_id=${org}&limit=1`);
    const rest = await admin(
      'GET',
      `/v1/admin/principals?organization_id=${org}&limit=1&cursor=${paged.body.payload.next_cursor}`,
    );
    expect(rest.body.payload.items!.map((p) => p['principal_id'])).toEqual([member.principalId]);
    expect(rest.body.payload.next_cursor).toBeNull();

    const archived = await admin('POST', '/v1/admin/principals/status', {
      principal_id: member.principalId,
      status: 'archived',
    });
    expect(archived.status).toBe(200);
    const row = await auditOf(archived, 'principal.status');
    expect(row.target).toEqual({ type: 'principal', id: member.principalId });
    expect(row.before).toMatchObject({ status: 'active' });
    expect(row.after).toMatchObject({ status: 'archived' });
    const byStatus = await admin(
      'GET',
      `/v1/admin/principals?organization_id=${org}&status=archived`,
    );
    expect(byStatus.body.payload.items!.map((p) => p['principal_id'])).toEqual([
      member.principalId,
    ]);
    expect(await status(member.apiKey)).toBe(401);
    const unknown = await admin('POST', '/v1/admin/principals/status', {
      principal_id: 'prn_01JABCDEFGHJKMNPQRSTVWXYZ0',
      status: 'active',
    });
    expect(unknown.status).toBe(404);
  });
});

describe('suspension reaches the public API', () => {
  it('suspending an organization or a principal answers 401 at once here, within the cache bound on another instance', async () => {
    const org = await newOrganization();
    const holder = await keyIn(org);
    expect(await status(holder.apiKey, a)).toBe(200);
    expect(await status(holder.apiKey, b)).toBe(200); // both caches now hold the key

    const suspend = await admin('POST', '/v1/admin/organizations/status', {
      organization_id: org,
      status: 'suspended',
    });
    expect(suspend.status).toBe(200);
    const denied = await call<Body>(a.url, 'GET', '/v1/runtime/status', { key: holder.apiKey });
    expect(denied.status).toBe(401); // at once on the instance that made the change
    expect(denied.body.error!.message).toBe("the key's organization is not active");
    expect(await until(401, () => status(holder.apiKey, b))).toBeLessThan(2000);

    await admin('POST', '/v1/admin/organizations/status', {
      organization_id: org,
      status: 'active',
    });
    expect(await status(holder.apiKey, a)).toBe(200);
    await until(200, () => status(holder.apiKey, b));

    await admin('POST', '/v1/admin/principals/status', {
      principal_id: holder.principalId,
      status: 'suspended',
    });
    expect(await status(holder.apiKey, a)).toBe(401);
    await until(401, () => status(holder.apiKey, b));
    await admin('POST', '/v1/admin/principals/status', {
      principal_id: holder.principalId,
      status: 'active',
    });
    expect(await status(holder.apiKey, a)).toBe(200);
    await until(200, () => status(holder.apiKey, b));
  });
});

describe('self-lockout guard', () => {
  it("refuses to take the caller's own key, principal or organization out of service", async () => {
    const self = await a.deps.authenticator.authenticate(a.adminKey);
    const attempts: [string, Record<string, string>][] = [
      ['/v1/admin/keys/status', { key_id: self.keyId, status: 'suspended' }],
      ['/v1/admin/keys/status', { key_id: self.keyId, status: 'revoked' }],
      ['/v1/admin/principals/status', { principal_id: self.principalId, status: 'suspended' }],
      [
        '/v1/admin/organizations/status',
        { organization_id: self.organizationId, status: 'archived' },
      ],
    ];
    for (const [path, body] of attempts) {
      const res = await admin('POST', path, body);
      expect(res.status).toBe(409);
      expect(res.body.error!.code).toBe('invalid_state');
      expect(res.body.error!.message).toContain('lock this operator out');
    }
    expect(await status(a.adminKey)).toBe(200);
  });

  it("protects the bootstrap key's principal and organization; another operator may suspend the bootstrap key itself", async () => {
    const bootstrap = await a.deps.authenticator.authenticate(a.adminKey);
    const other = await keyIn(await newOrganization(), 'operator', 'strategic');
    const principal = await as(other.apiKey, 'POST', '/v1/admin/principals/status', {
      principal_id: bootstrap.principalId,
      status: 'suspended',
    });
    expect(principal.status).toBe(409);
    expect(principal.body.error!.message).toContain('bootstrap operator key');
    const organization = await as(other.apiKey, 'POST', '/v1/admin/organizations/status', {
      organization_id: bootstrap.organizationId,
      status: 'suspended',
    });
    expect(organization.status).toBe(409);

    const suspended = await as(other.apiKey, 'POST', '/v1/admin/keys/status', {
      key_id: bootstrap.keyId,
      status: 'suspended',
    });
    expect(suspended.status).toBe(200);
    expect(await status(a.adminKey)).toBe(401);
    const restored = await as(other.apiKey, 'POST', '/v1/admin/keys/status', {
      key_id: bootstrap.keyId,
      status: 'active',
    });
    expect(restored.status).toBe(200);
    expect(await status(a.adminKey)).toBe(200);
  });
});

describe('keys', () => {
  it('lists keys by principal, organization, status and class, never a secret or hash', async () => {
    const org = await newOrganization();
    const first = await keyIn(org);
    const second = await keyIn(org, 'member', 'institutional');
    const byOrg = await admin('GET', `/v1/admin/keys?organization_id=${org}`);
    expect(byOrg.status).toBe(200);
    const items = byOrg.body.payload.items!;
    expect(items.map((k) => k['key_id'])).toEqual([second.keyId, first.keyId]);
    expect(items[1]).toMatchObject({
      key_id: first.keyId,
      display_prefix: `grk_${first.keyId}_…`,
      principal_id: first.principalId,
      organization_id: org,
      entitlement: 'sandbox',
      access_layer: 'layer0_public',
      label: 'holder key',
      status: 'active',
      expires_at: null,
      rotations: 0,
      previous_valid_until: null,
    });
    expect(byOrg.text).not.toContain(first.apiKey);
    expect(byOrg.text).not.toContain('secret_hash');
    expect(byOrg.text).not.toContain('previous_secret_hash');

    const byPrincipal = await admin('GET', `/v1/admin/keys?principal_id=${first.principalId}`);
    expect(byPrincipal.body.payload.items!.map((k) => k['key_id'])).toEqual([first.keyId]);
    const byClass = await admin(
      'GET',
      `/v1/admin/keys?organization_id=${org}&entitlement=institutional`,
    );
    expect(byClass.body.payload.items!.map((k) => k['key_id'])).toEqual([second.keyId]);
    const page1 = await admin('GET', `/v1/admin/keys?organization_id=${org}&limit=1`);
    const page2 = await admin(
      'GET',
      `/v1/admin/keys?organization_id=${org}&limit=1&cursor=${page1.body.payload.next_cursor}`,
    );
    expect(page2.body.payload.items!.map((k) => k['key_id'])).toEqual([first.keyId]);
    expect(page2.body.payload.next_cursor).toBeNull();

    // last_used_at advances with the request ledger's batches.
    expect(await status(first.apiKey)).toBe(200);
    await until(1, async () => {
      const res = await admin('GET', `/v1/admin/keys?principal_id=${first.principalId}`);
      return res.body.payload.items![0]['last_used_at'] ? 1 : 0;
    });
  });

  it('suspends, re-activates and revokes (final), with an audit row each', async () => {
    const holder = await keyIn(await newOrganization());
    const set = (value: string) =>
      admin('POST', '/v1/admin/keys/status', { key_id: holder.keyId, status: value });
    const suspended = await set('suspended');
    expect(suspended.status).toBe(200);
    expect(suspended.body.payload).toMatchObject({
      item: { key_id: holder.keyId, status: 'suspended' },
      previous_status: 'active',
    });
    const row = await auditOf(suspended, 'key.status');
    expect(row.target).toEqual({ type: 'api_key', id: holder.keyId });
    expect(row.before).toMatchObject({ status: 'active' });
    expect(row.after).toMatchObject({ status: 'suspended' });
    expect(await status(holder.apiKey)).toBe(401);
    expect(await until(401, () => status(holder.apiKey, b))).toBeLessThan(2000);

    expect((await set('active')).status).toBe(200);
    expect(await status(holder.apiKey)).toBe(200);
    const revoked = await set('revoked');
    expect(revoked.status).toBe(200);
    await auditOf(revoked, 'key.status');
    const denied = await call<Body>(a.url, 'GET', '/v1/runtime/status', { key: holder.apiKey });
    expect(denied.status).toBe(401);
    expect(denied.body.error!.message).toBe('API key is revoked');
    for (const value of ['active', 'suspended']) {
      const res = await set(value);
      expect(res.status).toBe(409);
      expect(res.body.error!.code).toBe('invalid_state');
    }
    const rotate = await admin('POST', '/v1/admin/keys/rotate', { key_id: holder.keyId });
    expect(rotate.status).toBe(409);
    expect(rotate.body.error!.code).toBe('invalid_state');

    const unknown = await admin('POST', '/v1/admin/keys/status', {
      key_id: '000000000000',
      status: 'suspended',
    });
    expect(unknown.status).toBe(404);
    const bad = await admin('POST', '/v1/admin/keys/status', {
      key_id: holder.keyId,
      status: 'archived',
    });
    expect(bad.status).toBe(422);
  });

  it('a key past its expires_at answers 401', async () => {
    const principal = await admin('POST', '/v1/admin/principals/create', {
      name: 'expiring',
      email: `${unique('e')}@example.test`,
      role: 'member',
    });
    const key = await admin('POST', '/v1/admin/keys/create', {
      principal_id: principal.body.payload['principal_id'],
      entitlement: 'sandbox',
      access_layer: 0,
      expires_at: new Date(Date.now() + 1500).toISOString(),
    });
    const apiKey = key.body.payload['api_key'] as string;
    expect(await status(apiKey)).toBe(200);
    await sleep(1600);
    const expired = await call<Body>(a.url, 'GET', '/v1/runtime/status', { key: apiKey });
    expect(expired.status).toBe(401);
    expect(expired.body.error!.message).toBe('API key has expired');
  });
});

describe('key writes under concurrent updates of the same key', () => {
  it('a status change and a rotation hold while another writer updates the key every few ms', async () => {
    // FerretDB v1 updates by read + whole-document write: any other write of the key
    // document racing a status write could undo it, unless the write is read back.
    const holder = await keyIn(await newOrganization());
    const keys = a.deps.db.collection<{ _id: string; status?: string; entitlement?: string }>(
      'api_keys',
    );
    let bumping = true;
    const bumper = (async () => {
      while (bumping) {
        await keys.updateOne({ _id: holder.keyId }, { $set: { label: `bumped ${Date.now()}` } });
        await sleep(5);
      }
    })();
    try {
      for (const value of ['suspended', 'active', 'suspended', 'active']) {
        const res = await admin('POST', '/v1/admin/keys/status', {
          key_id: holder.keyId,
          status: value,
        });
        expect(res.status).toBe(200);
        expect((await keys.findOne({ _id: holder.keyId }))!.status).toBe(value);
      }
      const rotated = await admin('POST', '/v1/admin/keys/rotate', {
        key_id: holder.keyId,
        grace_seconds: 0,
      });
      expect(rotated.status).toBe(200);
      await sleep(100);
      expect(await status(rotated.body.payload['api_key'] as string)).toBe(200);
    } finally {
      bumping = false;
      await bumper;
    }
  });
});

describe('key rotation', () => {
  it('issues a new secret once; both work during the grace, and grace 0 ends the old one', async () => {
    const holder = await keyIn(await newOrganization());
    const rotated = await admin('POST', '/v1/admin/keys/rotate', { key_id: holder.keyId });
    expect(rotated.status).toBe(200);
    const second = rotated.body.payload['api_key'] as string;
    expect(second).toMatch(new RegExp(`^grk_${holder.keyId}_`));
    expect(second).not.toBe(holder.apiKey);
    expect(rotated.body.payload).toMatchObject({ key_id: holder.keyId, rotations: 1 });
    const graceEnd = Date.parse(rotated.body.payload['previous_valid_until'] as string);
    expect(Math.abs(graceEnd - (Date.now() + 86_400_000))).toBeLessThan(10_000);
    expect(await status(holder.apiKey)).toBe(200);
    expect(await status(second)).toBe(200);
    const row = await auditOf(rotated, 'key.rotate');
    expect(row.before).toMatchObject({ rotations: 0 });
    expect(row.after).toMatchObject({ rotations: 1, grace_seconds: 86_400 });
    expect(JSON.stringify(row)).not.toContain(second);

    const third = await admin('POST', '/v1/admin/keys/rotate', {
      key_id: holder.keyId,
      grace_seconds: 0,
    });
    expect(third.status).toBe(200);
    const newest = third.body.payload['api_key'] as string;
    expect(await status(newest)).toBe(200);
    expect(await status(second)).toBe(401);
    expect(await status(holder.apiKey)).toBe(401);
    // Another instance accepts the new secret within its cache bound.
    await until(200, () => status(newest, b));

    const stored = JSON.stringify(await a.deps.repos.apiKeys.findById(holder.keyId));
    expect(stored).not.toContain(newest);
    const bad = await admin('POST', '/v1/admin/keys/rotate', {
      key_id: holder.keyId,
      grace_seconds: -1,
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail![0].loc).toEqual(['body', 'grace_seconds']);
    const unknown = await admin('POST', '/v1/admin/keys/rotate', { key_id: '000000000000' });
    expect(unknown.status).toBe(404);
  });

  it('lets one of two concurrent rotations win; the other is 409 and no secret is lost', async () => {
    // Two requests sent at once may still run one after the other (the first done before the
    // second reads the key): both rotate then, in turn. Try again until they overlap.
    const rotateTwiceAtOnce = async () => {
      const key = await keyIn(await newOrganization());
      const answers = await Promise.all([
        admin('POST', '/v1/admin/keys/rotate', { key_id: key.keyId, grace_seconds: 600 }),
        admin('POST', '/v1/admin/keys/rotate', { key_id: key.keyId, grace_seconds: 600 }),
      ]);
      return { holder: key, results: answers };
    };
    let { holder, results } = await rotateTwiceAtOnce();
    for (let tries = 1; tries < 5 && results.every((r) => r.status === 200); tries += 1) {
      expect((await a.deps.repos.apiKeys.findById(holder.keyId))!.rotations).toBe(2);
      ({ holder, results } = await rotateTwiceAtOnce());
    }
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409]);
    const winner = results.find((r) => r.status === 200)!;
    const loser = results.find((r) => r.status === 409)!;
    expect(loser.body.error!.code).toBe('conflict');
    expect(await status(winner.body.payload['api_key'] as string)).toBe(200);
    expect(await status(holder.apiKey)).toBe(200);
    expect((await a.deps.repos.apiKeys.findById(holder.keyId))!.rotations).toBe(1);
  });

  it('skips a rotation number whose claim was abandoned', async () => {
    const holder = await keyIn(await newOrganization());
    await storedIn(a.deps.db).apiKeyRotations.insertOne({
      _id: `${holder.keyId}:1`,
      key_id: holder.keyId,
      rotation: 1,
      at: new Date(Date.now() - STALE_ROTATION_CLAIM_MS - 1000).toISOString(),
    });
    const rotated = await admin('POST', '/v1/admin/keys/rotate', { key_id: holder.keyId });
    expect(rotated.status).toBe(200);
    expect(rotated.body.payload['rotations']).toBe(2);
    expect(await status(rotated.body.payload['api_key'] as string)).toBe(200);
  });

  it('refuses to rotate the bootstrap key (it is ADMIN_API_KEY)', async () => {
    const self = await a.deps.authenticator.authenticate(a.adminKey);
    const res = await admin('POST', '/v1/admin/keys/rotate', { key_id: self.keyId });
    expect(res.status).toBe(409);
    expect(res.body.error!.message).toContain('ADMIN_API_KEY');
  });
});

describe('quota policies', () => {
  const limitPolicy = (res: HttpResult) => res.headers.get('ratelimit-policy');

  it('the most specific active policy wins; suspending policies falls back, up to the class defaults', async () => {
    const org = await newOrganization();
    const holder = await keyIn(org, 'member', 'institutional');
    const create = async (scope: Record<string, string>, perMinute: number) => {
      const res = await admin('POST', '/v1/admin/policies/create', {
        name: unique('policy'),
        scope,
        requests_per_minute: perMinute,
        daily_quota: perMinute * 100,
      });
      expect(res.status).toBe(201);
      return res.body.payload['policy_id'] as string;
    };
    const orgPolicy = await create({ organization_id: org }, 8);
    const keyPolicy = await create({ key_id: holder.keyId }, 9);
    const probe = async () =>
      limitPolicy(await call(a.url, 'GET', '/v1/runtime/status', { key: holder.apiKey }));
    const setPolicy = (policyId: string, value: string) =>
      admin('POST', '/v1/admin/policies/status', { policy_id: policyId, status: value });

    expect(await probe()).toBe('"minute";q=9;w=60, "day";q=900;w=86400');
    const suspended = await setPolicy(keyPolicy, 'suspended');
    expect(suspended.status).toBe(200);
    expect(suspended.body.payload).toMatchObject({
      item: { policy_id: keyPolicy, status: 'suspended' },
      previous_status: 'active',
    });
    const row = await auditOf(suspended, 'policy.status');
    expect(row.target).toEqual({ type: 'quota_policy', id: keyPolicy });
    expect(row.before).toMatchObject({ status: 'active' });
    expect(row.after).toMatchObject({ status: 'suspended' });
    expect(await probe()).toBe('"minute";q=8;w=60, "day";q=800;w=86400');
    expect((await setPolicy(orgPolicy, 'archived')).status).toBe(200);
    expect(await probe()).toBe('"minute";q=600;w=60, "day";q=50000;w=86400');
    expect((await setPolicy(keyPolicy, 'active')).status).toBe(200);
    expect(await probe()).toBe('"minute";q=9;w=60, "day";q=900;w=86400');

    const byOrg = await admin('GET', `/v1/admin/policies?organization_id=${org}`);
    expect(byOrg.body.payload.items!.map((p) => p['policy_id'])).toEqual([orgPolicy]);
    const byKey = await admin('GET', `/v1/admin/policies?key_id=${holder.keyId}&status=active`);
    expect(byKey.body.payload.items!.map((p) => p['policy_id'])).toEqual([keyPolicy]);
    const archived = await admin('GET', '/v1/admin/policies?status=archived');
    expect(archived.body.payload.items!.map((p) => p['policy_id'])).toContain(orgPolicy);
    expect(archived.body.payload.items!.every((p) => p['status'] === 'archived')).toBe(true);
    const unknown = await setPolicy('pol_01JABCDEFGHJKMNPQRSTVWXYZ0', 'active');
    expect(unknown.status).toBe(404);
  });
});

describe('access layers and entitlements', () => {
  it('lists every family with its route count, planned ones with 0', async () => {
    const res = await admin('GET', '/v1/admin/access-layers');
    expect(res.status).toBe(200);
    const families = res.body.payload['families'] as Record<string, unknown>[];
    expect(families.map((f) => f['family']).sort()).toEqual(Object.keys(FAMILIES).sort());
    const counts = new Map<string, number>();
    for (const route of allRoutes(() => ({}))) {
      counts.set(route.family, (counts.get(route.family) ?? 0) + 1);
    }
    for (const family of families) {
      expect(family['routes']).toBe(counts.get(family['family'] as string) ?? 0);
    }
    expect(families.find((f) => f['family'] === 'admin_control_plane')).toMatchObject({
      exposure: 'permanently_private',
      min_entitlement: 'sandbox',
      min_layer: 'layer0_public',
      operator_only: true,
      routes: 27,
    });
    expect(families.find((f) => f['family'] === 'restricted_partner_future')).toMatchObject({
      exposure: 'planned_layer3',
      min_layer: 'layer3_partner',
      routes: 0,
    });
    const layers = res.body.payload['layers'] as Record<string, unknown>[];
    expect(layers.map((l) => l['name'])).toEqual([
      'layer0_public',
      'layer1_public',
      'layer2_public',
      'layer3_partner',
    ]);
    expect(layers[3]['families']).toContain('restricted_partner_future');
    expect(layers[3]['active_keys']).toBeGreaterThanOrEqual(1); // the bootstrap key
  });

  it('gives each class its default limits and its keys by status', async () => {
    const org = await newOrganization();
    const revoked = await keyIn(org, 'member', 'institutional');
    await admin('POST', '/v1/admin/keys/status', { key_id: revoked.keyId, status: 'revoked' });
    const res = await admin('GET', '/v1/admin/entitlements');
    expect(res.status).toBe(200);
    const classes = res.body.payload['classes'] as Record<string, unknown>[];
    expect(classes.map((c) => c['entitlement'])).toEqual(['sandbox', 'institutional', 'strategic']);
    expect(classes[0]).toMatchObject({ requests_per_minute: 60, daily_quota: 1000 });
    expect(classes[2]).toMatchObject({ requests_per_minute: 3000, daily_quota: 1_000_000 });
    const keys = await a.deps.db
      .collection<{ _id: string; status?: string; entitlement?: string }>('api_keys')
      .find()
      .toArray();
    for (const entry of classes) {
      const of = keys.filter((k) => k.entitlement === entry['entitlement']);
      expect(entry['keys']).toEqual({
        active: of.filter((k) => k.status === 'active').length,
        suspended: of.filter((k) => k.status === 'suspended').length,
        revoked: of.filter((k) => k.status === 'revoked').length,
      });
      expect(entry['active_keys']).toBe(of.filter((k) => k.status === 'active').length);
    }
    expect((classes[1]['keys'] as Record<string, number>)['revoked']).toBeGreaterThanOrEqual(1);
  });
});

describe('non-operator keys', () => {
  it('get 403 on every control-plane route', async () => {
    const member = await createTestKey(a, { entitlement: 'strategic', accessLayer: 3 });
    const routes = allRoutes(() => ({})).filter((r) => r.family === 'admin_control_plane');
    expect(routes).toHaveLength(27);
    for (const route of routes) {
      const res = await call<Body>(a.url, route.method, route.path, {
        key: member.apiKey,
        body: route.method === 'POST' ? {} : undefined,
      });
      expect(res.status).toBe(403);
      expect(res.body.error!.code).toBe('forbidden');
    }
  });
});
