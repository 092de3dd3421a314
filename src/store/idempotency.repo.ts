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
  /** Payload fields of the answer that held a secret, stored (and replayed) redacted. */
  redacted?: string[];
  /** When the key was claimed; the record expires `IDEMPOTENCY_RETENTION_HOURS` later. */
  created_at: string;
}

export function createIdempotencyRepo(db: Db) {
  const col = db.collection<IdempotencyRecord>('idempotency_keys');
  return {
    /**
     * Claims the key by inserting it: the unique `_id` makes exactly one claimant win,
     * with no read-modify-write. Returns the existing record when someone holds it. A
     * record created before `expiredBefore` is expired: it is deleted (only that version of
     * it, so of two racing claimants one deletes and both then race on the insert) and the
     * key is claimed afresh, whether or not the periodic prune has reached it yet.
     */
    async claim(
      id: string,
      requestHash: string,
      now: string,
      expiredBefore: string,
    ): Promise<IdempotencyRecord | undefined> {
      for (let attempt = 0; ; attempt += 1) {
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
          if (!existing) {
            if (attempt < 2) continue; // expired and deleted by another claimant meanwhile
            throw error;
          }
          if (existing.created_at >= expiredBefore || attempt >= 2) return existing;
          await col.deleteOne({ _id: id, created_at: existing.created_at });
        }
      }
    },
    /** Deletes the records created before `before` (ISO 8601); how many went. */
    async prune(before: string): Promise<number> {
      const result = await col.deleteMany({ created_at: { $lt: before } });
      return result.deletedCount;
    },
    /** Stores the answer (secrets already redacted); only the claimant writes it. */
    async complete(
      id: string,
      status: number,
      body: string,
      headers: Record<string, string>,
      redacted: string[] = [],
    ): Promise<void> {
      await col.updateOne(
        { _id: id },
        {
          $set: { state: 'done', status, body, headers, ...(redacted.length ? { redacted } : {}) },
        },
      );
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
