import { call } from '../helpers/http';
import {
  cancelDeployments,
  createOrganization,
  createPolicy,
  deploy,
  eventually,
  latticeSpec,
  strategicKeyIn,
  type Body,
  type DeploymentView,
} from '../helpers/heavy-work';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';

// Issue 16, item 3: limits on heavy work. The worker here serves no compute queue, so a
// deployment waits in `deploying` (its first chunk never runs) and holds its slot, with no
// CPU spent, until it is cancelled.

interface HeavyCounts {
  concurrent_deployments: { allowed: number; running: number };
  cell_updates_today: { allowed: number; used: number; remaining: number };
}
interface KeyUsage {
  heavy_work: { key: HeavyCounts; organization: HeavyCounts; resets_at: string };
}

let app: TestApp;
let worker: TestWorker;
/** Every deployment started here, cancelled at the end. */
const started: { key: TestKey; deployment: DeploymentView }[] = [];

beforeAll(async () => {
  app = await startTestApp('heavy_work');
  worker = await startTestWorker(app.deps, app.deps.config.taskQueue, { compute: false });
});
afterAll(async () => {
  for (const { key, deployment } of started) {
    await cancelDeployments(app, key, [deployment]).catch(() => undefined);
  }
  await worker.stop();
  await app.close();
});

let seed = 0;
/** Deploys a small spec (64² × 100 ticks = 409,600 cell updates) and remembers it. */
async function deployed(key: TestKey, spec = latticeSpec(64, 100, ++seed)) {
  const res = await deploy(app, key, spec);
  if (res.status === 201) started.push({ key, deployment: res.body.payload });
  return res;
}
const usageOf = async (key: TestKey) =>
  (
    await call<Body<KeyUsage>>(app.url, 'GET', `/v1/admin/usage/${key.keyId}`, {
      key: app.adminKey,
    })
  ).body.payload.heavy_work;
const expectRefused = (
  res: Awaited<ReturnType<typeof deployed>>,
  code: string,
  fields: Record<string, unknown>,
) => {
  expect(res.status).toBe(429);
  expect(res.body.error).toMatchObject({ code, ...fields });
};

describe('concurrent running deployments', () => {
  it('lets a strategic key run 4 at once; the fifth is 429 until one is cancelled', async () => {
    const key = await strategicKeyIn(app, await createOrganization(app));
    const four: DeploymentView[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await deployed(key);
      expect(res.status).toBe(201);
      four.push(res.body.payload);
    }
    const fifth = await deployed(key);
    expectRefused(fifth, 'deployment_concurrency_exceeded', {
      limit: 'concurrent_deployments',
      scope: 'key',
      scope_id: key.keyId,
      allowed: 4,
      running: 4,
    });
    expect(fifth.body.error.message).toMatch(/4 concurrent deployments per key/);
    expect((await usageOf(key)).key.concurrent_deployments).toEqual({ allowed: 4, running: 4 });

    // A final stage gives the slot back (the workflow's last projection releases it).
    await cancelDeployments(app, key, [four[0]]);
    await eventually(
      'the slot freed',
      async () => (await usageOf(key)).key.concurrent_deployments.running === 3,
    );
    expect((await deployed(key)).status).toBe(201);
    expect((await deployed(key)).status).toBe(429);
  });

  it('gives sandbox and institutional keys no deployments (the family refuses them first)', async () => {
    for (const entitlement of ['sandbox', 'institutional'] as const) {
      const key = await createTestKey(app, { entitlement, accessLayer: 2 });
      const res = await deployed(key);
      expect(res.status).toBe(403);
      expect((await usageOf(key)).key.concurrent_deployments.allowed).toBe(
        entitlement === 'sandbox' ? 0 : 1,
      );
    }
  });

  it('follows a quota policy: a key policy lowers or raises it, the newest among equals wins', async () => {
    const key = await strategicKeyIn(app, await createOrganization(app));
    expect(
      (await createPolicy(app, { key_id: key.keyId }, { concurrent_deployments: 1 })).status,
    ).toBe(201);
    expect((await deployed(key)).status).toBe(201);
    expectRefused(await deployed(key), 'deployment_concurrency_exceeded', { allowed: 1 });

    const raised = await createPolicy(app, { key_id: key.keyId }, { concurrent_deployments: 6 });
    expect(raised.body.payload).toMatchObject({ concurrent_deployments: 6 });
    for (let i = 0; i < 5; i++) expect((await deployed(key)).status).toBe(201);
    expectRefused(await deployed(key), 'deployment_concurrency_exceeded', { allowed: 6 });

    // 0 forbids deploying at all.
    await createPolicy(app, { key_id: key.keyId }, { concurrent_deployments: 0 });
    expectRefused(await deployed(key), 'deployment_concurrency_exceeded', { allowed: 0 });
  });

  it('limits an organization across its keys (organization policy), and only there', async () => {
    const org = await createOrganization(app);
    const [a, b] = [await strategicKeyIn(app, org), await strategicKeyIn(app, org)];
    const misplaced = await createPolicy(
      app,
      { key_id: a.keyId },
      { organization_concurrent_deployments: 2 },
    );
    expect(misplaced.status).toBe(422);
    expect(
      (
        await createPolicy(
          app,
          { organization_id: org },
          { organization_concurrent_deployments: 2 },
        )
      ).status,
    ).toBe(201);

    const first = await deployed(a);
    expect([first.status, (await deployed(a)).status]).toEqual([201, 201]);
    const refused = await deployed(b);
    expectRefused(refused, 'deployment_concurrency_exceeded', {
      scope: 'organization',
      scope_id: org,
      allowed: 2,
      running: 2,
    });
    const usage = await usageOf(b);
    expect(usage.key.concurrent_deployments).toEqual({ allowed: 4, running: 0 });
    expect(usage.organization.concurrent_deployments).toEqual({ allowed: 2, running: 2 });

    await cancelDeployments(app, a, [first.body.payload]);
    await eventually(
      'the slot freed',
      async () => (await usageOf(b)).organization.concurrent_deployments.running === 1,
    );
    expect((await deployed(b)).status).toBe(201);
  });

  it('frees slots whose release was lost: a final deployment, or a claim that never started', async () => {
    const key = await strategicKeyIn(app, await createOrganization(app));
    await createPolicy(app, { key_id: key.keyId }, { concurrent_deployments: 2 });
    const first = (await deployed(key)).body.payload;
    await cancelDeployments(app, key, [first]);
    const slots = app.deps.db.collection('deployment_slots');
    // The record says cancelled a moment before the same activity frees the slot.
    await eventually(
      'the slot freed',
      async () => (await usageOf(key)).key.concurrent_deployments.running === 0,
    );
    const claimedAt = (msAgo: number) => new Date(Date.now() - msAgo).toISOString();
    const scope = `key:${key.keyId}`;
    // As if the release of the cancelled one was lost, and an api died between claim and start.
    await slots.insertMany([
      {
        _id: `${scope}|1`,
        scope,
        n: 1,
        deployment_id: first.deployment_id,
        claimed_at: claimedAt(0),
      },
      {
        _id: `${scope}|2`,
        scope,
        n: 2,
        deployment_id: 'dep_never',
        claimed_at: claimedAt(120_000),
      },
    ] as never[]);
    expect((await deployed(key)).status).toBe(201);
    expect((await deployed(key)).status).toBe(201);
    expect((await deployed(key)).status).toBe(429);
  });
});

describe('cell updates per UTC day', () => {
  it('charges cells × ticks at deploy and refuses past the key quota, with Retry-After', async () => {
    const key = await strategicKeyIn(app, await createOrganization(app));
    await createPolicy(app, { key_id: key.keyId }, { cell_updates_per_day: 1_000_000 });
    expect((await deployed(key)).status).toBe(201);
    expect((await deployed(key)).status).toBe(201);
    const refused = await deployed(key);
    expectRefused(refused, 'cell_updates_quota_exceeded', {
      limit: 'cell_updates_per_day',
      scope: 'key',
      allowed: 1_000_000,
      used: 819_200,
      requested: 409_600,
    });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    expect(refused.body.error.message).toMatch(/daily quota of 1000000 cell updates per key/);

    const usage = await usageOf(key);
    expect(usage.key.cell_updates_today).toEqual({
      allowed: 1_000_000,
      used: 819_200,
      remaining: 180_800,
    });
    expect(usage.organization.cell_updates_today.used).toBe(819_200);
    // A refused deploy costs nothing; a smaller one still fits.
    expect((await deployed(key, latticeSpec(32, 100, ++seed))).status).toBe(201);
    expect((await usageOf(key)).key.cell_updates_today.used).toBe(921_600);

    // A deployment larger than a whole day's quota is refused with no Retry-After.
    const never = await deployed(key, latticeSpec(1024, 1000, ++seed));
    expectRefused(never, 'cell_updates_quota_exceeded', { requested: 1024 * 1024 * 1000 });
    expect(never.headers.get('retry-after')).toBeNull();
  });

  it('refuses past the organization quota across its keys', async () => {
    const org = await createOrganization(app);
    const [a, b] = [await strategicKeyIn(app, org), await strategicKeyIn(app, org)];
    await createPolicy(
      app,
      { organization_id: org },
      { organization_cell_updates_per_day: 500_000 },
    );
    expect((await deployed(a)).status).toBe(201);
    expectRefused(await deployed(b), 'cell_updates_quota_exceeded', {
      scope: 'organization',
      scope_id: org,
      used: 409_600,
    });
    expect((await usageOf(b)).organization.cell_updates_today).toMatchObject({
      allowed: 500_000,
      used: 409_600,
    });
  });
});
