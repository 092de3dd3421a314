import type { ServiceEventQuery } from '../domain/operations/schemas';
import type { ListFilter } from '../lib/schema';
import type { Db, Filter } from 'mongodb';
import { insertOnce } from './mongo';
import { newestByTimePage, type PagePosition } from './paging';

/** Severity of a service event. */
export type ServiceEventLevel = 'info' | 'warn' | 'error';

/**
 * Something that happened to the service itself (not to a tenant's data): a process start
 * or stop, a backend going down or coming back, a failed workflow. Insert-only.
 */
export interface ServiceEvent {
  /** `sev_` + a ULID, or a digest of what happened when several processes may see it. */
  _id: string;
  at: string;
  /** `api.started`, `backend.down`, `workflow.failed`... (docs/operations.md). */
  kind: string;
  level: ServiceEventLevel;
  /** The api instance or worker that recorded it. */
  instance: string;
  message: string;
  detail: Record<string, unknown>;
}

/** Filters of the service-event listing; `until` is exclusive. */
export type ServiceEventFilter = ListFilter<ServiceEventQuery>;

export function createServiceEventsRepo(db: Db) {
  const col = db.collection<ServiceEvent>('service_events');
  return {
    /** Events of one kind at or after `since`. */
    countOfKindSince: (kind: string, since: string): Promise<number> =>
      col.countDocuments({ kind, at: { $gte: since } }),
    /** Inserts once: false when an event with this id is already there (a claim). */
    async insert(event: ServiceEvent): Promise<boolean> {
      return insertOnce(col, event);
    },
    /** Newest first by (`at`, `_id`), strictly after `after`. */
    async list(filter: ServiceEventFilter, limit: number, after?: PagePosition) {
      const clauses: Filter<ServiceEvent>[] = [];
      if (filter.kind) clauses.push({ kind: filter.kind });
      if (filter.level) clauses.push({ level: filter.level });
      return newestByTimePage(col, clauses, filter, limit, after);
    },
    /** The newest event of a kind, if any. */
    newestOfKind: (kind: string) => col.find({ kind }).sort({ at: -1, _id: -1 }).limit(1).next(),
    /** Events of the given kinds at or after `since`, oldest first. */
    ofKindsSince: (kinds: string[], since: string) =>
      col
        .find({ kind: { $in: kinds }, at: { $gte: since } })
        .sort({ at: 1, _id: 1 })
        .toArray(),
    /** Events per level at or after `since`. */
    async countByLevelSince(since: string): Promise<Record<ServiceEventLevel, number>> {
      const counts: Record<ServiceEventLevel, number> = { info: 0, warn: 0, error: 0 };
      const groups = await col
        .aggregate<{ _id: ServiceEventLevel; n: number }>([
          { $match: { at: { $gte: since } } },
          { $group: { _id: '$level', n: { $sum: 1 } } },
        ])
        .toArray();
      for (const group of groups) counts[group._id] = group.n;
      return counts;
    },
    countOlderThan: (cutoff: string) => col.countDocuments({ at: { $lt: cutoff } }),
    async deleteOlderThan(cutoff: string): Promise<number> {
      return (await col.deleteMany({ at: { $lt: cutoff } })).deletedCount;
    },
  };
}

export type ServiceEventsRepo = ReturnType<typeof createServiceEventsRepo>;
