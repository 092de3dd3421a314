import { call } from '../helpers/http';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker } from '../helpers/test-worker';

let app: TestApp;
beforeAll(async () => {
  // Probes often, so readiness (served from the newest probe) follows a worker quickly.
  app = await startTestApp('health', { env: { SERVICE_MONITOR_INTERVAL_MS: '200' } });
});
afterAll(() => app.close());

describe('health endpoints', () => {
  it('GET /healthz answers 200 with no key', async () => {
    const res = await call(app.url, 'GET', '/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok', version: '1.1.0' });
  });

  it('GET / names the service and links docs, the console, openapi and the Temporal UI', async () => {
    const res = await call<{ name: string; version: string; links: Record<string, string> }>(
      app.url,
      'GET',
      '/',
    );
    expect(res.status).toBe(200);
    expect(res.body.name).toBe('governed-runtime');
    expect(res.body.version).toBe('1.1.0');
    expect(Object.keys(res.body.links)).toEqual(
      expect.arrayContaining(['docs', 'openapi', 'temporal_ui']),
    );
    // scripts/start.sh prints this address: the one passkeys work at.
    expect(res.body.links['console']).toBe(`${app.deps.config.publicBaseUrl}/console`);
  });

  // Issue 10, risk 7: a missing worker degrades the service; it does not take every api
  // instance out of rotation.
  it('GET /readyz is 200 degraded naming the worker while none polls, ready once one does', async () => {
    const before = await call<{ status: string; failing: string[] }>(app.url, 'GET', '/readyz');
    expect(before.status).toBe(200);
    expect(before.body.status).toBe('degraded');
    expect(before.body.failing).toEqual(['worker']);

    const worker = await startTestWorker(app.deps);
    try {
      let ready = await call<{ status: string }>(app.url, 'GET', '/readyz');
      for (let i = 0; i < 40 && ready.body.status !== 'ready'; i += 1) {
        await new Promise((r) => setTimeout(r, 250));
        ready = await call(app.url, 'GET', '/readyz');
      }
      expect(ready.status).toBe(200);
      expect(ready.body.status).toBe('ready');
    } finally {
      await worker.stop();
    }
  });

  it('GET /readyz makes no backend round trip per call (served from the monitor)', async () => {
    const quiet = await startTestApp('health_quiet', {
      env: { SERVICE_MONITOR_INTERVAL_MS: '3600000' },
    });
    try {
      await call(quiet.url, 'GET', '/readyz');
      const counted = async () =>
        (await quiet.deps.metrics.mongoCommands.get()).values.find(
          (v) => v.labels['command'] === 'ping',
        )?.value ?? 0;
      const before = await counted();
      for (let i = 0; i < 20; i += 1) {
        expect((await call(quiet.url, 'GET', '/readyz')).status).toBeLessThan(500);
      }
      expect(await counted()).toBe(before);
    } finally {
      await quiet.close();
    }
  });

  it('GET /readyz is 503 naming temporal when Temporal is unreachable', async () => {
    const offline = await startTestApp('health_offline', {
      env: { TEMPORAL_ADDRESS: '127.0.0.1:1' },
    });
    try {
      const res = await call<{ failing: string[] }>(offline.url, 'GET', '/readyz');
      expect(res.status).toBe(503);
      expect(res.body.failing).toEqual(expect.arrayContaining(['temporal']));
      expect(res.body.failing).not.toContain('mongodb');
    } finally {
      await offline.close();
    }
  });
});

describe('GET /metrics', () => {
  it('serves Prometheus text to operators only', async () => {
    await call(app.url, 'GET', '/v1/runtime/status', { key: app.adminKey });
    const res = await call(app.url, 'GET', '/metrics', { key: app.adminKey });
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/gr_http_requests_total\{family="runtime_basic",status="200"\} \d+/);
    expect(res.text).toContain('gr_http_request_duration_seconds_bucket');
    expect((await call(app.url, 'GET', '/metrics')).status).toBe(401);
  });
});
