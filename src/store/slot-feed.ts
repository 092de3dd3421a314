import { LRUCache } from 'lru-cache';
import type { Collection } from 'mongodb';
import { newestFilledFrom } from '../lib/slot-chain';
import { insertUnordered, isDuplicateRefusal } from './mongo';

/**
 * A feed: lists kept as slot chains (`lib/slot-chain.ts`) so a page of them, newest first,
 * is read by `_id` alone. Slot n of a chain is the document `<chain>/<n>`, claimed by a
 * unique insert once slot n − 1 is known to be filled, so the filled slots have no gaps.
 * Slots 1, 2, 3, … are written by `record`. The events history (`event-feed.ts`) and the
 * actions inbox (`inbox-arrivals.ts`) are feeds.
 *
 * A slot lists keys of records stored elsewhere; the reader reads each record by its key and
 * checks the entry's `tag` against it, so an entry whose record was never written, or was
 * written again under another tag, is skipped.
 */
export interface FeedSlot {
  _id: string;
  at: string;
  /**
   * The slot's entries in the order recorded, `<tag>:<key>` separated by spaces. One
   * string, not an array: FerretDB converts every array element with its type, so a large
   * slot costs it less to insert, and much less to read, as one string.
   */
  entries: string;
  /**
   * Set by readers of feeds whose records leave for good (the inbox): every entry of this
   * slot and of the slots down to `skip + 1` names a record that is gone, so a walk goes on
   * at slot `skip` (`walkFeed`).
   */
  skip?: number;
}

/** One entry of a slot: what the reader checks the record against, and the record's `_id`. */
export interface FeedEntry {
  tag: string;
  key: string;
}

/** `_id` of slot `slot` of `chain`. The chain may contain `/`; the slot never does. */
export const slotId = (chain: string, slot: number): string => `${chain}/${slot}`;

export const formatEntries = (entries: readonly FeedEntry[]): string =>
  entries.map((entry) => `${entry.tag}:${entry.key}`).join(' ');

export function parseEntries(text: string): FeedEntry[] {
  if (text === '') return [];
  return text.split(' ').map((part) => {
    const colon = part.indexOf(':');
    return { tag: part.slice(0, colon), key: part.slice(colon + 1) };
  });
}

/** Most entries one slot of a chain takes (records queued together share a slot up to it). */
export const ENTRIES_PER_SLOT = 1000;
/**
 * Chains whose head a process remembers, the least recently used forgotten first. A chain
 * forgotten costs its next claim about 2·log2(slots) probes (a try at slot 1, then a
 * gallop), so the limit must exceed the chains written in turn (one per world object): below
 * that, every claim pays the probes. 100,000 heads take about 10 MB.
 */
const HEADS_KEPT = 100_000;

/** What a feed lists of one record: its entry, in each of its chains. */
export interface Listing {
  chains: readonly string[];
  entry: FeedEntry;
}

interface Waiter {
  listings: readonly Listing[];
  settle: () => void;
  fail: (error: unknown) => void;
}

/**
 * A feed's slots in `col`: writing entries (`record`) and reading slots and heads. Each
 * process remembers the newest slot it has seen filled per chain: a claim tries the slot
 * after it (slot 1 for a chain it has not seen), and only a claim refused because another
 * process took the slot reads, probing by `_id` for the newest filled one, then tries again.
 * Records queued while one round is written share the next slots, so a busy process writes
 * one slot per chain touched per round trip.
 */
export function createSlotFeed(col: Collection<FeedSlot>) {
  const heads = new LRUCache<string, number>({ max: HEADS_KEPT });
  const waiting: Waiter[] = [];
  let writing = false;

  const knownHead = (chain: string): number => heads.get(chain) ?? 0;
  /** Notes that `slot` of `chain` is filled; the chain becomes the most recently used. */
  function remember(chain: string, slot: number): void {
    heads.set(chain, Math.max(knownHead(chain), slot));
  }

  const exists = async (chain: string, slot: number): Promise<boolean> =>
    (await col.findOne({ _id: slotId(chain, slot) }, { projection: { _id: 1 } })) !== null;

  /** The newest filled slot of `chain` at or after `from` (which is filled, or 0). */
  async function headFrom(chain: string, from: number): Promise<number> {
    const slot = await newestFilledFrom((candidate) => exists(chain, candidate), from);
    remember(chain, slot);
    return slot;
  }

  /** Claims the next slot of every chain in `byChain`, retrying the ones another took. */
  async function claimSlots(byChain: Map<string, FeedEntry[]>): Promise<void> {
    const at = new Date().toISOString();
    let pending = [...byChain.keys()];
    while (pending.length > 0) {
      const tried = pending.map((chain) => knownHead(chain) + 1);
      const slots = pending.map((chain, i) => ({
        _id: slotId(chain, tried[i]),
        at,
        entries: formatEntries(byChain.get(chain)!),
      }));
      const refused = new Set(
        (await insertUnordered(col, slots, isDuplicateRefusal)).map((refusal) => refusal.index),
      );
      pending.forEach((chain, i) => {
        if (!refused.has(i)) remember(chain, tried[i]);
      });
      const taken = pending.filter((_, i) => refused.has(i));
      await Promise.all(taken.map((chain) => headFrom(chain, knownHead(chain) + 1)));
      pending = taken;
    }
  }

  /** Writes the queued entries, a round of waiters at a time (up to `ENTRIES_PER_SLOT`). */
  async function pump(): Promise<void> {
    writing = true;
    try {
      while (waiting.length > 0) {
        let count = 0;
        let take = 0;
        while (take < waiting.length && (take === 0 || count < ENTRIES_PER_SLOT)) {
          count += waiting[take].listings.length;
          take += 1;
        }
        const round = waiting.splice(0, take);
        const byChain = new Map<string, FeedEntry[]>();
        for (const waiter of round) {
          for (const listing of waiter.listings) {
            for (const chain of listing.chains) {
              const list = byChain.get(chain) ?? [];
              list.push(listing.entry);
              byChain.set(chain, list);
            }
          }
        }
        try {
          await claimSlots(byChain);
          for (const waiter of round) waiter.settle();
        } catch (error) {
          for (const waiter of round) waiter.fail(error);
        }
      }
    } finally {
      writing = false;
    }
  }

  return {
    /** Lists the entries in their chains, in this order; resolves once every chain has them. */
    record(listings: readonly Listing[]): Promise<void> {
      if (listings.length === 0) return Promise.resolve();
      return new Promise<void>((settle, fail) => {
        waiting.push({ listings, settle, fail });
        if (!writing) void pump();
      });
    },
    /** The newest filled slot of `chain` (0 when none is), from the newest this process saw. */
    head: (chain: string): Promise<number> => headFrom(chain, knownHead(chain)),
    /** One slot, or null when it is not filled. */
    slot: (chain: string, slot: number): Promise<FeedSlot | null> =>
      col.findOne({ _id: slotId(chain, slot) }),
    /** Notes that slots `skip + 1` … `slot` of `chain` list only records gone for good. */
    async markSkip(chain: string, slot: number, skip: number): Promise<void> {
      // `$min`: two readers may mark the same slot; the lower mark is as true and goes further.
      await col.updateOne({ _id: slotId(chain, slot) }, { $min: { skip } });
    },
  };
}

export type SlotFeed = ReturnType<typeof createSlotFeed>;

/**
 * `feed`'s reads, keeping the slots read (up to `charsKept` characters of entries): a slot's
 * entries never change once inserted, only its skip mark, which this process's marks update
 * here and another's only shorten a walk, so a kept slot is as true as a read one. A slot
 * not filled is read again next time.
 */
export function keepingSlots(
  feed: Pick<SlotFeed, 'head' | 'slot' | 'markSkip'>,
  charsKept: number,
): Pick<SlotFeed, 'head' | 'slot' | 'markSkip'> {
  const kept = new LRUCache<string, FeedSlot>({
    maxSize: charsKept,
    sizeCalculation: (slot) => slot.entries.length + 1,
  });
  return {
    head: feed.head,
    async slot(chain, slot) {
      if (slot < 1) return null; // below a chain's first slot: its end
      const known = kept.get(slotId(chain, slot));
      if (known) return known;
      const read = await feed.slot(chain, slot);
      if (read) kept.set(read._id, read);
      return read;
    },
    async markSkip(chain, slot, skip) {
      await feed.markSkip(chain, slot, skip);
      const known = kept.get(slotId(chain, slot));
      if (known) known.skip = Math.min(known.skip ?? skip, skip);
    },
  };
}
