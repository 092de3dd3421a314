import { randomBytes } from 'node:crypto';
import type { Collection, Db, Filter } from 'mongodb';
import type { ActionListEntry, ActionListFilter } from './external-actions.repo';
import {
  decodeFeedCursor,
  encodeFeedCursor,
  walkFeed,
  type FeedPosition,
  type Verdict,
} from './feed-walk';
import { insertOnce, insertUnordered } from './mongo';
import { newestByIdPage } from './paging';
import { createSlotFeed, formatEntries, slotId, type FeedSlot, type Listing } from './slot-feed';

/**
 * An inbox entry as stored: the list entry, and the arrival it is listed under. `arrival`
 * is absent on entries written before the arrivals feed (listed by its backfill, under
 * `BACKFILLED`).
 */
export type InboxEntry = ActionListEntry & { arrival?: string };

/** The arrivals feed's collection. */
export const ARRIVALS_COLLECTION = 'action_inbox_arrivals';
/** The tag the backfill lists entries under (a written arrival's tag is 8 characters). */
export const BACKFILLED = 'b';
/** `_id` of the marker that every entry written before the feed is listed in it. */
const BACKFILL_DONE = 'backfilled';

/** The kinds of chain an inbox page can walk, the most selective a filter names first. */
export type ArrivalChain = 'context' | 'proposer' | 'kind' | 'all';

/** Where an inbox page ends: a place in an arrivals chain, or, for a cursor from before it, an id. */
export type InboxPosition = FeedPosition<ArrivalChain>;

/** A page of entries newest first and where it ends when more follow. */
export interface InboxPage {
  items: ActionListEntry[];
  next?: InboxPosition;
}

/** The chains an action is listed in: every arrival, its context's, its proposer's, its kind's. */
function chainsOf(entry: ActionListEntry): string[] {
  const chains = ['all', `proposer:${entry.proposed_by.principal_id}`, `kind:${entry.action_kind}`];
  if (entry.shared_context_id) chains.push(`context:${entry.shared_context_id}`);
  return chains;
}

/** The chain a filter walks; the other filters are checked on each entry. */
function chainFor(filter: ActionListFilter): { kind: ArrivalChain; id: string } {
  if (filter.shared_context_id) {
    return { kind: 'context', id: `context:${filter.shared_context_id}` };
  }
  if (filter.proposed_by) return { kind: 'proposer', id: `proposer:${filter.proposed_by}` };
  if (filter.action_kind) return { kind: 'kind', id: `kind:${filter.action_kind}` };
  return { kind: 'all', id: 'all' };
}

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

const LEGACY_ID = /^act_[0-9A-Za-z]{10,40}$/;

/** Opaque cursor of an inbox position (a legacy one is the id cursor of every action list). */
export const encodeInboxCursor = (position: InboxPosition): string => encodeFeedCursor(position);

/**
 * The position an inbox cursor holds; 422 on `cursor` unless it is an action id (a cursor
 * from before the feed) or a place in the chain `filter` walks.
 */
export const decodeInboxCursor = (cursor: string, filter: ActionListFilter): InboxPosition =>
  decodeFeedCursor(cursor, chainFor(filter).kind, LEGACY_ID);

/**
 * The inbox's arrivals feed (`slot-feed.ts`, as the events history's): every time an action
 * enters the inbox it is listed, under a new random tag (its arrival), in the chains
 * `chainsOf` names, and its entry records that tag. A page walks the filter's chain newest
 * first and reads each listed entry by `_id`, keeping it when it is still there, awaiting,
 * under the same arrival, and matches the filter; an entry gone (departed, or listed again
 * under a newer arrival) is gone for good, so runs of slots holding only such entries are
 * marked and passed over by later walks (`walkFeed`, `compress`). The order is arrival
 * order: newest to enter the inbox first.
 */
export function createInboxArrivals(db: Db, inbox: Collection<InboxEntry>) {
  const col = db.collection<FeedSlot>(ARRIVALS_COLLECTION);
  const feed = createSlotFeed(col);
  let backfilled = false;

  const isBackfilled = async (): Promise<boolean> => {
    backfilled ||= (await col.findOne({ _id: BACKFILL_DONE }, { projection: { _id: 1 } })) !== null;
    return backfilled;
  };

  /** The page the old way: a filtered sort FerretDB does over every entry. */
  async function legacyPage(filter: ActionListFilter, limit: number, beforeId?: string) {
    const clauses: Filter<InboxEntry>[] = [{ status: 'awaiting_approval' }];
    if (filter.action_kind) {
      clauses.push({ action_kind: filter.action_kind as ActionListEntry['action_kind'] });
    }
    if (filter.shared_context_id) clauses.push({ shared_context_id: filter.shared_context_id });
    if (filter.proposed_by) clauses.push({ 'proposed_by.principal_id': filter.proposed_by });
    const me = filter.awaiting;
    if (me) {
      clauses.push(
        { 'proposed_by.principal_id': { $ne: me.principal_id } },
        { approved_by: { $ne: me.principal_id } },
        { eligible: { $in: ['*', `principal:${me.principal_id}`, `role:${me.role}`] } },
      );
    }
    const rows = await newestByIdPage(inbox, { $and: clauses }, limit, beforeId);
    return rows.map((row) => ({ record: listEntry(row), id: row._id }));
  }

  return {
    /**
     * Enters `entry` in the inbox under a new arrival: the entry first, then its listing. A
     * listed entry always exists first, so an entry missing when read has left for good; an
     * entry whose listing was never written (its writer died between the two) is listed by
     * the writer's retry, under another arrival (`ActionInboxRepo.project`, `arriving`).
     */
    async arrive(entry: ActionListEntry): Promise<void> {
      const arrival = randomBytes(6).toString('base64url');
      await inbox.replaceOne({ _id: entry._id }, { ...entry, arrival }, { upsert: true });
      const listing: Listing = { chains: chainsOf(entry), entry: { tag: arrival, key: entry._id } };
      await feed.record([listing]);
    },

    /**
     * `limit + 1` rows at most, newest arrival first, after `after`, each with where it is
     * listed; before the backfill has run (and for a cursor from then) the old way.
     */
    async rows(
      filter: ActionListFilter,
      limit: number,
      after?: InboxPosition,
    ): Promise<{ record: ActionListEntry; next: InboxPosition }[]> {
      if (after?.kind === 'legacy' || (!after && !(await isBackfilled()))) {
        const rows = await legacyPage(filter, limit, after?.id);
        return rows.map((row) => ({
          record: row.record,
          next: { kind: 'legacy', id: row.id },
        }));
      }
      const chain = chainFor(filter);
      const found = await walkFeed<ActionListEntry>({
        feed,
        chain: chain.id,
        limit,
        ...(after ? { start: { slot: after.slot, index: after.index } } : {}),
        compress: true,
        check: async (entries) => {
          const stored = await Promise.all(
            entries.map((entry) => inbox.findOne({ _id: entry.key })),
          );
          return stored.map((row, i): Verdict<ActionListEntry> => {
            const live =
              row?.status === 'awaiting_approval' && (row.arrival ?? BACKFILLED) === entries[i].tag;
            if (!row || !live) return 'gone';
            return matches(row, filter) ? { keep: listEntry(row) } : 'passed';
          });
        },
      });
      return found.map((row) => ({
        record: row.record,
        next: { kind: 'feed', chain: chain.kind, slot: row.slot, index: row.index },
      }));
    },

    /**
     * The one-time backfill: entries written before the feed (no `arrival`) are listed in
     * slot 0 of each of their chains, oldest first (a page walks slot 1 and up, then this
     * one from its end). One slot per chain, so processes running it at once cannot list an
     * entry twice: the first insert of a chain's slot wins and the others are refused (their
     * lists differ at most by entries that left meanwhile). Each slot holds ~45 bytes an
     * entry, so a chain of more than ~300,000 awaiting entries exceeds a document and the
     * backfill fails (logged): pages are then read the old way. Entries written later by an
     * api of an older version are not listed.
     */
    async complete(): Promise<void> {
      if (await isBackfilled()) return;
      const older = (await inbox
        .find({ status: 'awaiting_approval', arrival: { $exists: false } })
        .toArray()) as InboxEntry[];
      older.sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0));
      const byChain = new Map<string, string[]>();
      for (const entry of older) {
        for (const chain of chainsOf(entry)) {
          const ids = byChain.get(chain) ?? [];
          ids.push(entry._id);
          byChain.set(chain, ids);
        }
      }
      const at = new Date().toISOString();
      const slots = [...byChain].map(([chain, ids]) => ({
        _id: slotId(chain, 0),
        at,
        entries: formatEntries(ids.map((key) => ({ tag: BACKFILLED, key }))),
      }));
      for (let i = 0; i < slots.length; i += 100) {
        await insertUnordered(col, slots.slice(i, i + 100), (refusal) => refusal.code === 11000);
      }
      await insertOnce(col, { _id: BACKFILL_DONE, at, entries: '' });
      backfilled = true;
    },
  };
}
