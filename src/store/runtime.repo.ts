import { createHash, randomBytes } from 'node:crypto';
import type { Db } from 'mongodb';
import { isDuplicateKey } from './mongo';

/** The runtime's own identity record: one document, created once per database. */
export interface RuntimeRecord {
  _id: 'runtime';
  runtime_id: string;
  /** Stable digest of the runtime's identity; continuity witnesses build on it. */
  identity_digest: string;
  created_at: string;
}

export function createRuntimeRepo(db: Db) {
  const col = db.collection<RuntimeRecord>('runtime');
  return {
    get: () => col.findOne({ _id: 'runtime' }),
    /** Creates the record once; concurrent first boots agree on whichever landed first. */
    async ensure(now: string): Promise<RuntimeRecord> {
      const runtimeId = randomBytes(8).toString('hex');
      const candidate: RuntimeRecord = {
        _id: 'runtime',
        runtime_id: runtimeId,
        identity_digest: createHash('sha256').update(`runtime:${runtimeId}:${now}`).digest('hex'),
        created_at: now,
      };
      try {
        await col.insertOne(candidate);
      } catch (error) {
        // Another instance booting at the same time created it first: theirs stands.
        if (!isDuplicateKey(error)) throw error;
      }
      const stored = await col.findOne({ _id: 'runtime' });
      if (!stored) throw new Error('runtime record missing after upsert');
      return stored;
    },
  };
}

export type RuntimeRepo = ReturnType<typeof createRuntimeRepo>;
