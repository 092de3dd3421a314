import { randomBytes } from 'node:crypto';
import type { WorkflowTypes } from '../../workflows/workflow-types';
import { API_VERSION } from '../../lib/version';
import type { DomainInfra } from '../infra';
import type { ServiceProbeInput, ServiceProbeResult } from '../../workflows/service-probe.contract';

type Deps = Pick<
  DomainInfra,
  'config' | 'instanceId' | 'ledger' | 'metrics' | 'monitor' | 'startedAt' | 'temporal'
>;

export type HealthStatus = 'ok' | 'degraded' | 'down';

export interface HealthComponent {
  name: string;
  status: HealthStatus;
  latency_ms: number | null;
  detail: string | null;
}

/** How long service health waits for the probe workflow to come back from a worker. */
export const PROBE_TIMEOUT_MS = 3000;

const round = (ms: number): number => Math.round(ms * 100) / 100;

type ProbeOutcome = { result: ServiceProbeResult } | { error: unknown } | { timedOut: true };

/**
 * Runs `serviceProbeWorkflow` (api → Temporal → worker → activity → back) and waits at most
 * `PROBE_TIMEOUT_MS`. A probe still running then is terminated, so it never runs late.
 */
async function probeWorker(deps: Deps): Promise<HealthComponent> {
  const started = performance.now();
  try {
    const client = await deps.temporal.getClient();
    const input: ServiceProbeInput = { requestedAt: new Date().toISOString() };
    const handle = await client.workflow.start<WorkflowTypes['serviceProbeWorkflow']>(
      'serviceProbeWorkflow',
      {
        taskQueue: deps.temporal.taskQueue,
        workflowId: `service-probe-${deps.instanceId}-${Date.now()}-${randomBytes(3).toString('hex')}`,
        args: [input],
        workflowExecutionTimeout: '1 minute',
      },
    );
    deps.metrics.workflowStarts.inc({ workflow_type: 'serviceProbeWorkflow' });
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race<ProbeOutcome>([
      handle.result().then(
        (result) => ({ result }),
        (error: unknown) => ({ error }),
      ),
      new Promise<ProbeOutcome>((resolve) => {
        timer = setTimeout(() => resolve({ timedOut: true }), PROBE_TIMEOUT_MS);
      }),
    ]);
    clearTimeout(timer);
    const latency = round(performance.now() - started);
    if ('result' in outcome) {
      const queueLag = Date.parse(outcome.result.activityAt) - Date.parse(input.requestedAt);
      return {
        name: 'worker',
        status: 'ok',
        latency_ms: latency,
        detail: `probe workflow ran on ${outcome.result.workerIdentity}; its activity started ${Math.max(0, queueLag)} ms after the request`,
      };
    }
    if ('timedOut' in outcome) {
      await handle.terminate('service health probe timed out').catch(() => undefined);
    }
    return {
      name: 'worker',
      status: 'degraded',
      latency_ms: latency,
      detail:
        'timedOut' in outcome
          ? `workers poll the task queue but the probe workflow did not complete within ${PROBE_TIMEOUT_MS} ms`
          : `the probe workflow failed: ${outcome.error instanceof Error ? outcome.error.message : String(outcome.error)}`,
    };
  } catch (error) {
    return {
      name: 'worker',
      status: 'degraded',
      latency_ms: round(performance.now() - started),
      detail: `the probe workflow could not start: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

/** This instance's request-ledger writer: how far behind the store it is. */
function ledgerLag(deps: Deps): HealthComponent {
  const status = deps.ledger.status();
  const age = status.oldest_unflushed_at ? Date.now() - Date.parse(status.oldest_unflushed_at) : 0;
  const bound = Math.max(10 * deps.config.requestLedgerFlushMs, 10_000);
  const behind = status.last_error !== null || age > bound;
  const parts = [
    `${status.unflushed} rows not yet written, the oldest ${Math.max(0, age)} ms old`,
    `last flush ${status.last_flush_at ?? 'never'}`,
    ...(status.last_error ? [`last flush failed: ${status.last_error}`] : []),
    ...(status.dropped > 0 ? [`${status.dropped} rows dropped (buffer full)`] : []),
  ];
  return {
    name: 'request_ledger',
    status: behind ? 'degraded' : 'ok',
    latency_ms: Math.max(0, age),
    detail: parts.join('; '),
  };
}

/**
 * `GET /v1/admin/service-health`: MongoDB (ping), Temporal (reachable, namespace), the
 * worker (pollers on the task queue, then a probe workflow), and this instance's ledger
 * lag. Overall: `down` when MongoDB is (nothing works), else `degraded` when any component
 * is not `ok`, else `ok`. The probe also feeds the backend transitions (service events).
 */
export async function serviceHealth(deps: Deps) {
  const probe = await deps.monitor.probe();
  const components: HealthComponent[] = [
    {
      name: 'mongodb',
      status: probe.mongodb.up ? 'ok' : 'down',
      latency_ms: probe.mongodb.latency_ms,
      detail: probe.mongodb.up ? `database ${deps.config.mongodbDb}` : probe.mongodb.error,
    },
    {
      name: 'temporal',
      status: probe.temporal.up ? 'ok' : 'down',
      latency_ms: probe.temporal.latency_ms,
      detail: probe.temporal.up
        ? `namespace ${deps.temporal.namespace} at ${deps.config.temporalAddress}`
        : probe.temporal.error,
    },
  ];
  if (!probe.temporal.up) {
    components.push({
      name: 'worker',
      status: 'down',
      latency_ms: null,
      detail: 'unknown: Temporal is unreachable',
    });
  } else if (probe.temporal.pollers === 0) {
    components.push({
      name: 'worker',
      status: 'down',
      latency_ms: null,
      detail: `no worker is polling task queue ${deps.temporal.taskQueue}`,
    });
  } else {
    const worker = await probeWorker(deps);
    worker.detail = `${probe.temporal.pollers} poller(s) on ${deps.temporal.taskQueue}; ${worker.detail ?? ''}`;
    components.push(worker);
  }
  components.push(ledgerLag(deps));
  return {
    status: overallStatus(components),
    components,
    version: API_VERSION,
    instance: deps.instanceId,
    uptime_seconds: Math.round((Date.now() - deps.startedAt.getTime()) / 1000),
    checked_at: new Date().toISOString(),
  };
}

/** `down` when MongoDB is down; `degraded` when anything else is not ok. */
export function overallStatus(components: HealthComponent[]): HealthStatus {
  if (components.some((c) => c.name === 'mongodb' && c.status === 'down')) return 'down';
  return components.every((c) => c.status === 'ok') ? 'ok' : 'degraded';
}
