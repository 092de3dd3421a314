import { LRUCache } from 'lru-cache';
import type { WorldRevisionsRepo } from '../../store/world-revisions.repo';

interface CachedRead {
  /** The world revision read before the value was computed. */
  revision: number;
  value: unknown;
}

/** How a folded read is computed from nothing, and brought forward from an older value. */
export interface FoldedRead<T> {
  /** The value from the store, `revision` being the world revision read before it. */
  compute: (revision: number) => Promise<T>;
  /**
   * The value at `to` from the value at `from` (and the revisions between); null when it
   * cannot be brought forward, so it is computed again.
   */
  update: (value: T, from: number, to: number) => Promise<T | null>;
  /** A value some process stored, and the revision it was computed at (a cold cache). */
  load?: () => Promise<{ revision: number; value: T } | null>;
  /** Keeps a computed value for the cold caches of other processes; may fail. */
  save?: (revision: number, value: T) => Promise<void>;
}

export type WorldReadCache = ReturnType<typeof createWorldReadCache>;

/**
 * Caches whole-world reads (the state page, the per-kind census) in this process. An entry
 * computed at revision n stays good while revision n + 1 is absent, so a hit costs one read
 * by `_id` instead of the collection scans FerretDB answers those reads with. The revision is
 * read before the value, so a cached value includes at least every write up to it; writes in
 * flight meanwhile land a later revision and invalidate it.
 */
export function createWorldReadCache(
  revisions: Pick<WorldRevisionsRepo, 'current' | 'changedSince' | 'owesAdvance'>,
  maxEntries = 256,
) {
  const cache = new LRUCache<string, CachedRead>({ max: maxEntries });

  function store(key: string, revision: number, value: unknown): void {
    const newest = cache.get(key);
    if (!newest || newest.revision <= revision) cache.set(key, { revision, value });
  }

  return {
    /**
     * The cached value while the world is unchanged, else computed again. `staleMs`: the
     * caller accepts a value that misses other processes' writes of the last `staleMs`
     * (`WorldRevisionsRepo.changedSince`); this process's own writes are always seen.
     */
    async read<T>(key: string, compute: () => Promise<T>, staleMs = 0): Promise<T> {
      const entry = cache.get(key);
      if (entry && !(await revisions.changedSince(entry.revision, staleMs))) {
        return entry.value as T;
      }
      const revision = await revisions.current(entry?.revision);
      const value = await compute();
      store(key, revision, value);
      return value;
    },
    /**
     * As `read`, but a stale entry is brought forward by `update` (what the revisions
     * between say changed) instead of computed again; with no entry, a stored value (`load`)
     * is. While this process owes an advance its own writes are in no revision yet, so it
     * computes. A computed value is offered to `save`.
     */
    async fold<T>(key: string, how: FoldedRead<T>): Promise<T> {
      const cached = cache.get(key);
      if (cached && !(await revisions.changedSince(cached.revision))) return cached.value as T;
      const [current, stored] = await Promise.all([
        revisions.current(cached?.revision),
        cached ? null : (how.load?.().catch(() => null) ?? null),
      ]);
      let revision = current;
      const entry = cached ?? (stored ? { revision: stored.revision, value: stored.value } : null);
      let value: T | null = null;
      if (entry && !revisions.owesAdvance()) {
        if (entry.revision >= revision) {
          // A stored value as new as the revision read (or newer: stored meanwhile).
          [value, revision] = [entry.value as T, entry.revision];
        } else {
          value = await how.update(entry.value as T, entry.revision, revision);
        }
      }
      if (value === null) {
        value = await how.compute(revision);
        await how.save?.(revision, value).catch(() => undefined);
      }
      store(key, revision, value);
      return value;
    },
  };
}
