import type { Collection, Db } from 'mongodb';

/** Something that happened to the service itself (not to a tenant's data). */
export interface ServiceEvent {
  _id: string;
  at: string;
  kind: string;
  level: 'info' | 'warn' | 'error';
  /** The api instance or worker that saw it. */
  source: string;
  message: string;
  detail: Record<string, unknown>;
}

export type ServiceEventsRepo = ReturnType<typeof createServiceEventsRepo>;

export function createServiceEventsRepo(db: Db) {
  const col: Collection<ServiceEvent> = db.collection<ServiceEvent>('service_events');
  return {
    collection: col,
    async ensureIndexes(): Promise<void> {
      // Ids are ULIDs (time-ordered): listed by `_id`.
    },
  };
}
