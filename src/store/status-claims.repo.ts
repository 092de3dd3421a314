import type { Db } from 'mongodb';
import { insertOnce } from './mongo';

interface StatusClaim {
  /** `<record type>:<record id>:<updated_at the change was based on>`. */
  _id: string;
  at: string;
}

/**
 * Claims of control-plane status changes. A change claims the version of the record it
 * read (its `updated_at`) by a unique insert, the one write FerretDB makes exclusive, so of
 * two changes based on the same read exactly one goes ahead.
 */
export function createStatusClaimsRepo(db: Db) {
  const col = db.collection<StatusClaim>('status_change_claims');
  return {
    /** True when this change is the first based on `basedOn`; false when another was. */
    async claim(type: string, id: string, basedOn: string, now: string): Promise<boolean> {
      return insertOnce(col, { _id: `${type}:${id}:${basedOn}`, at: now });
    },
  };
}

export type StatusClaimsRepo = ReturnType<typeof createStatusClaimsRepo>;
