import type { BackendProbe } from './service-monitor';

/** What `/readyz` answers. */
export interface Readiness {
  /** `degraded`: the api serves, but no worker polls, so work waits in the queue. */
  status: 'ready' | 'degraded' | 'not_ready';
  failing: string[];
  checked_at: string;
  checks: Record<string, { ok: boolean; error?: string; [detail: string]: unknown }>;
}

/**
 * Readiness from one probe of the backends. MongoDB or Temporal down takes this instance
 * out of rotation (`not_ready`); a missing worker does not, since every api instance would
 * be taken out at once while none of them could help (`degraded`).
 */
export function readinessOf(probe: BackendProbe, taskQueue: string): Readiness {
  const polling = probe.temporal.up && probe.temporal.pollers > 0;
  const checks: Readiness['checks'] = {
    mongodb: probe.mongodb.up ? { ok: true } : { ok: false, error: probe.mongodb.error ?? 'down' },
    temporal: probe.temporal.up
      ? { ok: true }
      : { ok: false, error: probe.temporal.error ?? 'down' },
    worker: {
      ok: polling,
      pollers: probe.temporal.pollers,
      task_queue: taskQueue,
      ...(polling ? {} : { error: 'no worker is polling the task queue' }),
    },
  };
  const failing = Object.entries(checks)
    .filter(([, check]) => !check.ok)
    .map(([name]) => name);
  const backendDown = failing.includes('mongodb') || failing.includes('temporal');
  return {
    status: backendDown ? 'not_ready' : failing.length > 0 ? 'degraded' : 'ready',
    failing,
    checked_at: probe.checked_at,
    checks,
  };
}
