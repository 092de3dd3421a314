import type { Collection, Filter } from 'mongodb';
import {
  chainId,
  type EventFeed,
  type FeedEntry,
  type FeedEvent,
  type FeedKind,
} from './event-feed';
import {
  decodeFeedCursor,
  encodeFeedCursor,
  walkFeed,
  type FeedPosition,
  type Verdict,
} from './feed-walk';
import type { FeedBackfill } from './event-feed-backfill';

/** The filters of a history read. */
export interface EventListFilter {
  source_family?: string;
  world_object_ref?: string;
}

/**
 * Where a history page ends, to continue after: a place in a feed chain (the slot and the
 * entry's index in it), or, for paging that began before the feed's backfill had run, the
 * last `event_id` (the order before the feed).
 */
export type HistoryPosition = FeedPosition<FeedKind>;

const LEGACY_ID = /^evt_[0-9A-Za-z]{10,40}$/;

/** Opaque cursor of a history position. */
export const encodeHistoryCursor = (position: HistoryPosition): string =>
  encodeFeedCursor(position);

/**
 * The position a history cursor holds; 422 on `cursor` unless it is one of ours, and a
 * feed position of the chain `filter` walks (a cursor of another query means nothing here).
 */
export const decodeHistoryCursor = (cursor: string, filter: EventListFilter): HistoryPosition =>
  decodeFeedCursor(cursor, chainFor(filter).kind, LEGACY_ID);

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
 * The chain a filter walks: the object's (the family is then checked on each event), else
 * the family's, else every event's.
 */
function chainFor(filter: EventListFilter): { kind: FeedKind; id: string } {
  if (filter.world_object_ref) {
    return { kind: 'object', id: chainId('object', filter.world_object_ref) };
  }
  if (filter.source_family) return { kind: 'family', id: chainId('family', filter.source_family) };
  return { kind: 'all', id: 'all' };
}

/**
 * History pages: newest recorded first, read from the feed by `_id` alone (the chain's head,
 * its slots from there down, each listed event by its key), so a page costs about its own
 * size whatever the store holds; before the feed's backfill has run, and for a cursor from
 * then, by `event_id` as before the feed (a sort FerretDB does over every event).
 */
export function createEventHistory<T extends FeedEvent>(deps: {
  events: Collection<T>;
  feed: EventFeed;
  backfill: FeedBackfill;
}) {
  const { events, feed, backfill } = deps;

  async function legacyPage(
    filter: EventListFilter,
    limit: number,
    beforeEventId?: string,
  ): Promise<HistoryPage<T>> {
    const query = {
      ...(filter.source_family ? { source_family: filter.source_family } : {}),
      ...(filter.world_object_ref ? { world_object_ref: filter.world_object_ref } : {}),
      ...(beforeEventId ? { event_id: { $lt: beforeEventId } } : {}),
    } as Filter<T>;
    const rows = (await events
      .find(query)
      .sort({ event_id: -1 })
      .limit(limit + 1)
      .toArray()) as T[];
    const items = rows.slice(0, limit);
    const last = items[items.length - 1];
    const more = rows.length > limit;
    return {
      items,
      more,
      ...(more && last ? { next: { kind: 'legacy', id: last.event_id } as const } : {}),
    };
  }

  /**
   * Walks the filter's chain down from `start` (the head when absent) and keeps the events
   * that exist under their entry's id and match `filter`, until `limit + 1` are found or a
   * slot is missing (below slot 1 of a chain and its backfilled slots, or a forged cursor).
   */
  async function feedPage(
    filter: EventListFilter,
    limit: number,
    start?: { slot: number; index: number },
  ): Promise<HistoryPage<T>> {
    const chain = chainFor(filter);
    const found = await walkFeed<T>({
      feed,
      chain: chain.id,
      limit,
      ...(start ? { start } : {}),
      check: async (entries: FeedEntry[]) => {
        const records = (await Promise.all(
          entries.map((entry) => events.findOne({ _id: entry.key } as Filter<T>)),
        )) as (T | null)[];
        return records.map((record, i): Verdict<T> => {
          if (!record || record.event_id !== entries[i].tag) return 'gone';
          return matches(record, filter) ? { keep: record } : 'passed';
        });
      },
    });
    const page = found.slice(0, limit);
    const last = page[page.length - 1];
    const more = found.length > limit;
    return {
      items: page.map((row) => row.record),
      more,
      ...(more && last
        ? { next: { kind: 'feed', chain: chain.kind, slot: last.slot, index: last.index } as const }
        : {}),
    };
  }

  return {
    /** Events newest first (see above), `limit` of them, after `after`. */
    list: async (
      filter: EventListFilter,
      limit: number,
      after?: HistoryPosition,
    ): Promise<HistoryPage<T>> => {
      if (after?.kind === 'legacy') return legacyPage(filter, limit, after.id);
      if (!after && !(await backfill.isComplete())) return legacyPage(filter, limit);
      return feedPage(filter, limit, after);
    },
  };
}
