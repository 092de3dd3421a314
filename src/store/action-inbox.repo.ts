import type { Collection, Db, Filter } from 'mongodb';
import type { ActionListEntry, ActionListFilter } from './external-actions.repo';
import { newestByIdPage } from './paging';

/** An action that left `awaiting_approval`: kept a while so a late write cannot revive it. */
interface Departure {
  _id: string;
  seq: number;
  status: ActionListEntry['status'];
  left: true;
  updated_at: string;
}

type InboxDoc = (ActionListEntry & { left?: false }) | Departure;

/** How long a departure is kept: far beyond any retry of the activity that wrote it. */
const DEPARTURE_KEPT_MS = 60 * 60_000;

/**
 * The actions awaiting approval now, apart from the other actions: the inbox reads this
 * short collection instead of every action ever proposed. FerretDB v1 pushes down only an
 * `_id` equality, so a filtered, sorted page of `external_actions` decodes the whole
 * collection (2.4 s at 10,000 actions); this one holds only what awaits approval, plus
 * the departures of the last hour, and only what a list shows of each (`ActionListEntry`). Written by the action's record activity, guarded by
 * `seq` like the projection, so a late retry of an older record never goes back.
 */
export function createActionInboxRepo(db: Db) {
  const inbox = db.collection<InboxDoc>('action_inbox');
  let lastPruneMs = 0;
  return {
    /**
     * `fresh`: the caller knows no later record can be stored yet (it is recording this
     * transition for the first time, `recordActionTransitions`), so nothing needs to be read first:
     * a departure's replace without upsert leaves an action never listed unlisted.
     */
    async project(record: ActionListEntry, options: { fresh?: boolean } = {}): Promise<void> {
      const stored = options.fresh
        ? null
        : await inbox.findOne({ _id: record._id }, { projection: { seq: 1 } });
      if (stored && stored.seq >= record.seq) return;
      if (record.status === 'awaiting_approval') {
        await inbox.replaceOne({ _id: record._id }, record, { upsert: true });
      } else if (stored || options.fresh) {
        await inbox.replaceOne(
          { _id: record._id },
          {
            seq: record.seq,
            status: record.status,
            left: true,
            updated_at: record.updated_at,
          },
        );
        await this.pruneDepartures(Date.now());
      }
    },
    /** Drops departures older than an hour, at most once a minute per process. */
    async pruneDepartures(nowMs: number): Promise<void> {
      if (nowMs - lastPruneMs < 60_000) return;
      lastPruneMs = nowMs;
      const cutoff = new Date(nowMs - DEPARTURE_KEPT_MS).toISOString();
      await inbox.deleteMany({ left: true, updated_at: { $lt: cutoff } });
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
      // Departures never match `awaiting_approval`: the page holds live entries only.
      const live = inbox as unknown as Collection<ActionListEntry>;
      return newestByIdPage(live, { $and: clauses }, limit, beforeId);
    },
  };
}

export type ActionInboxRepo = ReturnType<typeof createActionInboxRepo>;
