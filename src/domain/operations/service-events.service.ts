import type { DomainInfra } from '../infra';
import type { ServiceEvent, ServiceEventFilter } from '../../store/service-events.repo';
import { timelinePage } from './timeline-page';

export type ServiceEventListQuery = ServiceEventFilter & { limit?: number; cursor?: string };

const eventView = (event: ServiceEvent) => ({
  event_id: event._id,
  at: event.at,
  kind: event.kind,
  level: event.level,
  message: event.message,
  detail: event.detail,
  instance: event.instance,
});

/** `GET /v1/admin/service-events`: newest first; cursor (`at`, `event_id`). */
export function listServiceEvents(deps: Pick<DomainInfra, 'repos'>, query: ServiceEventListQuery) {
  return timelinePage(query, (...page) => deps.repos.serviceEvents.list(...page), eventView);
}
