import type { Db } from 'mongodb';

/**
 * Headline counts of record collections, by the store's estimate (collection metadata on
 * MongoDB; FerretDB counts by reading the collection). For summaries, never for decisions.
 */
export function createRecordCountsRepo(db: Db) {
  return {
    /** The exact number of records in each named collection, in order. */
    exact(collections: readonly string[]): Promise<number[]> {
      return Promise.all(collections.map((name) => db.collection(name).countDocuments()));
    },
    /** The estimated number of records in each named collection, in order. */
    estimate(collections: readonly string[]): Promise<number[]> {
      return Promise.all(collections.map((name) => db.collection(name).estimatedDocumentCount()));
    },
  };
}

export type RecordCountsRepo = ReturnType<typeof createRecordCountsRepo>;
