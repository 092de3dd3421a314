import type { Collection, Db } from 'mongodb';

/** One append-only world history event. */
export interface WorldHistoryEvent {
  _id: string;
  kind: string;
  object_id?: string;
  at: string;
  change: Record<string, unknown>;
}

export type WorldHistoryRepo = ReturnType<typeof createWorldHistoryRepo>;

export function createWorldHistoryRepo(db: Db) {
  const col: Collection<WorldHistoryEvent> = db.collection<WorldHistoryEvent>('world_history');
  return {
    collection: col,
    async ensureIndexes(): Promise<void> {
      await col.createIndex({ object_id: 1, _id: -1 }, { name: 'by_object' });
    },
    /** Appends once: a repeat with the same id (an activity retry) is a no-op. */
    async appendOnce(event: WorldHistoryEvent): Promise<void> {
      await col.updateOne({ _id: event._id }, { $setOnInsert: event }, { upsert: true });
    },
  };
}
