import { LRUCache } from 'lru-cache';
import type { WorldRevisionsRepo } from '../../store/world-revisions.repo';

interface CachedRead {
  /** The world revision read before the value was computed. */
  revision: number;
  value: unknown;
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
  revisions: Pick<WorldRevisionsRepo, 'current' | 'changedSince'>,
  maxEntries = 256,
) {
  const cache = new LRUCache<string, CachedRead>({ max: maxEntries });
  return {
    async read<T>(key: string, compute: () => Promise<T>): Promise<T> {
      const entry = cache.get(key);
      if (entry && !(await revisions.changedSince(entry.revision))) return entry.value as T;
      const revision = await revisions.current(entry?.revision);
      const value = await compute();
      const newest = cache.get(key);
      if (!newest || newest.revision <= revision) cache.set(key, { revision, value });
      return value;
    },
  };
}
