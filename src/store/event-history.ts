import { LRUCache } from 'lru-cache';
import type { Collection } from 'mongodb';
import type { EventFeed, FeedEntry, FeedEvent, FeedKind } from './event-feed';
import { historyCursor } from '../lib/cursor';
import {
  chainNamed,
  decodeFeedCursor,
  walkChain,
  type FeedPosition,
  type Verdict,
} from './feed-walk';
import type { ByIdReader } from './reads-by-id';
import { keepingSlots } from './slot-feed';

/**
 * Events a process keeps (a payload is at most 64 KiB, most are far smaller), and characters
 * of feed slots (4 MB of entries, some 100,000 listings).
 */
const EVENTS_KEPT = 1000;
const SLOT_CHARS_KEPT = 4_000_000;

/** The filters of a history read. */
export interface EventListFilter {
  source_family?: string;
  world_object_ref?: string;
}

/** Where a history page ends, to continue after: a place in a feed chain. */
export type HistoryPosition = FeedPosition<FeedKind>;

export const encodeHistoryCursor = (position: HistoryPosition): string =>
  historyCursor.encode(position);

/**
 * The chain a filter walks: the object's (the family is then checked on each event), else
 * the family's, else every event's.
 */
const chainFor = (filter: EventListFilter) =>
  chainNamed<FeedKind>([
    ['object', filter.world_object_ref],
    ['family', filter.source_family],
  ]);

/**
 * The position a history cursor holds; 422 on `cursor` unless it is a place in the chain
 * `filter` walks (a cursor of another query means nothing here).
 */
export const decodeHistoryCursor = (cursor: string, filter: EventListFilter): HistoryPosition =>
  decodeFeedCursor(historyCursor, cursor, chainFor(filter).kind);

/** A page of events, newest first, and where it ends when more follow. */
export interface HistoryPage<T> {
  items: T[];
  more: boolean;
  next?: HistoryPosition;
}

const matches = (record: FeedEvent, filter: EventListFilter): boolean =>
  (!filter.source_family || record.source_family === filter.source_family) &&
  (!filter.world_object_ref || record.world_object_ref === filter.world_object_ref);

/**
 * History pages: newest recorded first, read from the feed by `_id` alone (the chain's head,
 * its slots from there down, the listed events by their keys), so a page costs about its
 * own size whatever the store holds.
 *
 * Each process keeps the events and slots its pages read: an event is inserted once under
 * its key and never changed, and a slot's entries never change (history slots are never
 * marked), so what is kept stays true and a page of what was read before reads only the
 * chain's head. An entry whose event is missing is not kept: its ingest may still write it.
 */
export function createEventHistory<T extends FeedEvent>(deps: {
  events: Collection<T>;
  feed: EventFeed;
  readByIds: ByIdReader;
}) {
  const { events, feed, readByIds } = deps;
  const kept = new LRUCache<string, T>({ max: EVENTS_KEPT });
  const slots = keepingSlots(feed, SLOT_CHARS_KEPT);
  /** The events stored under `keys`, in their order; null where none is yet. */
  async function read(keys: readonly string[]): Promise<(T | null)[]> {
    const known = keys.map((key) => kept.get(key));
    const missing = keys.filter((_, i) => known[i] === undefined);
    const stored = await readByIds(events, missing);
    let next = 0;
    return known.map((event, i) => {
      if (event) return event;
      const row = stored[next++];
      if (row) kept.set(keys[i], row);
      return row;
    });
  }
  return {
    /**
     * Events newest first, `limit` of them, after `after`: the filter's chain walked down
     * keeping the events that exist under their entry's id and match `filter`, until
     * `limit + 1` are found or a slot is missing (below slot 1, or a forged cursor).
     */
    list: async (
      filter: EventListFilter,
      limit: number,
      after?: HistoryPosition,
    ): Promise<HistoryPage<T>> => {
      const found = await walkChain<T, FeedKind>({
        feed: slots,
        chain: chainFor(filter),
        limit,
        ...(after ? { after } : {}),
        check: async (entries: FeedEntry[]) => {
          const records = await read(entries.map((entry) => entry.key));
          return records.map((record, i): Verdict<T> => {
            if (!record || record.event_id !== entries[i].tag) return 'gone';
            return matches(record, filter) ? { keep: record } : 'passed';
          });
        },
      });
      const page = found.slice(0, limit);
      const more = found.length > limit;
      const last = page[page.length - 1];
      return {
        items: page.map((row) => row.record),
        more,
        ...(more && last ? { next: last.next } : {}),
      };
    },
  };
}
