import type { Db } from 'mongodb';
import type { ActionListEntry, ActionListFilter } from './external-actions.repo';
import { createInboxArrivals, type InboxEntry, type InboxPosition } from './inbox-arrivals';
import { byIdReader } from './reads-by-id';

export {
  decodeInboxCursor,
  encodeInboxCursor,
  type InboxPage,
  type InboxPosition,
} from './inbox-arrivals';

/** An action that left `awaiting_approval`: kept a while so a late write cannot revive it. */
interface Departure {
  _id: string;
  seq: number;
  status: ActionListEntry['status'];
  updated_at: string;
}

/** How long a departure is kept: far beyond any retry of the activity that wrote it. */
const DEPARTURE_KEPT_MS = 60 * 60_000;

/**
 * The actions awaiting approval now, apart from the other actions: the inbox reads this
 * short collection instead of every action ever proposed, and only what a list shows of each
 * (`ActionListEntry`). FerretDB v1 pushes down only an `_id` equality, so a filtered, sorted
 * page even of this collection decodes every awaiting entry (2.1 s of CPU at 10,000); a page
 * walks the arrivals feed instead and reads the entries it lists by `_id`
 * (`inbox-arrivals.ts`, docs/approvals.md "Pages read by `_id`: the arrivals feed").
 *
 * Written by the action's record activity, guarded by `seq` like the projection, so a late
 * retry of an older record never goes back: an action that left is remembered for an hour
 * in `action_inbox_departures`, apart, so the inbox holds only what awaits.
 */
export function createActionInboxRepo(db: Db) {
  const inbox = db.collection<InboxEntry>('action_inbox');
  const departures = db.collection<Departure>('action_inbox_departures');
  const arrivals = createInboxArrivals(db, inbox, byIdReader(db));
  let lastPruneMs = 0;
  return {
    /**
     * `fresh`: the caller knows no later record can be stored yet (it is recording this
     * transition for the first time, `recordActionTransitions`), so nothing needs to be read
     * first: an awaiting record updates the entry and learns from the update whether it was
     * there (listed) or arrives. A departure is remembered, then the entry removed (both by
     * `_id`); a departure not written fresh is written only for an action the store knows
     * (listed or departed).
     *
     * `arriving`: the records include the action's entry into `awaiting_approval`. Written
     * fresh, the action has no entry yet: it arrives without that update. Written again (a
     * retry), its first attempt may have died between the entry and its listing, so it
     * arrives again under a new tag (a listing of the first, if written, no longer matches).
     */
    async project(
      record: ActionListEntry,
      options: { fresh?: boolean; arriving?: boolean } = {},
    ): Promise<void> {
      const { _id, ...body } = record;
      let stored = 0;
      if (options.fresh !== true) {
        const [listed, departed] = await Promise.all([
          inbox.findOne({ _id }, { projection: { seq: 1 } }),
          departures.findOne({ _id }, { projection: { seq: 1 } }),
        ]);
        stored = Math.max(listed?.seq ?? 0, departed?.seq ?? 0);
        if (stored >= record.seq) {
          // A retry finishing what its first attempt left half done: a departure whose entry
          // is still there, an arrival that may never have been listed, or a write whose
          // change may never have been listed.
          if (listed && departed && departed.seq >= listed.seq) await inbox.deleteOne({ _id });
          else if (options.arriving === true && listed?.seq === record.seq) {
            await arrivals.arrive(record);
            return;
          }
          await arrivals.changed(_id, record.seq);
          return;
        }
        if (record.status === 'awaiting_approval') {
          if (listed && options.arriving !== true) {
            await inbox.updateOne({ _id }, { $set: body });
            await arrivals.changed(_id, record.seq);
          } else await arrivals.arrive(record);
          return;
        }
      } else if (record.status === 'awaiting_approval') {
        if (options.arriving === true) {
          await arrivals.arrive(record);
          return;
        }
        // One write by `_id`: it updates a listed entry in place (its arrival kept).
        const before = await inbox.findOneAndUpdate({ _id }, { $set: body });
        if (before) await arrivals.changed(_id, record.seq);
        else await arrivals.arrive(record);
        return;
      }
      if (options.fresh === true || stored > 0) {
        const departure: Departure = {
          _id,
          seq: record.seq,
          status: record.status,
          updated_at: record.updated_at,
        };
        // Remembered before the entry goes, so a late retry always finds one or the other.
        await departures.replaceOne({ _id }, departure, { upsert: true });
        const { deletedCount } = await inbox.deleteOne({ _id });
        // Written fresh and not there: it never entered, or the writer that removed it lists
        // the change itself.
        if (deletedCount > 0 || options.fresh !== true) await arrivals.changed(_id, record.seq);
        await this.pruneDepartures(Date.now());
      }
    },
    /** Drops departures older than an hour, at most once a minute per process. */
    async pruneDepartures(nowMs: number): Promise<void> {
      if (nowMs - lastPruneMs < 60_000) return;
      lastPruneMs = nowMs;
      const cutoff = new Date(nowMs - DEPARTURE_KEPT_MS).toISOString();
      await departures.deleteMany({ updated_at: { $lt: cutoff } });
    },
    /**
     * A page of awaiting actions, newest arrival first, after `after`: `limit + 1` rows at
     * most, each with the position a cursor continuing after it holds.
     */
    page: (filter: ActionListFilter, limit: number, after?: InboxPosition) =>
      arrivals.rows(filter, limit, after),
  };
}

export type ActionInboxRepo = ReturnType<typeof createActionInboxRepo>;
