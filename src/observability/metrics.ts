import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The service's Prometheus metrics, on a registry of its own (no global state). */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    requests: new Counter({
      name: 'gr_http_requests_total',
      help: 'HTTP requests answered, by route family and status.',
      labelNames: ['family', 'status'] as const,
      registers: [registry],
    }),
    latency: new Histogram({
      name: 'gr_http_request_duration_seconds',
      help: 'HTTP request latency, by route family and status.',
      labelNames: ['family', 'status'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    limiterRejections: new Counter({
      name: 'gr_rate_limit_rejections_total',
      help: 'Requests refused by a rate limit or quota, by code.',
      labelNames: ['code'] as const,
      registers: [registry],
    }),
    mongoCommands: new Counter({
      name: 'gr_mongodb_commands_total',
      help: 'MongoDB commands sent by this process, by command name.',
      labelNames: ['command'] as const,
      registers: [registry],
    }),
    workflowStarts: new Counter({
      name: 'gr_workflow_starts_total',
      help: 'Temporal workflows started by the api, by workflow type.',
      labelNames: ['workflow_type'] as const,
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
