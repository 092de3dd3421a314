import type { Db, Document } from 'mongodb';
import { SCOPE_COLLECTIONS } from '../domain/checkpoints/schemas';

const READABLE = new Set(Object.values(SCOPE_COLLECTIONS).flat());
/** What the proof checks read (docs/proofs.md). */
const CHECKED = new Set([
  'action_ledger',
  'external_actions',
  'world_objects',
  'world_history',
  'external_events',
  'audit',
  'request_ledger',
  'artifacts',
  'repair_ledger',
  'api_keys',
  'principals',
  'organizations',
  'approver_keys',
  'approval_rules',
  'quota_policies',
  'action_ends',
]);

/**
 * Every document of a collection a checkpoint copies, streamed in the store's own order:
 * no sort and no filter, because FerretDB v1 then streams rows from SQLite in batches
 * instead of decoding the whole collection first (a sort makes it load everything).
 */
export function createCollectionReader(db: Db) {
  return {
    /**
     * The first `limit` documents of a collection a proof checks, in the store's order, and
     * whether there were more (read as `limit + 1`; FerretDB pushes a bare limit down).
     */
    async firstOf<T extends Document>(
      collection: string,
      limit: number,
    ): Promise<{ rows: T[]; more: boolean }> {
      if (!CHECKED.has(collection)) throw new Error(`collection ${collection} is not checked`);
      const rows = await db
        .collection<T>(collection)
        .find({}, { batchSize: 1000, limit: limit + 1 })
        .toArray();
      return { rows: rows.slice(0, limit) as T[], more: rows.length > limit };
    },
    stream(collection: string): AsyncIterable<Document> {
      if (!READABLE.has(collection)) throw new Error(`collection ${collection} is not copied`);
      return db.collection(collection).find({}, { batchSize: 1000 });
    },
  };
}

export type CollectionReader = ReturnType<typeof createCollectionReader>;
