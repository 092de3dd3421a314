import { readinessOf } from '../../src/observability/readiness';
import type { BackendProbe } from '../../src/observability/service-monitor';

const probe = (mongo: boolean, temporal: boolean, pollers: number): BackendProbe => ({
  checked_at: '2026-01-01T00:00:00.000Z',
  mongodb: { up: mongo, latency_ms: 1, error: mongo ? null : 'connection refused' },
  temporal: { up: temporal, latency_ms: 1, error: temporal ? null : 'unreachable', pollers },
});

describe('readiness from a probe', () => {
  it('is ready with every backend up and a worker polling', () => {
    expect(readinessOf(probe(true, true, 1), 'q')).toMatchObject({ status: 'ready', failing: [] });
  });

  it('is degraded, not unready, when only the worker is missing', () => {
    const readiness = readinessOf(probe(true, true, 0), 'q');
    expect(readiness).toMatchObject({ status: 'degraded', failing: ['worker'] });
    expect(readiness.checks['worker']).toMatchObject({ ok: false, task_queue: 'q' });
  });

  it('is not ready when MongoDB or Temporal is down, naming them', () => {
    expect(readinessOf(probe(false, true, 1), 'q')).toMatchObject({
      status: 'not_ready',
      failing: ['mongodb'],
    });
    expect(readinessOf(probe(true, false, 0), 'q')).toMatchObject({
      status: 'not_ready',
      failing: ['temporal', 'worker'],
    });
  });
});
