import { LRUCache } from 'lru-cache';
import type { Collection } from 'mongodb';
import type { InboxEntry } from './inbox-entry';
import type { ByIdReader } from './reads-by-id';
import { parseEntries, type FeedEntry, type SlotFeed } from './slot-feed';

/**
 * The feed, and its one chain, listing every change to an inbox entry a reader may hold: an
 * update in place, a departure, an arrival over an entry that was there.
 */
export const CHANGES_COLLECTION = 'action_inbox_changes';
export const CHANGES_CHAIN = 'changes';

/** Entries a process keeps (a few hundred bytes each): a page's are `limit + 1` of them. */
const ENTRIES_KEPT = 20_000;
/** Listings a process knows are gone for good (`<tag>:<key>`, some 40 bytes each). */
const GONE_KEPT = 100_000;
/**
 * Slots of the changes chain a page reads to catch up at most; further behind (a process
 * that has not paged for a while on a busy inbox), the page forgets every entry instead and
 * reads its own by `_id`, as a first page does.
 */
const CATCH_UP_SLOTS = 16;

/** What a page found of a listing: the stored entry, or nothing when it is gone for good. */
export type Found = InboxEntry | null;

/**
 * The inbox entries a process read, kept so a page reads again only what changed
 * (docs/approvals.md, "Pages read by `_id`: the arrivals feed").
 *
 * Every writer of an entry lists its `_id` in the changes chain after the write
 * (`ActionInboxRepo.project`; a retry lists it again, in case its first attempt died between
 * the two), so a write done after a reader saw the chain's head `h` is listed above `h`: its
 * listing is inserted after the write, when slots up to `h` are filled and the chain has no
 * gaps. A page first reads the head and every slot above `seen` (the head the kept entries
 * are true at), forgets the entries they list and moves `seen` up; an entry it then reads is
 * true at `seen`, and is kept only when no other page moved `seen` meanwhile (`epoch`), since
 * a write listed in between may postdate the read.
 *
 * Two facts need no change log and are kept apart: a listing whose entry was missing, or
 * stored under another arrival, is gone for good (an action listed again gets a new tag).
 */
export function createInboxEntryCache(
  feed: Pick<SlotFeed, 'head' | 'slot'>,
  inbox: Collection<InboxEntry>,
  readByIds: ByIdReader,
) {
  const entries = new LRUCache<string, InboxEntry>({ max: ENTRIES_KEPT });
  const gone = new LRUCache<string, true>({ max: GONE_KEPT });
  /** The changes chain's slot the kept entries are true at; undefined before the first page. */
  let seen: number | undefined;
  /** Moves every time `seen` does or entries are forgotten. */
  let epoch = 0;

  /** Brings the kept entries up to the changes chain's head; answers the epoch they are at. */
  async function catchUp(): Promise<number> {
    const from = seen;
    const head = await feed.head(CHANGES_CHAIN);
    if (from !== undefined && head <= from) return epoch;
    const behind = from === undefined ? Infinity : head - from;
    const slots =
      behind > CATCH_UP_SLOTS
        ? null
        : await Promise.all(
            Array.from({ length: behind }, (_, i) => feed.slot(CHANGES_CHAIN, from! + 1 + i)),
          );
    // From here to the return, nothing awaits: the forgetting and the move are one step.
    if (slots === null || slots.some((slot) => slot === null)) entries.clear();
    else
      for (const slot of slots)
        for (const { key } of parseEntries(slot!.entries)) entries.delete(key);
    seen = Math.max(seen ?? 0, head);
    epoch += 1;
    return epoch;
  }

  const goneKey = (entry: FeedEntry) => `${entry.tag}:${entry.key}`;

  return {
    /**
     * What is stored for each listing, in their order: a kept entry under the listing's
     * arrival, else read by `_id` (the reads of one page sent at once). Null: gone for good.
     * `at` is the epoch `catchUp` answered at the page's start.
     */
    async read(listings: readonly FeedEntry[], at: number): Promise<Found[]> {
      const found: (Found | undefined)[] = listings.map((listing) => {
        if (gone.has(goneKey(listing))) return null;
        const kept = entries.get(listing.key);
        return kept?.arrival === listing.tag ? kept : undefined;
      });
      const missing = listings.filter((_, i) => found[i] === undefined);
      const stored = await readByIds(
        inbox,
        missing.map((listing) => listing.key),
      );
      let next = 0;
      return listings.map((listing, i): Found => {
        const known = found[i];
        if (known !== undefined) return known;
        const row = stored[next++];
        if (row && epoch === at) entries.set(listing.key, row);
        if (row?.arrival === listing.tag) return row;
        gone.set(goneKey(listing), true);
        return null;
      });
    },
    catchUp,
  };
}

export type InboxEntryCache = ReturnType<typeof createInboxEntryCache>;
