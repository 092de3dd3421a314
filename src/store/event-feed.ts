import { LRUCache } from 'lru-cache';
import type { Collection, Db } from 'mongodb';
import { newestFilledFrom } from '../lib/slot-chain';
import { insertUnordered } from './mongo';

/**
 * The events feed: the order in which events were recorded, kept as slot chains
 * (`lib/slot-chain.ts`) so a history page is read by `_id` alone (docs/external-events.md,
 * "History"). One chain lists every event (`all`), one per source family and one per world
 * object; slot n of a chain is the document `<chain>/<n>`, claimed by a unique insert once
 * slot n − 1 is known to be filled, so the filled slots have no gaps. Slots 1, 2, 3, … are
 * written by ingests; slots 0, −1, −2, … by the one-time backfill of events recorded before
 * the feed existed (`event-feed-backfill.ts`).
 *
 * An ingest writes its feed entries *before* its events: an event that exists is always in
 * the feed, and an entry whose event was never written (the ingest died between the two,
 * or the key was taken already by an earlier event, a duplicate) is told apart by the reader,
 * which reads the event by its key and keeps it only if its `event_id` is the entry's.
 */
export interface FeedSlot {
  _id: string;
  at: string;
  /**
   * The slot's events in the order recorded, `<event_id>:<key>` separated by spaces. One
   * string, not an array: FerretDB converts every array element with its type, and a slot
   * of 500 entries cost 3.0–3.2 ms of its CPU to insert and 4.9–5.2 ms to read as an array
   * against 2.1 and 1.9–2.0 ms as one string (measured once on this machine).
   */
  entries: string;
}

/** One entry of a slot: the event's id and its record's `_id` (the dedup key). */
export interface FeedEntry {
  eventId: string;
  key: string;
}

/** What the feed needs of an event to list it. */
export interface FeedEvent {
  _id: string;
  event_id: string;
  source_family: string;
  world_object_ref: string | null;
}

/** The kinds of chain a history read can walk. */
export type FeedKind = 'all' | 'family' | 'object';

/** The feed collection (exported for the backfill and the tests). */
export const FEED_COLLECTION = 'external_event_feed';

/** Most entries one slot of a chain takes (ingests queued together share a slot up to it). */
export const ENTRIES_PER_SLOT = 1000;
/**
 * Chains whose head a process remembers, the least recently used forgotten first. A chain
 * forgotten costs its next claim about 2·log2(slots) probes (a try at slot 1, then a
 * gallop): with the limit at 10,000 and 10,000 objects written in turn, every claim paid
 * that (the scale seeder at 100× slowed from ~2,200 to a few hundred events/s). 100,000
 * heads take about 10 MB.
 */
const HEADS_KEPT = 100_000;

/** The chain of a kind and name (`all` has no name). */
export const chainId = (kind: FeedKind, name?: string): string =>
  kind === 'all' ? 'all' : `${kind}:${name ?? ''}`;

/** `_id` of slot `slot` of `chain`. The chain may contain `/`; the slot never does. */
export const slotId = (chain: string, slot: number): string => `${chain}/${slot}`;

export const formatEntries = (entries: readonly FeedEntry[]): string =>
  entries.map((entry) => `${entry.eventId}:${entry.key}`).join(' ');

export function parseEntries(text: string): FeedEntry[] {
  if (text === '') return [];
  return text.split(' ').map((part) => {
    const colon = part.indexOf(':');
    return { eventId: part.slice(0, colon), key: part.slice(colon + 1) };
  });
}

/** The chains an event is listed in. */
function chainsOf(event: FeedEvent): string[] {
  const chains = ['all', chainId('family', event.source_family)];
  if (event.world_object_ref) chains.push(chainId('object', event.world_object_ref));
  return chains;
}

interface Waiter {
  events: readonly FeedEvent[];
  settle: () => void;
  fail: (error: unknown) => void;
}

/**
 * The feed's slots: writing entries (`record`) and reading slots and heads. Each process
 * remembers the newest slot it has seen filled per chain: a claim tries the slot after it
 * (slot 1 for a chain it has not seen), and only a claim refused because another process
 * took the slot reads, probing by `_id` for the newest filled one, then tries again.
 * Ingests queued while one is written share the next slots, so a busy process writes one
 * slot per chain touched per round trip.
 */
export function createEventFeed(db: Db) {
  const col: Collection<FeedSlot> = db.collection<FeedSlot>(FEED_COLLECTION);
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
        (await insertUnordered(col, slots, (refusal) => refusal.code === 11000)).map(
          (refusal) => refusal.index,
        ),
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
          count += waiting[take].events.length;
          take += 1;
        }
        const round = waiting.splice(0, take);
        const byChain = new Map<string, FeedEntry[]>();
        for (const waiter of round) {
          for (const event of waiter.events) {
            for (const chain of chainsOf(event)) {
              const list = byChain.get(chain) ?? [];
              list.push({ eventId: event.event_id, key: event._id });
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
    /**
     * Lists `events` in their chains, in this order; resolves once every chain has them.
     * Called before the events are written.
     */
    record(events: readonly FeedEvent[]): Promise<void> {
      if (events.length === 0) return Promise.resolve();
      return new Promise<void>((settle, fail) => {
        waiting.push({ events, settle, fail });
        if (!writing) void pump();
      });
    },
    /** The newest filled slot of `chain` (0 when none is), from the newest this process saw. */
    head: (chain: string): Promise<number> => headFrom(chain, knownHead(chain)),
    /** The entries of one slot, oldest first; null when the slot is not filled. */
    async entriesOf(chain: string, slot: number): Promise<FeedEntry[] | null> {
      const found = await col.findOne({ _id: slotId(chain, slot) });
      return found ? parseEntries(found.entries) : null;
    },
  };
}

export type EventFeed = ReturnType<typeof createEventFeed>;
