import type { Collection, Db } from 'mongodb';

/**
 * Request counts of one ledger flush for one (key, hour, route family): insert-only, so
 * several api instances never lose an increment (FerretDB's `$inc` can); readers sum them.
 */
export interface UsageRollup {
  _id: string;
  key_id: string;
  organization_id: string | null;
  /** The UTC hour, `YYYY-MM-DDTHH`. */
  hour: string;
  /** The UTC day, `YYYY-MM-DD`. */
  day: string;
  family: string;
  requests: number;
  errors: number;
}

export type UsageRollupsRepo = ReturnType<typeof createUsageRollupsRepo>;

export function createUsageRollupsRepo(db: Db) {
  const col: Collection<UsageRollup> = db.collection<UsageRollup>('usage_rollups');
  return {
    collection: col,
    async ensureIndexes(): Promise<void> {
      await col.createIndex({ key_id: 1, hour: 1 }, { name: 'by_key_hour' });
    },
  };
}
