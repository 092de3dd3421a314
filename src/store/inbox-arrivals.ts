import { randomBytes } from 'node:crypto';
import type { Collection, Db } from 'mongodb';
import type { ActionListEntry, ActionListFilter } from './external-actions.repo';
import { inboxCursor, type INBOX_CHAINS } from '../lib/cursor';
import {
  chainNamed,
  decodeFeedCursor,
  walkChain,
  type FeedPosition,
  type PageRow,
  type Verdict,
} from './feed-walk';
import { CHANGES_CHAIN, CHANGES_COLLECTION, createInboxEntryCache } from './inbox-entry-cache';
import type { InboxEntry } from './inbox-entry';
import type { ByIdReader } from './reads-by-id';
import { createSlotFeed, keepingSlots, type FeedSlot, type Listing } from './slot-feed';

export type { InboxEntry } from './inbox-entry';

/** The arrivals feed's collection. */
export const ARRIVALS_COLLECTION = 'action_inbox_arrivals';

/** The kinds of chain an inbox page can walk, the most selective a filter names first. */
export type ArrivalChain = (typeof INBOX_CHAINS)[number];

/** Where an inbox page ends: a place in an arrivals chain. */
export type InboxPosition = FeedPosition<ArrivalChain>;

/** A page of entries newest first and where it ends when more follow. */
export interface InboxPage {
  items: ActionListEntry[];
  next?: InboxPosition;
}

/** Characters of arrival slots a process keeps (8 MB of entries, some 200,000 arrivals). */
const SLOT_CHARS_KEPT = 8_000_000;

/** The chains an action is listed in: every arrival, its context's, its proposer's, its kind's. */
function chainsOf(entry: ActionListEntry): string[] {
  const chains = ['all', `proposer:${entry.proposed_by.principal_id}`, `kind:${entry.action_kind}`];
  if (entry.shared_context_id) chains.push(`context:${entry.shared_context_id}`);
  return chains;
}

/** The chain a filter walks; the other filters are checked on each entry. */
const chainFor = (filter: ActionListFilter) =>
  chainNamed<ArrivalChain>([
    ['context', filter.shared_context_id],
    ['proposer', filter.proposed_by],
    ['kind', filter.action_kind],
  ]);

/** Whether an awaiting entry is on a page of `filter` (the clauses the scan of old used). */
function matches(entry: ActionListEntry, filter: ActionListFilter): boolean {
  const me = filter.awaiting;
  return (
    (!filter.action_kind || entry.action_kind === filter.action_kind) &&
    (!filter.shared_context_id || entry.shared_context_id === filter.shared_context_id) &&
    (!filter.proposed_by || entry.proposed_by.principal_id === filter.proposed_by) &&
    (!me ||
      (entry.proposed_by.principal_id !== me.principal_id &&
        !(entry.approved_by ?? []).includes(me.principal_id) &&
        (entry.eligible ?? ['*']).some((token) =>
          ['*', `principal:${me.principal_id}`, `role:${me.role}`].includes(token),
        )))
  );
}

/** The list entry of a stored one. */
function listEntry(stored: InboxEntry): ActionListEntry {
  const { arrival: _arrival, ...entry } = stored;
  return entry;
}

export const encodeInboxCursor = (position: InboxPosition): string => inboxCursor.encode(position);

/**
 * The position an inbox cursor holds; 422 on `cursor` unless it is a place in the chain
 * `filter` walks.
 */
export const decodeInboxCursor = (cursor: string, filter: ActionListFilter): InboxPosition =>
  decodeFeedCursor(inboxCursor, cursor, chainFor(filter).kind);

/**
 * The inbox's arrivals feed (`slot-feed.ts`, as the events history's): every time an action
 * enters the inbox it is listed, under a new random tag (its arrival), in the chains
 * `chainsOf` names, and its entry records that tag. A page walks the filter's chain newest
 * first and reads each listed entry by `_id`, keeping it when it is still there, awaiting,
 * under the same arrival, and matches the filter; an entry gone (departed, or listed again
 * under a newer arrival) is gone for good, so runs of slots holding only such entries are
 * marked and passed over by later walks (`walkFeed`, `compress`). The order is arrival
 * order: newest to enter the inbox first. A process keeps the entries and slots its pages
 * read, and reads again only the entries the changes feed lists since
 * (`inbox-entry-cache.ts`).
 */
export function createInboxArrivals(db: Db, inbox: Collection<InboxEntry>, readByIds: ByIdReader) {
  const feed = createSlotFeed(db.collection<FeedSlot>(ARRIVALS_COLLECTION));
  const changes = createSlotFeed(db.collection<FeedSlot>(CHANGES_COLLECTION));
  const cache = createInboxEntryCache(changes, inbox, readByIds);
  const slots = keepingSlots(feed, SLOT_CHARS_KEPT);
  /** Lists a change to the entry `key`, written at `seq` (`inbox-entry-cache.ts`). */
  const changed = (key: string, seq: number): Promise<void> =>
    changes.record([{ chains: [CHANGES_CHAIN], entry: { tag: String(seq), key } }]);

  return {
    /**
     * Enters `entry` in the inbox under a new arrival: the entry first, then its listing. A
     * listed entry always exists first, so an entry missing when read has left for good; an
     * entry whose listing was never written (its writer died between the two) is listed by
     * the writer's retry, under another arrival (`ActionInboxRepo.project`, `arriving`).
     * An arrival over an entry that was there (a retry) is a change too.
     */
    async arrive(entry: ActionListEntry): Promise<void> {
      const arrival = randomBytes(6).toString('base64url');
      const written = await inbox.replaceOne(
        { _id: entry._id },
        { ...entry, arrival },
        { upsert: true },
      );
      const listing: Listing = { chains: chainsOf(entry), entry: { tag: arrival, key: entry._id } };
      await Promise.all([
        feed.record([listing]),
        written.matchedCount > 0 && changed(entry._id, entry.seq),
      ]);
    },

    /**
     * Lists a change to the entry of `key` (written at `seq`) in the changes chain, after the
     * write, so a page reading the entry from a process's memory reads it again.
     */
    changed,

    /** `limit + 1` rows at most, newest arrival first, after `after`, each with where it is listed. */
    async rows(
      filter: ActionListFilter,
      limit: number,
      after?: InboxPosition,
    ): Promise<PageRow<ActionListEntry, ArrivalChain>[]> {
      // The changes feed is caught up on while the walk reads its first slot, before any
      // entry is read (the first check awaits it; a walk failing before throws its own error).
      const caughtUp = cache.catchUp();
      caughtUp.catch(() => undefined);
      return walkChain<ActionListEntry, ArrivalChain>({
        feed: slots,
        chain: chainFor(filter),
        limit,
        ...(after ? { after } : {}),
        compress: true,
        check: async (entries) => {
          const stored = await cache.read(entries, await caughtUp);
          return stored.map((row): Verdict<ActionListEntry> => {
            if (row?.status !== 'awaiting_approval') return 'gone';
            return matches(row, filter) ? { keep: listEntry(row) } : 'passed';
          });
        },
      });
    },
  };
}
