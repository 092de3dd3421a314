import type { Db, Document } from 'mongodb';
import { SCOPE_COLLECTIONS } from '../domain/checkpoints/schemas';

const READABLE = new Set(Object.values(SCOPE_COLLECTIONS).flat());

/**
 * Every document of a collection a checkpoint copies, streamed in the store's own order:
 * no sort and no filter, because FerretDB v1 then streams rows from SQLite in batches
 * instead of decoding the whole collection first (a sort makes it load everything).
 */
export function createCollectionReader(db: Db) {
  return {
    stream(collection: string): AsyncIterable<Document> {
      if (!READABLE.has(collection)) throw new Error(`collection ${collection} is not copied`);
      return db.collection(collection).find({}, { batchSize: 1000 });
    },
  };
}

export type CollectionReader = ReturnType<typeof createCollectionReader>;
