import type { Db } from 'mongodb';
import { isDuplicateKey } from './mongo';

/** Concurrent upserts of one _id can collide on FerretDB; the shard is then written. */
const ignoreDuplicate = (error: unknown): void => {
  if (!isDuplicateKey(error)) throw error;
};

/**
 * One shard of a shared counter: the count one api instance has admitted for one subject
 * in one window. Each shard has exactly one writer (its instance), which writes the absolute
 * count, so correctness never rests on an atomic increment in the database.
 */
export interface RateCounterShard {
  /** `<subject>|<window>|<instance>` */
  _id: string;
  subject: string;
  window: string;
  instance: string;
  count: number;
  /** When the window is over and the shard may be pruned (epoch ms). */
  expires_at: number;
}

export function createRateCountersRepo(db: Db) {
  const col = db.collection<RateCounterShard>('rate_counters');
  return {
    /**
     * One replace per shard, side by side: FerretDB v1 was seen never to answer a bulkWrite
     * of about a hundred updates, so no bulk write is used.
     */
    async writeShards(shards: RateCounterShard[]): Promise<void> {
      await Promise.all(
        shards.map((shard) =>
          col.replaceOne({ _id: shard._id }, shard, { upsert: true }).catch(ignoreDuplicate),
        ),
      );
    },
    /** Every shard of the given windows of the given subjects. */
    async readShards(subjects: string[], windows: string[]): Promise<RateCounterShard[]> {
      if (subjects.length === 0) return [];
      return col.find({ subject: { $in: subjects }, window: { $in: windows } }).toArray();
    },
    async pruneExpired(nowMs: number): Promise<number> {
      const result = await col.deleteMany({ expires_at: { $lt: nowMs } });
      return result.deletedCount;
    },
  };
}

export type RateCountersRepo = ReturnType<typeof createRateCountersRepo>;
