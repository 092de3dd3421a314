import { storedIn } from '../helpers/collections';
import type { ChildProcess } from 'node:child_process';
import { parseApiKey } from '../../src/auth/api-key';
import type { RequestLedgerRow } from '../../src/store/request-ledger.repo';
import { LATENCY_BOUNDS_MS, type UsageRollup } from '../../src/store/usage-rollups.repo';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker } from '../helpers/test-worker';
import { startWorkerProcess } from '../helpers/worker-process';

interface Page<T> {
  ok: true;
  payload: { items: T[]; next_cursor: string | null };
}
interface ErrorBody {
  error: { code: string; message: string };
  detail: unknown;
}
interface UsageView {
  requests: number;
  errors: number;
  server_errors: number;
  rate_limited: number;
  p95_latency_ms: number | null;
  by_family: Record<string, { requests: number; errors: number; rate_limited: number }>;
}
interface UsageItem {
  key_id: string;
  organization_id: string | null;
  period_start: string;
  granularity: string;
  usage: UsageView;
}
interface RequestRow {
  request_id: string;
  at: string;
  route: string;
  status: number;
  key_id: string | null;
  family: string | null;
}
interface ServiceEventView {
  event_id: string;
  at: string;
  kind: string;
  level: string;
  message: string;
  detail: Record<string, unknown>;
  instance: string;
}
interface HealthView {
  status: string;
  components: { name: string; status: string; latency_ms: number | null; detail: string | null }[];
}

const OPS_ROUTES: [string, string][] = [
  ['GET', '/v1/admin/audit'],
  ['GET', '/v1/admin/overview'],
  ['POST', '/v1/admin/prune-ledgers'],
  ['GET', '/v1/admin/requests'],
  ['GET', '/v1/admin/service-events'],
  ['GET', '/v1/admin/service-health'],
  ['GET', '/v1/admin/usage'],
  ['GET', '/v1/admin/usage/0123456789ab'],
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until `done` holds (or the time is up), answering the last value. */
async function eventually<T>(
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await probe();
  while (!done(value) && Date.now() < deadline) {
    await sleep(100);
    value = await probe();
  }
  return value;
}

let app: TestApp;
let operator: string;
let member: TestKey;
let traffic: TestKey;
let other: TestKey;

async function get<T>(path: string, key = operator) {
  return call<T>(app.url, 'GET', path, { key });
}

async function allPages<T>(target: TestApp, path: string, limit: number): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 200; i += 1) {
    const sep = path.includes('?') ? '&' : '?';
    const res: Awaited<ReturnType<typeof call<Page<T>>>> = await call<Page<T>>(
      target.url,
      'GET',
      `${path}${sep}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`,
      { key: operator },
    );
    expect(res.status).toBe(200);
    items.push(...res.body.payload.items);
    cursor = res.body.payload.next_cursor;
    if (!cursor) return items;
  }
  throw new Error('paging did not end');
}

beforeAll(async () => {
  app = await startTestApp('admin_ops', { env: { SERVICE_MONITOR_INTERVAL_MS: '200' } });
  operator = app.adminKey;
  [member, traffic, other] = await Promise.all([
    createTestKey(app, { entitlement: 'strategic', accessLayer: 3 }),
    createTestKey(app, { entitlement: 'strategic', accessLayer: 3 }),
    createTestKey(app, { entitlement: 'institutional', accessLayer: 1 }),
  ]);
});
afterAll(() => app.close());

describe('admin ops: access and validation', () => {
  it.each(OPS_ROUTES)('%s %s: 401 without a key, 403 for a non-operator key', async (m, p) => {
    expect((await call(app.url, m, p)).status).toBe(401);
    const res = await call<ErrorBody & { error: { family: string } }>(app.url, m, p, {
      key: member.apiKey,
      ...(m === 'POST' ? { body: { older_than: '2020-01-01T00:00:00Z', dry_run: true } } : {}),
    });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'forbidden', family: 'admin_ops' });
  });

  it.each([
    '/v1/admin/requests?limit=0',
    '/v1/admin/requests?status=99',
    '/v1/admin/requests?since=yesterday',
    '/v1/admin/requests?cursor=not%20a%20cursor',
    '/v1/admin/requests?cursor=x',
    '/v1/admin/audit?key_id=XYZ',
    '/v1/admin/audit?action=Bad%20Action',
    '/v1/admin/audit?cursor=1~2',
    '/v1/admin/service-events?level=fatal',
    '/v1/admin/service-events?kind=Backend%20Down',
    '/v1/admin/usage?granularity=week',
    '/v1/admin/usage?organization_id=nope',
    '/v1/admin/usage?limit=501',
    '/v1/admin/usage/0123456789ab?until=tomorrow',
  ])('GET %s is 422', async (path) => {
    const res = await get<ErrorBody>(path);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_error');
    expect(Array.isArray(res.body.detail)).toBe(true);
  });

  // Issue 10, risk 9: a key id the server never issued names no key: 404, not 422.
  it('GET /v1/admin/usage/NOT-A-KEY is 404', async () => {
    const res = await get<ErrorBody>('/v1/admin/usage/NOT-A-KEY');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });
});

describe('usage rollups', () => {
  it('counts a key’s requests per family exactly, once the ledger has flushed', async () => {
    const key = traffic.apiKey;
    const calls: [string, number][] = [
      ['/v1/runtime/status', 200],
      ['/v1/runtime/status', 200],
      ['/v1/runtime/status', 200],
      ['/v1/worlds/state', 200],
      ['/v1/worlds/state', 200],
      ['/v1/sessions/ses_00000000000000000000000000', 404],
    ];
    for (const [path, status] of calls) {
      expect((await call(app.url, 'GET', path, { key })).status).toBe(status);
    }
    const res = await eventually(
      () => get<Page<UsageItem>>(`/v1/admin/usage?key_id=${traffic.keyId}`),
      (r) => r.body.payload.items[0]?.usage.requests === calls.length,
    );
    expect(res.status).toBe(200);
    expect(res.body.payload.items).toHaveLength(1);
    const [item] = res.body.payload.items;
    expect(item).toMatchObject({
      key_id: traffic.keyId,
      granularity: 'day',
      period_start: `${new Date().toISOString().slice(0, 10)}T00:00:00.000Z`,
    });
    expect(item.organization_id).toMatch(/^org_/);
    expect(item.usage).toMatchObject({ requests: 6, errors: 1, server_errors: 0, rate_limited: 0 });
    expect(item.usage.by_family).toEqual({
      runtime_basic: { requests: 3, errors: 0, rate_limited: 0 },
      sessions: { requests: 1, errors: 1, rate_limited: 0 },
      worlds_basic: { requests: 2, errors: 0, rate_limited: 0 },
    });
    expect(LATENCY_BOUNDS_MS).toContain(item.usage.p95_latency_ms);

    const hourly = await get<Page<UsageItem>>(
      `/v1/admin/usage?key_id=${traffic.keyId}&granularity=hour`,
    );
    expect(hourly.body.payload.items[0]).toMatchObject({
      granularity: 'hour',
      period_start: `${new Date().toISOString().slice(0, 13)}:00:00.000Z`,
    });
    // Unless the test straddled an hour, one hour holds it all.
    const hours = hourly.body.payload.items.reduce((n, i) => n + i.usage.requests, 0);
    expect(hours).toBe(6);

    const byOrg = await get<Page<UsageItem>>(
      `/v1/admin/usage?organization_id=${item.organization_id}`,
    );
    expect(byOrg.body.payload.items.map((i) => i.key_id)).toContain(traffic.keyId);
  });

  it('stores rollups insert-only: one per flush, summed at read time', async () => {
    const before = await storedIn(app.deps.db).usageRollups.countDocuments({
      key_id: other.keyId,
    });
    expect(before).toBe(0);
    for (let flush = 0; flush < 3; flush += 1) {
      for (let i = 0; i <= flush; i += 1) {
        await call(app.url, 'GET', '/v1/runtime/status', { key: other.apiKey });
      }
      await app.deps.ledger.flush();
    }
    const docs = await storedIn(app.deps.db).usageRollups.find({ key_id: other.keyId }).toArray();
    // At least one document per flush (the 50 ms timer may split a batch further), none
    // ever updated in place: their sum is the count.
    expect(docs.length).toBeGreaterThanOrEqual(3);
    expect(new Set(docs.map((d: UsageRollup) => `${d.hour}|${d.family}`)).size).toBe(1);
    expect(docs.reduce((n, d: UsageRollup) => n + d.requests, 0)).toBe(6);
    const res = await get<{ payload: { totals: UsageView; periods: unknown[] } }>(
      `/v1/admin/usage/${other.keyId}`,
    );
    expect(res.body.payload.totals.requests).toBe(6);
    expect(res.body.payload.periods).toHaveLength(1);
  });

  it('usage/{key_id}: limits with their source, minute and day counts, 404 for an unknown key', async () => {
    const res = await eventually(
      () =>
        get<{
          payload: {
            key_id: string;
            limits: { requests_per_minute: number; daily_quota: number; source: string };
            minute: { used: number; remaining: number; resets_in: number };
            day: { used: number; remaining: number; resets_at: string };
            totals: UsageView;
            periods: { period_start: string; usage: UsageView }[];
          };
        }>(`/v1/admin/usage/${traffic.keyId}?granularity=hour`),
      (r) => r.body.payload.day.used >= 6,
    );
    expect(res.status).toBe(200);
    const usage = res.body.payload;
    expect(usage.limits).toEqual({
      requests_per_minute: 3000,
      daily_quota: 1_000_000,
      source: 'class:strategic',
    });
    expect(usage.day.used).toBe(6);
    expect(usage.day.remaining).toBe(1_000_000 - 6);
    expect(usage.day.resets_at).toMatch(/T00:00:00\.000Z$/);
    expect(usage.minute.resets_in).toBeGreaterThanOrEqual(1);
    expect(usage.totals.requests).toBe(6);
    expect(usage.periods[0].usage.by_family['runtime_basic'].requests).toBeGreaterThan(0);

    const unknown = await get<ErrorBody>('/v1/admin/usage/0123456789ab');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
  });

  it('pages through (period, key) items with a stable cursor', async () => {
    await app.deps.ledger.flush();
    const all = await allPages<UsageItem>(app, '/v1/admin/usage', 500);
    const paged = await allPages<UsageItem>(app, '/v1/admin/usage', 1);
    expect(paged.map((i) => i.key_id)).toEqual(all.map((i) => i.key_id));
    expect(new Set(all.map((i) => i.key_id))).toEqual(
      new Set([traffic.keyId, other.keyId, parseApiKey(operator)!.keyId, member.keyId]),
    );
    // Newest period first, then key id ascending.
    const expected = [...all].sort((a, b) =>
      a.period_start === b.period_start
        ? a.key_id < b.key_id
          ? -1
          : 1
        : a.period_start < b.period_start
          ? 1
          : -1,
    );
    expect(all).toEqual(expected);
  });
});

describe('the request ledger', () => {
  it('filters by key, status, route and time, newest first', async () => {
    await app.deps.ledger.flush();
    const rows = await allPages<RequestRow>(app, `/v1/admin/requests?key_id=${traffic.keyId}`, 500);
    expect(rows).toHaveLength(6);
    expect(rows.every((r) => r.key_id === traffic.keyId)).toBe(true);
    expect(rows.map((r) => r.at)).toEqual([...rows.map((r) => r.at)].sort().reverse());

    const notFound = await get<Page<RequestRow>>(
      `/v1/admin/requests?key_id=${traffic.keyId}&status=404`,
    );
    expect(notFound.body.payload.items).toHaveLength(1);
    expect(notFound.body.payload.items[0]).toMatchObject({
      route: '/v1/sessions/{session_id}',
      family: 'sessions',
      status: 404,
    });

    const byRoute = await get<Page<RequestRow>>(
      `/v1/admin/requests?key_id=${traffic.keyId}&route=${encodeURIComponent('/v1/worlds/state')}`,
    );
    expect(byRoute.body.payload.items).toHaveLength(2);

    const oldest = rows[rows.length - 1].at;
    const newest = rows[0].at;
    const window = await get<Page<RequestRow>>(
      `/v1/admin/requests?key_id=${traffic.keyId}&since=${oldest}&until=${newest}`,
    );
    // `since` is inclusive, `until` exclusive.
    expect(window.body.payload.items.map((r) => r.request_id)).toEqual(
      rows.filter((r) => r.at >= oldest && r.at < newest).map((r) => r.request_id),
    );
    expect(JSON.stringify(rows)).not.toContain(traffic.apiKey);
  });

  it('pages stably across the buckets of two api instances, newest first', async () => {
    const second = await startTestApp('admin_ops_2', {
      dbName: app.dbName,
      adminKey: app.adminKey,
    });
    try {
      for (let i = 0; i < 12; i += 1) {
        const target = i % 2 === 0 ? app : second;
        await call(target.url, 'GET', '/v1/runtime/summary', { key: member.apiKey });
        if (i % 3 === 2) await Promise.all([app.deps.ledger.flush(), second.deps.ledger.flush()]);
      }
      await Promise.all([app.deps.ledger.flush(), second.deps.ledger.flush()]);
      const filter = `/v1/admin/requests?key_id=${member.keyId}`;
      const whole = await allPages<RequestRow>(app, filter, 500);
      expect(whole.length).toBeGreaterThanOrEqual(12);
      for (const limit of [1, 2, 5]) {
        const paged = await allPages<RequestRow>(app, filter, limit);
        expect(paged.map((r) => r.request_id)).toEqual(whole.map((r) => r.request_id));
      }
      const times = whole.map((r) => r.at);
      expect(times).toEqual([...times].sort().reverse());
      const buckets = await storedIn(app.deps.db).requestLedger.distinct('instance');
      expect(buckets.length).toBeGreaterThanOrEqual(2);
    } finally {
      await second.stop();
    }
  });

  it('selects rows of overlapping buckets correctly at page boundaries', async () => {
    // Two hand-made buckets whose time ranges interleave, with equal timestamps across them.
    const repo = app.deps.repos.requestLedger;
    const base = Date.parse('2001-01-01T00:00:00.000Z');
    const row = (ms: number, n: number): RequestLedgerRow => ({
      request_id: `manual-${n}`,
      at: new Date(base + ms).toISOString(),
      method: 'GET',
      route: '/manual',
      operation_id: null,
      family: null,
      status: 200,
      latency_ms: 1,
      key_id: null,
      principal_id: null,
      client_ip: '127.0.0.1',
      error_code: null,
    });
    await repo.insertBucket('manual-a', [row(0, 1), row(10, 2), row(20, 3), row(30, 4)]);
    await repo.insertBucket('manual-b', [row(5, 5), row(10, 6), row(25, 7), row(40, 8)]);
    const path = `/v1/admin/requests?route=%2Fmanual&until=2001-01-02T00:00:00Z`;
    const whole = await allPages<RequestRow>(app, path, 500);
    expect(whole.map((r) => r.at.slice(20, 23))).toEqual([
      '040',
      '030',
      '025',
      '020',
      '010',
      '010',
      '005',
      '000',
    ]);
    for (const limit of [1, 3]) {
      const paged = await allPages<RequestRow>(app, path, limit);
      expect(paged.map((r) => r.request_id)).toEqual(whole.map((r) => r.request_id));
    }
  });
});

describe('the audit trail', () => {
  it('lists control-plane changes with actor and target, filterable', async () => {
    const adminKeyId = parseApiKey(operator)!.keyId;
    const res = await get<
      Page<{ action: string; actor: { key_id: string }; target: { id: string }; after: unknown }>
    >(`/v1/admin/audit?target_id=${traffic.keyId}`);
    expect(res.status).toBe(200);
    expect(res.body.payload.items.length).toBeGreaterThanOrEqual(1);
    const created = res.body.payload.items[res.body.payload.items.length - 1];
    expect(created.actor.key_id).toBe(adminKeyId);
    expect(created.target.id).toBe(traffic.keyId);
    expect(JSON.stringify(res.body)).not.toContain(traffic.apiKey);

    const byKey = await get<Page<{ actor: { key_id: string } }>>(
      `/v1/admin/audit?key_id=${adminKeyId}&limit=500`,
    );
    expect(byKey.body.payload.items.length).toBeGreaterThanOrEqual(6);
    expect(byKey.body.payload.items.every((i) => i.actor.key_id === adminKeyId)).toBe(true);
    const none = await get<Page<unknown>>(`/v1/admin/audit?key_id=${member.keyId}`);
    expect(none.body.payload.items).toEqual([]);
  });

  it('pages newest first with a stable cursor, by action, principal and time', async () => {
    const at = '2002-02-02T02:02:02.000Z';
    for (let i = 0; i < 5; i += 1) {
      await app.deps.repos.audit.record({
        at: i < 4 ? at : '2002-02-02T02:02:03.000Z',
        actor: { key_id: 'aaaaaaaaaaaa', principal_id: 'prn_00000000000000000000000000' },
        action: 'test.made',
        target: { type: 'test', id: `t${i}` },
        before: null,
        after: { i },
        request_id: `r${i}`,
      });
    }
    const path =
      '/v1/admin/audit?action=test.made&principal_id=prn_00000000000000000000000000&since=2002-01-01T00:00:00Z&until=2003-01-01T00:00:00Z';
    const whole = await allPages<{ target: { id: string } }>(app, path, 500);
    expect(whole.map((r) => r.target.id)).toEqual(['t4', 't3', 't2', 't1', 't0']);
    const paged = await allPages<{ target: { id: string } }>(app, path, 2);
    expect(paged).toEqual(whole);
    const until = await get<Page<unknown>>(
      '/v1/admin/audit?action=test.made&until=2002-02-02T02:02:03Z',
    );
    expect(until.body.payload.items).toHaveLength(4);
  });
});

describe('service events', () => {
  const events = (query: string) =>
    get<Page<ServiceEventView>>(`/v1/admin/service-events?${query}`);

  it('records a backend transition once: worker down, then up when one polls', async () => {
    const down = await eventually(
      () => events('kind=backend.down'),
      (r) => r.body.payload.items.some((e) => e.detail['backend'] === 'worker'),
    );
    const mine = (e: ServiceEventView) =>
      e.detail['backend'] === 'worker' && e.instance === app.deps.instanceId;
    const workerDown = down.body.payload.items.filter(mine);
    expect(workerDown).toHaveLength(1);
    expect(workerDown[0]).toMatchObject({ level: 'error', instance: app.deps.instanceId });
    const health = await get<{ payload: HealthView }>('/v1/admin/service-health');
    expect(health.body.payload.status).toBe('degraded');
    expect(health.body.payload.components.find((c) => c.name === 'worker')).toMatchObject({
      status: 'down',
    });

    const worker = await startTestWorker(app.deps);
    try {
      const up = await eventually(
        () => events('kind=backend.up'),
        (r) => r.body.payload.items.some((e) => e.detail['backend'] === 'worker'),
        20_000,
      );
      expect(up.body.payload.items.filter(mine)).toHaveLength(1);
      const ok = await get<{ payload: HealthView & { version: string } }>(
        '/v1/admin/service-health',
      );
      expect(ok.body.payload.status).toBe('ok');
      const byName = Object.fromEntries(ok.body.payload.components.map((c) => [c.name, c]));
      expect(byName['mongodb'].status).toBe('ok');
      expect(byName['mongodb'].latency_ms).toEqual(expect.any(Number));
      expect(byName['temporal'].detail).toContain('namespace default');
      expect(byName['worker'].status).toBe('ok');
      expect(byName['worker'].detail).toMatch(/probe workflow ran on/);
      expect(byName['request_ledger'].status).toBe('ok');
    } finally {
      await worker.stop();
    }
    // The worker is gone but still counted as a poller for a minute: the probe shows it.
    const stale = await get<{ payload: HealthView }>('/v1/admin/service-health');
    const workerComponent = stale.body.payload.components.find((c) => c.name === 'worker');
    expect(workerComponent?.status).toBe('degraded');
    expect(stale.body.payload.status).toBe('degraded');
  });

  it('records a failed workflow once, whichever instances scan', async () => {
    const second = await startTestApp('admin_ops_3', {
      dbName: app.dbName,
      adminKey: app.adminKey,
      env: { SERVICE_MONITOR_INTERVAL_MS: '200' },
    });
    try {
      const client = await app.deps.temporal.getClient();
      const workflowId = `ops-test-${Date.now()}`;
      const handle = await client.workflow.start('substrateDeploymentWorkflow', {
        taskQueue: app.deps.config.taskQueue,
        workflowId,
        args: [{}],
      });
      await handle.terminate('admin ops test');
      const found = await eventually(
        () => events('kind=workflow.failed&level=error'),
        (r) => r.body.payload.items.some((e) => e.detail['workflow_id'] === workflowId),
        20_000,
      );
      const failures = found.body.payload.items.filter(
        (e) => e.detail['workflow_id'] === workflowId,
      );
      expect(failures).toHaveLength(1);
      expect(failures[0].detail).toMatchObject({
        status: 'terminated',
        workflow_type: 'substrateDeploymentWorkflow',
      });
      // Both instances scan (several ticks each); still one row.
      await sleep(1000);
      const again = await events('kind=workflow.failed');
      expect(
        again.body.payload.items.filter((e) => e.detail['workflow_id'] === workflowId),
      ).toHaveLength(1);
    } finally {
      await second.stop();
    }
  });

  it('records worker start and stop (the worker process)', async () => {
    const child: ChildProcess = startWorkerProcess(app);
    const started = await eventually(
      () => events('kind=worker.started'),
      (r) => r.body.payload.items.length > 0,
      30_000,
    );
    expect(started.body.payload.items[0]).toMatchObject({ level: 'info' });
    expect(started.body.payload.items[0].detail).toMatchObject({
      task_queue: app.deps.config.taskQueue,
      pid: child.pid,
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    const stopped = await events('kind=worker.stopped');
    expect(stopped.body.payload.items).toHaveLength(1);
    expect(stopped.body.payload.items[0].detail['pid']).toBe(child.pid);
  });

  it('pages by (at, id) newest first and filters by level and time', async () => {
    const repo = app.deps.repos.serviceEvents;
    for (let i = 0; i < 5; i += 1) {
      await repo.insert({
        _id: `sev_TEST${String(i).padStart(8, '0')}`,
        at: `2003-03-03T03:03:0${i < 3 ? 0 : i}.000Z`,
        kind: 'test.event',
        level: i === 4 ? 'warn' : 'info',
        instance: 'test',
        message: `event ${i}`,
        detail: {},
      });
    }
    const path = '/v1/admin/service-events?kind=test.event';
    const whole = await allPages<ServiceEventView>(app, path, 500);
    expect(whole.map((e) => e.message)).toEqual([
      'event 4',
      'event 3',
      'event 2',
      'event 1',
      'event 0',
    ]);
    expect(await allPages<ServiceEventView>(app, path, 2)).toEqual(whole);
    expect((await events('kind=test.event&level=warn')).body.payload.items).toHaveLength(1);
    const window = await events(
      'kind=test.event&since=2003-03-03T03:03:00Z&until=2003-03-03T03:03:04Z',
    );
    expect(window.body.payload.items.map((e) => e.message)).toEqual([
      'event 3',
      'event 2',
      'event 1',
      'event 0',
    ]);
  });

  it('records a Temporal outage as backend.down and reports it in service health', async () => {
    const offline = await startTestApp('admin_ops_offline', {
      adminKey: app.adminKey,
      env: { TEMPORAL_ADDRESS: '127.0.0.1:1', SERVICE_MONITOR_INTERVAL_MS: '100' },
    });
    try {
      const down = await eventually(
        () =>
          call<Page<ServiceEventView>>(offline.url, 'GET', '/v1/admin/service-events', {
            key: operator,
          }),
        (r) => r.body.payload.items.some((e) => e.kind === 'backend.down'),
        20_000,
      );
      const temporal = down.body.payload.items.filter((e) => e.kind === 'backend.down');
      expect(temporal.map((e) => e.detail['backend'])).toEqual(['temporal']);
      const health = await call<{ payload: HealthView }>(
        offline.url,
        'GET',
        '/v1/admin/service-health',
        { key: operator },
      );
      expect(health.status).toBe(200);
      const byName = Object.fromEntries(health.body.payload.components.map((c) => [c.name, c]));
      expect(byName['mongodb'].status).toBe('ok');
      expect(byName['temporal'].status).toBe('down');
      expect(byName['worker'].status).toBe('down');
      expect(health.body.payload.status).toBe('degraded');
      const overview = await call<{
        payload: { health: string; service_events: { open: { backend: string }[] } };
      }>(offline.url, 'GET', '/v1/admin/overview', { key: operator });
      expect(overview.body.payload.health).toBe('degraded');
      expect(overview.body.payload.service_events.open.map((o) => o.backend)).toEqual(['temporal']);
    } finally {
      await offline.close();
    }
  });
});

describe('overview', () => {
  it('counts tenants, keys and traffic from the rollups', async () => {
    await app.deps.ledger.flush();
    const res = await get<{
      payload: {
        organizations: Record<string, number>;
        principals: Record<string, number>;
        keys: Record<string, number>;
        sessions: { total: number };
        last_24h: { requests: number; error_rate: number; p95_latency_ms: number | null };
        this_hour: { requests: number };
        top_families: { family: string; requests: number }[];
        top_keys: { key_id: string; requests: number }[];
        health: string;
        generated_at: string;
      };
    }>('/v1/admin/overview');
    expect(res.status).toBe(200);
    const o = res.body.payload;
    expect(o.keys['active']).toBe(4);
    expect(o.keys['total']).toBe(4);
    expect(o.principals['total']).toBe(4);
    expect(o.organizations['active']).toBeGreaterThanOrEqual(2);
    const usage = await allPages<UsageItem>(app, '/v1/admin/usage?granularity=hour', 500);
    // Up to this request's own flush: the rollups at the time of the overview.
    expect(o.last_24h.requests).toBeLessThanOrEqual(
      usage.reduce((n, i) => n + i.usage.requests, 0),
    );
    expect(o.last_24h.requests).toBeGreaterThanOrEqual(12 + 6 + 6);
    expect(o.this_hour.requests).toBeLessThanOrEqual(o.last_24h.requests);
    expect(o.last_24h.error_rate).toBe(0);
    expect(o.top_keys.map((k) => k.key_id)).toContain(traffic.keyId);
    expect(o.top_families.map((f) => f.family)).toContain('runtime_basic');
    expect(['ok', 'degraded']).toContain(o.health);
  });
});

describe('prune-ledgers', () => {
  let pruneApp: TestApp;
  beforeAll(async () => {
    pruneApp = await startTestApp('admin_ops_prune', { adminKey: app.adminKey });
  });
  afterAll(() => pruneApp.close());

  const prune = (body: unknown) =>
    call<
      {
        payload: {
          dry_run: boolean;
          older_than: string;
          audit_floor: string;
          deleted: Record<string, number>;
        };
      } & ErrorBody
    >(pruneApp.url, 'POST', '/v1/admin/prune-ledgers', { key: operator, body });

  it('refuses a missing, malformed or future cut-off and unknown fields (422)', async () => {
    for (const body of [
      {},
      { older_than: 'last week' },
      { older_than: new Date(Date.now() + 3_600_000).toISOString() },
      // Younger than the minimum retention (7 days), even as a dry run.
      { older_than: new Date(Date.now() - 86_400_000).toISOString(), dry_run: true },
      // A real prune without its confirmation.
      { older_than: '2020-01-01T00:00:00Z' },
      { older_than: '2020-01-01T00:00:00Z', confirm: 'yes' },
      { older_than: '2020-01-01T00:00:00Z', everything: true },
      { older_than: '2020-01-01T00:00:00Z', dry_run: 'yes' },
    ]) {
      const res = await prune(body);
      expect(res.status).toBe(422);
    }
  });

  it('deletes exactly what is older than the cut-off, never audit rows younger than the floor', async () => {
    const { repos } = pruneApp.deps;
    await pruneApp.deps.ledger.flush();
    const day = 86_400_000;
    // A cut-off on an hour boundary ten days ago.
    const cutMs = Math.floor((Date.now() - 10 * day) / 3_600_000) * 3_600_000;
    const iso = (ms: number) => new Date(ms).toISOString();
    const row = (ms: number): RequestLedgerRow => ({
      request_id: `p-${ms}`,
      at: iso(ms),
      method: 'GET',
      route: '/prune',
      operation_id: null,
      family: null,
      status: 200,
      latency_ms: 1,
      key_id: null,
      principal_id: null,
      client_ip: '127.0.0.1',
      error_code: null,
    });
    // Buckets: all rows older (deleted); last row exactly at the cut-off (kept); straddling (kept).
    await repos.requestLedger.insertBucket('p', [row(cutMs - 2000), row(cutMs - 1)]);
    await repos.requestLedger.insertBucket('p', [row(cutMs - 1000), row(cutMs)]);
    await repos.requestLedger.insertBucket('p', [row(cutMs - 1000), row(cutMs + 1000)]);
    // Rollups: the hour that ended at the cut-off (deleted), the hour that starts there (kept).
    const rollup = (hourMs: number, n: number): UsageRollup => ({
      _id: `prune-${n}`,
      bucket_id: 'prune',
      instance: 'p',
      key_id: 'aaaaaaaaaaaa',
      organization_id: null,
      hour: iso(hourMs).slice(0, 13),
      day: iso(hourMs).slice(0, 10),
      family: 'runtime_basic',
      requests: 1,
      errors: 0,
      server_errors: 0,
      rate_limited: 0,
      latency_buckets: [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    });
    await repos.usageRollups.insertMany([
      rollup(cutMs - 3_600_000, 1),
      rollup(cutMs - 2 * 3_600_000, 2),
      rollup(cutMs, 3),
    ]);
    // Service events a millisecond before (deleted) and at the cut-off (kept).
    for (const [i, ms] of [cutMs - 1, cutMs].entries()) {
      await repos.serviceEvents.insert({
        _id: `sev_PRUNE${i}0000000000`,
        at: iso(ms),
        kind: 'test.prune',
        level: 'info',
        instance: 'p',
        message: 'x',
        detail: {},
      });
    }
    // Audit rows: around the retention floor (now − 365 days) and younger than the cut-off.
    const floorMs = Date.now() - 365 * day;
    for (const ms of [floorMs - 60_000, floorMs - 400 * day, floorMs + 60_000, cutMs - 1]) {
      await repos.audit.record({
        at: iso(ms),
        actor: { key_id: 'aaaaaaaaaaaa', principal_id: 'prn_00000000000000000000000000' },
        action: 'test.prune',
        target: { type: 'test', id: String(ms) },
        before: null,
        after: null,
        request_id: 'r',
      });
    }
    const counts = async () => ({
      buckets: await storedIn(pruneApp.deps.db).requestLedger.countDocuments({ instance: 'p' }),
      rollups: await storedIn(pruneApp.deps.db).usageRollups.countDocuments({ bucket_id: 'prune' }),
      events: await storedIn(pruneApp.deps.db).serviceEvents.countDocuments({ kind: 'test.prune' }),
      audit: await storedIn(pruneApp.deps.db).audit.countDocuments({ action: 'test.prune' }),
      prunes: await storedIn(pruneApp.deps.db).audit.countDocuments({ action: 'ledgers.prune' }),
    });
    const before = await counts();
    expect(before).toEqual({ buckets: 3, rollups: 3, events: 2, audit: 4, prunes: 0 });

    const expected = {
      requests: 2,
      request_buckets: 1,
      usage_rollups: 2,
      service_events: 1,
      audit: 2,
    };
    const dry = await prune({ older_than: iso(cutMs), dry_run: true });
    expect(dry.status).toBe(200);
    expect(dry.body.payload).toMatchObject({ dry_run: true, older_than: iso(cutMs) });
    expect(dry.body.payload.deleted).toEqual(expected);
    expect(Date.parse(dry.body.payload.audit_floor)).toBeCloseTo(floorMs, -4);
    expect(await counts()).toEqual(before);

    const real = await prune({ older_than: iso(cutMs), confirm: 'delete' });
    expect(real.status).toBe(200);
    expect(real.body.payload).toMatchObject({ dry_run: false, deleted: expected });
    expect(await counts()).toEqual({ buckets: 2, rollups: 1, events: 1, audit: 2, prunes: 1 });
    const kept = await storedIn(pruneApp.deps.db)
      .audit.find({ action: 'test.prune' })
      .map((r) => Date.parse(r.at))
      .toArray();
    expect(kept.sort()).toEqual([floorMs + 60_000, cutMs - 1].sort());

    const trail = await call<Page<{ action: string; after: { deleted: unknown } }>>(
      pruneApp.url,
      'GET',
      '/v1/admin/audit?action=ledgers.prune',
      { key: operator },
    );
    expect(trail.body.payload.items).toHaveLength(1);
    expect(trail.body.payload.items[0].after.deleted).toEqual(expected);

    // Pruning again finds nothing more.
    const again = await prune({ older_than: iso(cutMs), dry_run: true });
    expect(again.body.payload.deleted).toEqual({
      requests: 0,
      request_buckets: 0,
      usage_rollups: 0,
      service_events: 0,
      audit: 0,
    });
  });
});
