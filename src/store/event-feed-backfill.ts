import type { Collection, Db } from 'mongodb';
import {
  ENTRIES_PER_SLOT,
  FEED_COLLECTION,
  chainsOf,
  formatEntries,
  parseEntries,
  slotId,
  type FeedEntry,
  type FeedEvent,
  type FeedSlot,
} from './event-feed';
import { insertOnce, insertUnordered } from './mongo';

/** `_id` of the marker that every event recorded before the feed existed is in it. */
export const FEED_COMPLETE_ID = 'backfilled';
/** Slots inserted per command by the backfill. */
const SLOTS_PER_INSERT = 100;

/** The slots that list `events` (newest first) in `chain`: slot 0 the newest, then −1, … */
function legacySlots(chain: string, events: FeedEvent[], at: string): FeedSlot[] {
  const slots: FeedSlot[] = [];
  for (let start = 0; start < events.length; start += ENTRIES_PER_SLOT) {
    const entries: FeedEntry[] = events
      .slice(start, start + ENTRIES_PER_SLOT)
      .reverse()
      .map((event) => ({ tag: event.event_id, key: event._id }));
    slots.push({ _id: slotId(chain, -slots.length), at, entries: formatEntries(entries) });
  }
  return slots;
}

/**
 * The one-time backfill of the feed: events recorded before the feed existed (by an older
 * version) are listed below slot 1 of their chains, newest `event_id` first, so history
 * pages walk into them after the feed's own slots. Until it has run, history is read as
 * before the feed (`event-history.ts`).
 *
 * Which events are older than the feed needs no marker on them: an ingest writes its feed
 * entries before its events, so every event the scan of `external_events` finds that was
 * ingested with the feed is listed in the `all` chain by the time the feed is read, right
 * after the scan. The rest are listed, chunked the same way by every process (sorted by
 * `event_id`), so several processes running it at once insert the same slots and the
 * duplicates are refused; the marker goes in last, and a process that dies half way leaves
 * the work to the next one. It assumes no api of an older version ingests any more: an
 * event such an api writes later is not in the feed.
 *
 * Its cost is one scan of the events and one of the feed (once per database; a database
 * created with the feed only scans empty collections at its first start).
 */
export function createFeedBackfill(db: Db) {
  const feed: Collection<FeedSlot> = db.collection<FeedSlot>(FEED_COLLECTION);
  const events: Collection<FeedEvent> = db.collection<FeedEvent>('external_events');
  let completeSeen = false;

  async function isComplete(): Promise<boolean> {
    if (completeSeen) return true;
    completeSeen = (await feed.findOne({ _id: FEED_COMPLETE_ID })) !== null;
    return completeSeen;
  }

  return {
    /** Whether the backfill has run on this database (read by `_id` until it has). */
    isComplete,
    /** Runs the backfill unless it has run. */
    complete: async (): Promise<void> => {
      if (await isComplete()) return;
      const fields = { _id: 1, event_id: 1, source_family: 1, world_object_ref: 1 };
      const stored = await events.find({}, { projection: fields }).toArray();
      const fed = new Set<string>();
      for await (const slot of feed.find({})) {
        if (!slot._id.startsWith('all/')) continue;
        for (const entry of parseEntries(slot.entries)) fed.add(entry.tag);
      }
      const older = stored
        .filter((event) => !fed.has(event.event_id))
        .sort((a, b) => (a.event_id < b.event_id ? 1 : a.event_id > b.event_id ? -1 : 0));
      const byChain = new Map<string, FeedEvent[]>([['all', older]]);
      for (const event of older) {
        for (const chain of chainsOf(event).filter((chain) => chain !== 'all')) {
          const list = byChain.get(chain) ?? [];
          list.push(event);
          byChain.set(chain, list);
        }
      }
      const at = new Date().toISOString();
      const slots = [...byChain].flatMap(([chain, list]) => legacySlots(chain, list, at));
      for (let i = 0; i < slots.length; i += SLOTS_PER_INSERT) {
        await insertUnordered(
          feed,
          slots.slice(i, i + SLOTS_PER_INSERT),
          (refusal) => refusal.code === 11000,
        );
      }
      await insertOnce(feed, { _id: FEED_COMPLETE_ID, at, entries: '' });
      completeSeen = true;
    },
  };
}

export type FeedBackfill = ReturnType<typeof createFeedBackfill>;
