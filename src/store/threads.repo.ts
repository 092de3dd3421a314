import type { Db } from 'mongodb';
import { LRUCache } from 'lru-cache';
import { insertOnce } from './mongo';

/** What a thread is about: a world object or a shared context. */
export interface ThreadSubject {
  kind: 'object' | 'context';
  id: string;
}

/** A thread id the server issued, and its subject (a thread id is a hash: not reversible). */
interface ThreadRecord {
  _id: string;
  subject: ThreadSubject;
}

/**
 * The thread ids issued so far. An id is registered when an answer first names it, so a
 * thread id the server never issued is unknown (404), like any other path id.
 */
export function createThreadsRepo(db: Db) {
  const col = db.collection<ThreadRecord>('intentionality_threads');
  const known = new LRUCache<string, ThreadSubject>({ max: 10_000 });
  return {
    /** Registers the threads (once each; this process remembers the newest 10,000). */
    async register(threads: readonly { thread_id: string; subject: ThreadSubject }[]) {
      const fresh = threads.filter((t) => !known.has(t.thread_id));
      if (fresh.length === 0) return;
      await Promise.all(
        fresh.map(async (t) => {
          await insertOnce(col, { _id: t.thread_id, subject: t.subject });
          known.set(t.thread_id, t.subject);
        }),
      );
    },
    async subjectOf(threadId: string): Promise<ThreadSubject | null> {
      const cached = known.get(threadId);
      if (cached) return cached;
      const found = await col.findOne({ _id: threadId });
      if (found) known.set(threadId, found.subject);
      return found?.subject ?? null;
    },
  };
}

export type ThreadsRepo = ReturnType<typeof createThreadsRepo>;
