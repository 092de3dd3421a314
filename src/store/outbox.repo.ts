import type { Db } from 'mongodb';

/** A message put in the outbox by a `notify` action (one per action). */
export interface OutboxMessage {
  /** The action id: a retried delivery finds its own message. */
  _id: string;
  channel: string;
  message: string;
  shared_context_id: string | null;
  created_at: string;
}

export function createOutboxRepo(db: Db) {
  const col = db.collection<OutboxMessage>('outbox');
  return {
    /** Inserts once; returns the stored message either way. */
    async putOnce(message: OutboxMessage): Promise<OutboxMessage> {
      const stored = await col.findOneAndUpdate(
        { _id: message._id },
        { $setOnInsert: message },
        { upsert: true, returnDocument: 'after' },
      );
      return stored ?? message;
    },
  };
}

export type OutboxRepo = ReturnType<typeof createOutboxRepo>;
