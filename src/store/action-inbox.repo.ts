import type { Db, Filter } from 'mongodb';
import type { ActionListEntry, ActionListFilter } from './external-actions.repo';
import { newestByIdPage } from './paging';

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
 * short collection instead of every action ever proposed. FerretDB v1 pushes down only an
 * `_id` equality, so a filtered, sorted page of `external_actions` decodes the whole
 * collection (2.4 s at 10,000 actions); this one holds only what awaits approval, and only
 * what a list shows of each (`ActionListEntry`). Written by the action's record activity,
 * guarded by `seq` like the projection, so a late retry of an older record never goes back:
 * an action that left is remembered for an hour in `action_inbox_departures`, apart, so the
 * inbox page does not decode the last hour's departures (36,000 at 10 actions a second).
 */
export function createActionInboxRepo(db: Db) {
  const inbox = db.collection<ActionListEntry>('action_inbox');
  const departures = db.collection<Departure>('action_inbox_departures');
  let lastPruneMs = 0;
  /** The newest `seq` stored for the action, listed or departed (reads by `_id`). */
  const storedSeq = async (id: string): Promise<number> => {
    const [listed, departed] = await Promise.all([
      inbox.findOne({ _id: id }, { projection: { seq: 1 } }),
      departures.findOne({ _id: id }, { projection: { seq: 1 } }),
    ]);
    return Math.max(listed?.seq ?? 0, departed?.seq ?? 0);
  };
  return {
    /**
     * `fresh`: the caller knows no later record can be stored yet (it is recording this
     * transition for the first time, `recordActionTransitions`), so nothing needs to be read
     * first. A departure is remembered, then the entry removed (both by `_id`); a departure
     * not written fresh is written only for an action the store knows (listed or departed).
     */
    async project(record: ActionListEntry, options: { fresh?: boolean } = {}): Promise<void> {
      const fresh = options.fresh === true;
      const stored = fresh ? 0 : await storedSeq(record._id);
      if (stored >= record.seq) return;
      if (record.status === 'awaiting_approval') {
        await inbox.replaceOne({ _id: record._id }, record, { upsert: true });
        return;
      }
      if (fresh || stored > 0) {
        const departure: Departure = {
          _id: record._id,
          seq: record.seq,
          status: record.status,
          updated_at: record.updated_at,
        };
        // Remembered before the entry goes, so a late retry always finds one or the other.
        await departures.replaceOne({ _id: record._id }, departure, { upsert: true });
        await inbox.deleteOne({ _id: record._id });
        await this.pruneDepartures(Date.now());
      }
    },
    /** Drops departures older than an hour, at most once a minute per process. */
    async pruneDepartures(nowMs: number): Promise<void> {
      if (nowMs - lastPruneMs < 60_000) return;
      lastPruneMs = nowMs;
      const cutoff = new Date(nowMs - DEPARTURE_KEPT_MS).toISOString();
      await departures.deleteMany({ updated_at: { $lt: cutoff } });
      // Departures written into the inbox itself before they moved out (`left: true`).
      await inbox.deleteMany({
        left: true,
        updated_at: { $lt: cutoff },
      });
    },
    /** Awaiting actions newest first, before `beforeId`; `limit + 1` rows. */
    list(filter: ActionListFilter, limit: number, beforeId?: string): Promise<ActionListEntry[]> {
      const clauses: Filter<ActionListEntry>[] = [{ status: 'awaiting_approval' }];
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
      // Entries written before departures moved out (`left: true`) never match the status.
      return newestByIdPage(inbox, { $and: clauses }, limit, beforeId);
    },
  };
}

export type ActionInboxRepo = ReturnType<typeof createActionInboxRepo>;
