import { createKeyedMutex } from '../lib/keyed-mutex';
import { newestFilledSlot } from '../lib/slot-chain';
import { LRUCache } from 'lru-cache';
import type { Db } from 'mongodb';
import type { ChainedSlot } from './chained-slot';
import { insertOnce } from './mongo';

/** Continuity modes of a session (docs/sessions.md). */
export type SessionContinuityMode = 'preserve' | 'fresh';

/**
 * A session as created. Nothing in it ever changes: the step count and the state are read
 * from the session's steps (`session-steps.repo.ts`), so no update can be lost.
 */
export interface SessionRecord {
  _id: string;
  created_at: string;
  continuity_mode: SessionContinuityMode;
  shared_context_id: string | null;
  /** Derived from the runtime identity and the session; see docs/sessions.md. */
  identity_digest: string;
  runtime_id: string;
  /** Position of the session in the runtime's identity lineage. */
  lineage_seq: number;
  created_by: { principal_id: string; key_id: string };
}

/**
 * One link of the runtime's identity lineage: one per session, numbered densely from 1,
 * each carrying the digest of the link before it (the first one: the runtime's identity
 * digest), so the lineage is a hash chain rooted in the runtime identity.
 */
export interface LineageLink extends ChainedSlot {
  session_id: string;
  continuity_mode: SessionContinuityMode;
  identity_digest: string;
  created_at: string;
  /** Sessions in the lineage up to and including this one (= `_id`). */
  sessions: number;
  /** Of those, how many preserve their identity. */
  preserved: number;
}

/**
 * Sessions and their lineage. Both are insert-only; the lineage is claimed slot by slot
 * like session steps (unique `_id`, dense), so its head and length are found with `_id`
 * reads alone. Records never change, so this process caches them.
 */
export function createSessionsRepo(db: Db) {
  const sessions = db.collection<SessionRecord>('sessions');
  const lineage = db.collection<LineageLink>('session_lineage');
  const sessionCache = new LRUCache<string, SessionRecord>({ max: 10_000 });
  const linkCache = new LRUCache<number, LineageLink>({ max: 1_000 });
  let head: LineageLink | null = null;
  /** Lineage appends run one at a time in this process (see `appending`). */
  const appends = createKeyedMutex();

  const rememberLink = (link: LineageLink): void => {
    linkCache.set(link._id, link);
    if (!head || head._id < link._id) head = link;
  };

  async function link(seq: number): Promise<LineageLink | null> {
    const cached = linkCache.get(seq);
    if (cached) return cached;
    const found = await lineage.findOne({ _id: seq });
    if (found) rememberLink(found);
    return found;
  }

  /** The newest link at or after `floor` (the slot chain of `_id`s, src/lib/slot-chain.ts). */
  async function headFrom(floor: LineageLink | null): Promise<LineageLink | null> {
    const newest = await newestFilledSlot(link, { slot: floor?._id ?? 0, value: floor });
    return newest.value;
  }

  return {
    /** Sessions in all, and those created at or after `since`. */
    async countTotalAndSince(since: string): Promise<{ total: number; since: number }> {
      const [total, recent] = await Promise.all([
        sessions.countDocuments({}),
        sessions.countDocuments({ created_at: { $gte: since } }),
      ]);
      return { total, since: recent };
    },
    /** Every stored session, as the witness journal carries it. */
    async *witnessScan(): AsyncGenerator<{ kind: 'session'; record: SessionRecord }> {
      for await (const record of sessions.find()) yield { kind: 'session', record };
    },
    async findById(id: string): Promise<SessionRecord | null> {
      const cached = sessionCache.get(id);
      if (cached) return cached;
      const found = await sessions.findOne({ _id: id });
      if (found) sessionCache.set(id, found);
      return found;
    },
    async insert(record: SessionRecord): Promise<SessionRecord> {
      await sessions.insertOne(record);
      sessionCache.set(record._id, record);
      return record;
    },
    link,
    /** A link as stored now, past the cache: what a verifier must read. */
    readLink: (seq: number): Promise<LineageLink | null> => lineage.findOne({ _id: seq }),
    /** Appends a link; false when its sequence number is already taken. */
    async appendLink(candidate: LineageLink): Promise<boolean> {
      if (!(await insertOnce(lineage, candidate))) return false;
      rememberLink(candidate);
      return true;
    },
    /**
     * Runs `append` after every earlier append of this process: sessions created at once on
     * one instance then take consecutive links instead of racing for the same one (instances
     * still race each other; the unique insert keeps that correct).
     */
    appending: <T>(append: () => Promise<T>): Promise<T> => appends.run('lineage', append),
    /** The newest link, confirmed against the database; null before the first session. */
    lineageHead: (): Promise<LineageLink | null> => headFrom(head),
    /** The newest link as last seen here (to attempt the next append), else confirmed. */
    lineageLastKnown: async (): Promise<LineageLink | null> => head ?? headFrom(null),
  };
}

export type SessionsRepo = ReturnType<typeof createSessionsRepo>;
