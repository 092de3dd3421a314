import { createJoinedReads } from '../lib/joined-reads';
import { newestFilledFrom } from '../lib/slot-chain';
import type { Db } from 'mongodb';
import { isDuplicateKey } from './mongo';

/** The newest history event as `history_head` orders them: by `at`, then `_id`. */
export interface WorldHistoryPosition {
  id: string;
  at: string;
}

/**
 * What the world writes a revision follows changed, as their writers pass it to `advance`:
 * the objects written, the objects created (per kind) and the history events appended.
 */
export interface WorldChange {
  /** Objects inserted or changed. */
  objects?: readonly string[];
  /** Objects this write created, per kind (never an object that already existed). */
  created?: Readonly<Record<string, number>>;
  /** History events appended (a repeat of an existing event may be given again). */
  history?: readonly WorldHistoryPosition[];
}

/**
 * One world revision: a marker that some world writes completed before it was inserted, and
 * what they changed. `object_counts` and `history_head` are cumulative, folded from the
 * revision before at the claim (docs/world.md, "World revisions"); both are absent on an
 * unfolded revision (one that follows a revision without them).
 */
interface WorldRevision {
  _id: string;
  at: string;
  /** Objects written since the revision before; absent when more than `MAX_OBJECTS`. */
  objects?: string[];
  /** Objects per kind after every write up to this revision. */
  object_counts?: Record<string, number>;
  /** Newest history event after every write up to this revision; null before any. */
  history_head?: WorldHistoryPosition | null;
}

/** What a folded revision says of the world as of it. */
export interface WorldTotals {
  objectCounts: Record<string, number>;
  historyHead: WorldHistoryPosition | null;
}

/** Most object ids one revision names; a larger change names none (readers recompute). */
const MAX_OBJECTS = 500;
/** Most revisions `objectsChanged` reads unless told more; further apart, "unknown". */
const MAX_FOLD = 64;
/** Revisions read at once when a fold reads many. */
const FOLD_READS_AT_ONCE = 256;

const later = (
  a: WorldHistoryPosition | null,
  b: WorldHistoryPosition | null,
): WorldHistoryPosition | null =>
  !a || (b && (b.at > a.at || (b.at === a.at && b.id > a.id))) ? b : a;

const newestOf = (positions: readonly WorldHistoryPosition[]): WorldHistoryPosition | null =>
  positions.reduce<WorldHistoryPosition | null>(later, null);

/** Two changes as one (advances asked for together share one revision). */
function mergeChanges(a: WorldChange, b: WorldChange): WorldChange {
  const created: Record<string, number> = { ...a.created };
  for (const [kind, n] of Object.entries(b.created ?? {})) created[kind] = (created[kind] ?? 0) + n;
  const head = newestOf([...(a.history ?? []), ...(b.history ?? [])]);
  return {
    objects: [...new Set([...(a.objects ?? []), ...(b.objects ?? [])])],
    created,
    history: head ? [head] : [],
  };
}

/** Revisions are strings so FerretDB finds them by `_id` without a scan; padded to sort. */
const revisionKey = (revision: number): string => String(revision).padStart(12, '0');

/**
 * The world's revision counter: 1, 2, 3, … with no gaps, each claimed by a unique insert
 * (the one write FerretDB makes exclusive). Every world repository write ends by advancing
 * it, so a reader that remembers revision n knows nothing changed while n + 1 is absent:
 * one read by `_id` validates anything it cached (docs/world.md, "World revisions").
 *
 * Each revision also carries what its writes changed, and the world's totals (objects per
 * kind, the history head) folded from the revision before it: revision n - 1 never changes
 * once inserted and revision n is inserted once, so the fold is not a read-modify-write
 * that two writers can race; the loser of a claim re-reads the winner's revision and folds
 * onto it. The fold starts at revision 1 from an empty world: world data written outside
 * the repositories, or before revisions carried totals (a chain whose revisions lack them),
 * is not in it, and readers then compute from the collections.
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
  /** The last revision this process inserted, so a sole writer folds without a read. */
  let lastClaimed: WorldRevision | undefined;
  /** Changes of writes whose revision is not claimed yet (shared by the next claim). */
  let pending: WorldChange = {};
  // Advances asked for while one runs share the next run, which starts after they asked.
  let running: Promise<number> | undefined;
  let queued: Promise<number> | undefined;

  const read = (revision: number): Promise<WorldRevision | null> =>
    col.findOne({ _id: revisionKey(revision) });

  const exists = async (revision: number): Promise<boolean> =>
    revision <= 0 ||
    (await col.findOne({ _id: revisionKey(revision) }, { projection: { _id: 1 } })) !== null;

  /** The last revision read as the newest, and when that read was asked for (`changedSince`). */
  let unchangedAt = { revision: -1, at: 0 };
  /** Whether `revision + 1` exists; concurrent callers share a read (`joined-reads.ts`). */
  const nextExists = createJoinedReads((revision: number) => exists(revision + 1));

  /** The newest revision at or after `from` (which must exist): the slot chain of revisions. */
  async function newestFrom(from: number): Promise<number> {
    const slot = await newestFilledFrom(exists, from);
    known = Math.max(known, slot);
    return slot;
  }

  /** Revision `candidate` carrying `change`, folded onto revision `candidate - 1`. */
  async function revisionAfter(candidate: number, change: WorldChange): Promise<WorldRevision> {
    const revision: WorldRevision = { _id: revisionKey(candidate), at: new Date().toISOString() };
    const objects = change.objects ?? [];
    if (objects.length <= MAX_OBJECTS) revision.objects = [...objects];
    let before: WorldTotals | null;
    if (candidate === 1) {
      // The chain starts here: every world write since reports its change to a revision.
      before = { objectCounts: {}, historyHead: null };
    } else {
      const previous =
        lastClaimed?._id === revisionKey(candidate - 1) ? lastClaimed : await read(candidate - 1);
      before = previous ? totalsOf(previous) : null;
    }
    if (before) {
      const counts = { ...before.objectCounts };
      for (const [kind, n] of Object.entries(change.created ?? {}))
        counts[kind] = (counts[kind] ?? 0) + n;
      revision.object_counts = counts;
      revision.history_head = later(before.historyHead, newestOf(change.history ?? []));
    }
    return revision;
  }

  /**
   * Inserts the revision after the newest this process knows (one write when it is the only
   * writer); on a duplicate, finds the newest and tries the one after it. A claim always
   * follows a revision that exists, so the counter has no gaps; revisions are never deleted.
   */
  async function claimNext(change: WorldChange): Promise<number> {
    let candidate = known + 1;
    for (;;) {
      const revision = await revisionAfter(candidate, change);
      try {
        await col.insertOne(revision);
        known = Math.max(known, candidate);
        lastClaimed = revision;
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
   * so the other processes' caches learn of the write too. The owed changes travel with it.
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
    const change = pending;
    pending = {};
    for (let attempt = 1; ; attempt += 1) {
      try {
        const revision = await claimNext(change);
        paid();
        return revision;
      } catch (error) {
        if (attempt >= ADVANCE_ATTEMPTS) {
          pending = mergeChanges(change, pending);
          throw error;
        }
        await new Promise((resolve) => setTimeout(resolve, 25 * 2 ** attempt));
      }
    }
  }

  /**
   * Claims the next revision carrying `change`; call after a world write has completed.
   * Never fails the write it follows: an advance that cannot be claimed now is owed (above);
   * the answer is then the newest revision this process knows.
   */
  function advance(change: WorldChange = {}): Promise<number> {
    pending = mergeChanges(pending, change);
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
     * while this process owes an advance or knows a later revision (its own writes, at once).
     * A caller that accepts `staleMs` takes "unchanged" from a read that started at most that
     * long before it asked, so a busy process reads once per window instead of per request:
     * a write by another process can then go unseen for up to `staleMs`.
     */
    async changedSince(revision: number, staleMs = 0): Promise<boolean> {
      if (owed || known > revision) return true;
      const asked = Date.now();
      if (staleMs > 0 && unchangedAt.revision === revision && asked - unchangedAt.at <= staleMs) {
        return false;
      }
      const changed = await nextExists(revision);
      if (!changed && (unchangedAt.revision !== revision || unchangedAt.at < asked)) {
        unchangedAt = { revision, at: asked };
      }
      return changed;
    },
    /** Whether this process owes an advance (a write whose revision is not claimed yet). */
    owesAdvance: (): boolean => owed,
    /**
     * The world's totals as of `revision` (one read by `_id`): every write whose advance
     * claimed `revision` or one before it. Null when the revision is unfolded or absent.
     */
    totalsAt: async (revision: number): Promise<WorldTotals | null> => {
      const doc = revision > 0 ? await read(revision) : null;
      return doc ? totalsOf(doc) : null;
    },
    /**
     * The objects written by the writes of revisions `from + 1` … `to` (one read by `_id`
     * each, in parallel); null when some revision does not name its objects or the two are
     * more than `maxFold` apart.
     */
    async objectsChanged(from: number, to: number, maxFold = MAX_FOLD): Promise<string[] | null> {
      if (to - from > maxFold || from < 0) return null;
      const ids = new Set<string>();
      for (let start = from + 1; start <= to; start += FOLD_READS_AT_ONCE) {
        const count = Math.min(FOLD_READS_AT_ONCE, to - start + 1);
        const docs = await Promise.all(Array.from({ length: count }, (_, i) => read(start + i)));
        for (const doc of docs) {
          if (!doc?.objects) return null;
          for (const id of doc.objects) ids.add(id);
        }
      }
      return [...ids];
    },
    advance,
  };
}

function totalsOf(revision: WorldRevision): WorldTotals | null {
  if (!revision.object_counts || revision.history_head === undefined) return null;
  return { objectCounts: revision.object_counts, historyHead: revision.history_head };
}

export type WorldRevisionsRepo = ReturnType<typeof createWorldRevisionsRepo>;
