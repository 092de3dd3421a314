import type { Collection, Db } from 'mongodb';
import { isDuplicateKey } from './mongo';

interface StatusClaim {
  /** `<record type>:<record id>:<updated_at the change was based on>`. */
  _id: string;
  at: string;
}

export type StatusClaimsRepo = ReturnType<typeof createStatusClaimsRepo>;

/**
 * Claims of control-plane status changes. A change claims the version of the record it
 * read (its `updated_at`) by a unique insert, the one write FerretDB makes exclusive, so of
 * two changes based on the same read exactly one goes ahead.
 */
export function createStatusClaimsRepo(db: Db) {
  const col: Collection<StatusClaim> = db.collection<StatusClaim>('status_change_claims');
  return {
    /** True when this change is the first based on `basedOn`; false when another was. */
    async claim(type: string, id: string, basedOn: string, now: string): Promise<boolean> {
      try {
        await col.insertOne({ _id: `${type}:${id}:${basedOn}`, at: now });
        return true;
      } catch (error) {
        if (isDuplicateKey(error)) return false;
        throw error;
      }
    },
  };
}
