import { createJoinedReads } from '../lib/joined-reads';
import { newestFilledSlot } from '../lib/slot-chain';
import type { Db } from 'mongodb';
import { isDuplicateKey } from './mongo';

/** One world revision: a marker that some world write completed before it was inserted. */
interface WorldRevision {
  _id: string;
  at: string;
}

/** Revisions are strings so FerretDB finds them by `_id` without a scan; padded to sort. */
const revisionKey = (revision: number): string => String(revision).padStart(12, '0');

/**
 * The world's revision counter: 1, 2, 3, … with no gaps, each claimed by a unique insert
 * (the one write FerretDB makes exclusive). Every world repository write ends by advancing
 * it, so a reader that remembers revision n knows nothing changed while n + 1 is absent:
 * one read by `_id` validates anything it cached (docs/world.md, "World revisions").
 *
 * The process remembers the highest revision it has seen; that is only a starting point,
 * as other processes advance the counter too.
 */
/** Tries at claiming a revision before the advance is owed. */
const ADVANCE_ATTEMPTS = 3;
/** How often an owed advance is tried again. */
const REPAY_EVERY_MS = 1000;

export function createWorldRevisionsRepo(db: Db) {
  const col = db.collection<WorldRevision>('world_revisions');
  let known = 0;
  // Advances asked for while one runs share the next run, which starts after they asked.
  let running: Promise<number> | undefined;
  let queued: Promise<number> | undefined;

  const exists = async (revision: number): Promise<boolean> =>
    revision <= 0 || (await col.findOne({ _id: revisionKey(revision) })) !== null;

  /** Whether `revision + 1` exists; concurrent callers share a read (`joined-reads.ts`). */
  const nextExists = createJoinedReads((revision: number) => exists(revision + 1));

  /** The newest revision at or after `from` (which must exist): the slot chain of revisions. */
  async function newestFrom(from: number): Promise<number> {
    const { slot } = await newestFilledSlot(
      async (revision) => ((await exists(revision)) ? revision : null),
      { slot: from, value: from },
    );
    known = Math.max(known, slot);
    return slot;
  }

  /**
   * Inserts the revision after the newest this process knows (one write when it is the only
   * writer); on a duplicate, finds the newest and tries the one after it. A claim always
   * follows a revision that exists, so the counter has no gaps; revisions are never deleted.
   */
  async function claimNext(): Promise<number> {
    let candidate = known + 1;
    for (;;) {
      try {
        await col.insertOne({ _id: revisionKey(candidate), at: new Date().toISOString() });
        known = Math.max(known, candidate);
        return candidate;
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        candidate = (await newestFrom(candidate)) + 1;
      }
    }
  }

  /**
   * An advance that failed is owed: until one succeeds this process treats every cached
   * read as changed (its own caches cannot go stale), and it keeps trying in the background
   * so the other processes' caches learn of the write too.
   */
  let owed = false;
  let repaying: NodeJS.Timeout | undefined;
  const owe = (): void => {
    owed = true;
    repaying ??= setInterval(() => {
      void claimWithRetries().then(
        () => undefined,
        () => undefined,
      );
    }, REPAY_EVERY_MS);
    repaying.unref();
  };
  const paid = (): void => {
    owed = false;
    if (repaying) clearInterval(repaying);
    repaying = undefined;
  };

  async function claimWithRetries(): Promise<number> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        const revision = await claimNext();
        paid();
        return revision;
      } catch (error) {
        if (attempt >= ADVANCE_ATTEMPTS) throw error;
        await new Promise((resolve) => setTimeout(resolve, 25 * 2 ** attempt));
      }
    }
  }

  /**
   * Claims the next revision; call after a world write has completed. Never fails the write
   * it follows: an advance that cannot be claimed now is owed (above); the answer is then
   * the newest revision this process knows.
   */
  function advance(): Promise<number> {
    if (!running) {
      running = claimWithRetries()
        .catch(() => {
          owe();
          return known;
        })
        .finally(() => {
          running = undefined;
        });
      return running;
    }
    queued ??= running
      .catch(() => undefined)
      .then(() => {
        queued = undefined;
        return advance();
      });
    return queued;
  }

  return {
    /** The current revision (0 before any write); `from` is a revision known to exist. */
    current: (from = known): Promise<number> => newestFrom(Math.max(from, 0)),
    /**
     * True when the world has changed since `revision` (one read by `_id`); always true
     * while this process owes an advance.
     */
    changedSince: async (revision: number): Promise<boolean> =>
      owed || (await nextExists(revision)),
    /** Whether this process owes an advance (a write whose revision is not claimed yet). */
    owesAdvance: (): boolean => owed,
    advance,
  };
}

export type WorldRevisionsRepo = ReturnType<typeof createWorldRevisionsRepo>;
