import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The service's Prometheus metrics, on a registry of its own (no global state). The two
 * counts bumped on every request or command are published when the registry is scraped (the
 * request count from the latency histogram, command counts from a plain map): prom-client
 * hashes the label object on every `inc`, a cost on the request's path that scraping pays
 * once instead (docs/performance.md).
 */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const latency = new Histogram({
    name: 'gr_http_request_duration_seconds',
    help: 'HTTP request latency, by route family and status.',
    labelNames: ['family', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const commandCounts = new Map<string, number>();
  return {
    registry,
    // The histogram's `_count` by the same labels, published under the counter's own name.
    requests: new Counter({
      name: 'gr_http_requests_total',
      help: 'HTTP requests answered, by route family and status.',
      labelNames: ['family', 'status'] as const,
      registers: [registry],
      async collect() {
        const counts = (await latency.get()).values.filter(
          (value) => value.metricName === 'gr_http_request_duration_seconds_count',
        );
        this.reset();
        for (const { labels, value } of counts) {
          this.inc({ family: labels['family'], status: labels['status'] }, value);
        }
      },
    }),
    latency,
    limiterRejections: new Counter({
      name: 'gr_rate_limit_rejections_total',
      help: 'Requests refused by a rate limit or quota, by code.',
      labelNames: ['code'] as const,
      registers: [registry],
    }),
    /** Counts one MongoDB command sent (published as `gr_mongodb_commands_total`). */
    countMongoCommand(command: string): void {
      commandCounts.set(command, (commandCounts.get(command) ?? 0) + 1);
    },
    mongoCommands: new Counter({
      name: 'gr_mongodb_commands_total',
      help: 'MongoDB commands sent by this process, by command name.',
      labelNames: ['command'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const [command, count] of commandCounts) this.inc({ command }, count);
      },
    }),
    workflowStarts: new Counter({
      name: 'gr_workflow_starts_total',
      help: 'Temporal workflows started by the api, by workflow type.',
      labelNames: ['workflow_type'] as const,
      registers: [registry],
    }),
    securityEvents: new Counter({
      name: 'gr_security_events_total',
      help: 'Starts, records and effects the worker refused because the api did not sign them, by kind.',
      labelNames: ['kind'] as const,
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
