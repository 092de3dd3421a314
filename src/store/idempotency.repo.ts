import type { Db } from 'mongodb';
import { isDuplicateKey } from './mongo';

/** A claimed Idempotency-Key and, once answered, the response to replay. */
export interface IdempotencyRecord {
  /** sha256 of (caller, operation, Idempotency-Key). */
  _id: string;
  request_hash: string;
  state: 'pending' | 'done';
  status?: number;
  body?: string;
  headers?: Record<string, string>;
  created_at: string;
}

export function createIdempotencyRepo(db: Db) {
  const col = db.collection<IdempotencyRecord>('idempotency_keys');
  return {
    /**
     * Claims the key by inserting it: the unique `_id` makes exactly one claimant win,
     * with no read-modify-write. Returns the existing record when someone holds it.
     */
    async claim(
      id: string,
      requestHash: string,
      now: string,
    ): Promise<IdempotencyRecord | undefined> {
      try {
        await col.insertOne({
          _id: id,
          request_hash: requestHash,
          state: 'pending',
          created_at: now,
        });
        return undefined;
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        const existing = await col.findOne({ _id: id });
        if (!existing) throw error;
        return existing;
      }
    },
    /** Stores the answer; only the claimant writes it. */
    async complete(
      id: string,
      status: number,
      body: string,
      headers: Record<string, string>,
    ): Promise<void> {
      await col.updateOne({ _id: id }, { $set: { state: 'done', status, body, headers } });
    },
    /** Pending claims (tests and operations). */
    countPending: () => col.countDocuments({ state: 'pending' }),
    /** Releases a claim whose request failed server-side, so a retry can run. */
    async release(id: string): Promise<void> {
      await col.deleteOne({ _id: id, state: 'pending' });
    },
  };
}

export type IdempotencyRepo = ReturnType<typeof createIdempotencyRepo>;
