import type { Db } from 'mongodb';
import { createSlotFeed, type FeedSlot, type Listing } from './slot-feed';

export {
  ENTRIES_PER_SLOT,
  formatEntries,
  parseEntries,
  slotId,
  type FeedEntry,
  type FeedSlot,
} from './slot-feed';
import type { HISTORY_CHAINS } from '../lib/cursor';

/** What the feed needs of an event to list it. */
export interface FeedEvent {
  _id: string;
  event_id: string;
  source_family: string;
  world_object_ref: string | null;
}

/** The kinds of chain a history read can walk. */
export type FeedKind = (typeof HISTORY_CHAINS)[number];

/** The feed collection (exported for the tests). */
export const FEED_COLLECTION = 'external_event_feed';

/** The chain of a kind and name (`all` has no name). */
export const chainId = (kind: FeedKind, name?: string): string =>
  kind === 'all' ? 'all' : `${kind}:${name ?? ''}`;

/** The chains an event is listed in. */
export function chainsOf(event: FeedEvent): string[] {
  const chains = ['all', chainId('family', event.source_family)];
  if (event.world_object_ref) chains.push(chainId('object', event.world_object_ref));
  return chains;
}

const listingOf = (event: FeedEvent): Listing => ({
  chains: chainsOf(event),
  entry: { tag: event.event_id, key: event._id },
});

/**
 * The events feed: the order in which events were recorded, kept as a slot feed
 * (`slot-feed.ts`) so a history page is read by `_id` alone (docs/external-events.md,
 * "History"). One chain lists every event (`all`), one per source family and one per world
 * object; each entry is `<event_id>:<key>` (tag and key). Slots 1, 2, 3, … are written by
 * ingests.
 *
 * An ingest writes its feed entries *before* its events: an event that exists is always in
 * the feed, and an entry whose event was never written (the ingest died between the two,
 * or the key was taken already by an earlier event, a duplicate) is told apart by the reader,
 * which reads the event by its key and keeps it only if its `event_id` is the entry's.
 */
export function createEventFeed(db: Db) {
  const feed = createSlotFeed(db.collection<FeedSlot>(FEED_COLLECTION));
  return {
    ...feed,
    /** Lists `events` in their chains, in this order; resolves once every chain has them. */
    record: (events: readonly FeedEvent[]): Promise<void> => feed.record(events.map(listingOf)),
  };
}

export type EventFeed = ReturnType<typeof createEventFeed>;
