import type { Logger } from 'pino';
import type { Counter } from 'prom-client';
import type { SecurityEvent } from '../domain/worker-trust';
import { stableEventId, type ServiceEventRecorder } from './service-events';

/**
 * Reports a refused forgery three ways: a `warn` log line, the `gr_security_events_total`
 * counter (by kind) and a service event (`GET /v1/admin/service-events`), stored once per
 * happening even when a retried activity reports it again.
 */
export function createSecurityEventReporter(deps: {
  recorder: ServiceEventRecorder;
  logger: Logger;
  counter: Counter<'kind'>;
}): (event: SecurityEvent) => Promise<void> {
  return async (event) => {
    deps.logger.warn({ security_event: event.kind, ...event.detail }, event.message);
    deps.counter.inc({ kind: event.kind });
    await deps.recorder.record({
      id: stableEventId(event.kind, event.dedup_key),
      kind: event.kind,
      level: 'warn',
      message: event.message,
      detail: event.detail,
    });
  };
}
