import { MongoBulkWriteError, type Db, type Filter } from 'mongodb';
import { isDuplicateKey } from './mongo';

/** Upper bounds (ms) of the latency histogram of a rollup; one more bucket holds the rest. */
export const LATENCY_BOUNDS_MS = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000] as const;

/** What a rollup counts. */
export interface UsageCounts {
  requests: number;
  /** Answered 4xx or 5xx. */
  errors: number;
  /** Answered 5xx. */
  server_errors: number;
  /** Answered 429. */
  rate_limited: number;
  /** Requests per latency bucket (`LATENCY_BOUNDS_MS`, then the rest). */
  latency_buckets: number[];
}

/**
 * Request counts of one ledger flush for one (key, hour, route family): insert-only, so
 * several api instances never lose an increment (FerretDB's `$inc` can); readers sum them.
 */
export interface UsageRollup extends UsageCounts {
  /** `<request-ledger bucket id>.<n>`: a retried flush re-inserts the same ids. */
  _id: string;
  bucket_id: string;
  instance: string;
  key_id: string;
  organization_id: string | null;
  /** The UTC hour, `YYYY-MM-DDTHH`. */
  hour: string;
  /** The UTC day, `YYYY-MM-DD`. */
  day: string;
  family: string;
}

export function createUsageRollupsRepo(db: Db) {
  const col = db.collection<UsageRollup>('usage_rollups');
  return {
    /** Inserts the rollups of one flush; ids already there (a retried flush) are skipped. */
    async insertMany(rollups: UsageRollup[]): Promise<void> {
      if (rollups.length === 0) return;
      try {
        await col.insertMany(rollups, { ordered: false });
      } catch (error) {
        const writeErrors: { code: number }[] =
          error instanceof MongoBulkWriteError
            ? ([] as { code: number }[]).concat(error.writeErrors)
            : [];
        const onlyDuplicates = writeErrors.length > 0 && writeErrors.every((e) => e.code === 11000);
        if (!onlyDuplicates && !isDuplicateKey(error)) throw error;
      }
    },
    /** Rollups matching `filter` in `sort` order, without their bookkeeping fields. */
    find(filter: Filter<UsageRollup>, sort: Record<string, 1 | -1>) {
      return col
        .find(filter, { projection: { bucket_id: 0, instance: 0 } })
        .sort(sort)
        .batchSize(1000);
    },
    /** Rollups of hours that ended at or before the start of `hour` (`YYYY-MM-DDTHH`). */
    countBeforeHour: (hour: string) => col.countDocuments({ hour: { $lt: hour } }),
    async deleteBeforeHour(hour: string): Promise<number> {
      return (await col.deleteMany({ hour: { $lt: hour } })).deletedCount;
    },
  };
}

export type UsageRollupsRepo = ReturnType<typeof createUsageRollupsRepo>;
