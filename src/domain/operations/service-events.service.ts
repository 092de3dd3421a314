import type { DomainInfra } from '../infra';
import { decodeCursor } from '../../store/paging';
import type { ServiceEvent, ServiceEventFilter } from '../../store/service-events.repo';
import { normalizeRange } from './periods';

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
export async function listServiceEvents(
  deps: Pick<DomainInfra, 'repos'>,
  query: ServiceEventListQuery,
) {
  const { limit = 50, cursor, ...filter } = normalizeRange(query);
  const page = await deps.repos.serviceEvents.list(
    filter,
    limit,
    cursor ? decodeCursor(cursor) : undefined,
  );
  return { items: page.items.map(eventView), next_cursor: page.next_cursor };
}
