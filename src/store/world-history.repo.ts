import type { Db, Filter } from 'mongodb';
import { insertOnce, insertUnordered, isDuplicateRefusal, isDuplicateKey } from './mongo';
import { afterPosition, toPage, type PagePosition } from './paging';
import type { WorldChange, WorldRevisionsRepo } from './world-revisions.repo';

/** One append-only world history event. */
export interface WorldHistoryEvent {
  _id: string;
  kind: string;
  /** The object the event is about, when it is about one. */
  object_id?: string;
  /** The task the event is about (task events). */
  task_id?: string;
  /** Every object the event concerns (a task's refs, both ends of a relationship). */
  object_refs?: string[];
  at: string;
  change: Record<string, unknown>;
}

/** Filters of the history listing. */
export interface WorldHistoryFilter {
  /** Events whose `object_id` is this object or whose `object_refs` name it. */
  object_id?: string;
  kind?: string;
}

function toQuery(filter: WorldHistoryFilter, after?: PagePosition): Filter<WorldHistoryEvent> {
  const clauses: Filter<WorldHistoryEvent>[] = [];
  if (filter.object_id) {
    clauses.push({ $or: [{ object_id: filter.object_id }, { object_refs: filter.object_id }] });
  }
  if (filter.kind) clauses.push({ kind: filter.kind });
  if (after) clauses.push(afterPosition(after));
  if (clauses.length === 0) return {};
  return clauses.length === 1 ? clauses[0] : { $and: clauses };
}

/** The revision change of appending `event` (the history head folds it in). */
export const appendedChange = (event: WorldHistoryEvent): WorldChange => ({
  history: [{ id: event._id, at: event.at }],
});

export function createWorldHistoryRepo(db: Db, revisions: Pick<WorldRevisionsRepo, 'advance'>) {
  const col = db.collection<WorldHistoryEvent>('world_history');
  return {
    /** The newest event (by `at`, then `_id`), or null before any. */
    newest: async (): Promise<WorldHistoryEvent | null> =>
      (await col.find({}).sort({ at: -1, _id: -1 }).limit(1).toArray())[0] ?? null,
    /**
     * Appends once: a repeat with the same id (an activity retry, a re-delivery) is a no-op,
     * also when two writers race (FerretDB then answers the loser with a duplicate key).
     * A repeat still advances the world revision: the first writer may have died before it.
     * `advance: false` is for a caller that writes again right after and advances once for
     * both writes, passing on `appendedChange(event)` (the reconciler's history event and
     * projection).
     */
    async appendOnce(event: WorldHistoryEvent, options: { advance?: boolean } = {}): Promise<void> {
      // Insert-first: an upsert is a collection scan on FerretDB, growing with the history; a
      // duplicate id means the event is already there.
      try {
        await col.insertOne(event);
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
      }
      if (options.advance !== false) await revisions.advance(appendedChange(event));
    },
    /**
     * `appendOnce` for several events in one unordered insert: an event whose id is stored
     * already (a retry, a racing writer) refuses only itself and counts as appended. It does
     * not advance the world revision: the caller passes `appendedChange` of each event on to
     * its next write's advance (the reconciler's projections), as `advance: false` above.
     */
    async appendManyOnce(events: readonly WorldHistoryEvent[]): Promise<void> {
      if (events.length === 0) return;
      await insertUnordered(col, [...events], isDuplicateRefusal);
    },
    /**
     * Inserts unless an event with this id exists; true when this call wrote it. A repeat
     * advances the revision too (as `appendOnce`), so the history head carried by the
     * revisions includes the event even when the first writer died before its advance.
     */
    async insertOnce(event: WorldHistoryEvent): Promise<boolean> {
      const inserted = await insertOnce(col, event);
      await revisions.advance(appendedChange(event));
      return inserted;
    },
    findById: (id: string) => col.findOne({ _id: id }),
    /** True when the event exists (read by `_id`). */
    exists: async (id: string): Promise<boolean> =>
      (await col.findOne({ _id: id }, { projection: { _id: 1 } })) !== null,
    /** Events newest first (`at`, then `_id`, descending), keyset-paged. */
    async list(filter: WorldHistoryFilter, limit: number, after?: PagePosition) {
      const rows = await col
        .find(toQuery(filter, after))
        .sort({ at: -1, _id: -1 })
        .limit(limit + 1)
        .toArray();
      return toPage(rows, limit);
    },
    /** Id of the newest event, the world's `history_head`; null for an empty history. */
    async head(): Promise<string | null> {
      const newest = await col.findOne({}, { sort: { at: -1, _id: -1 }, projection: { _id: 1 } });
      return newest?._id ?? null;
    },
  };
}

export type WorldHistoryRepo = ReturnType<typeof createWorldHistoryRepo>;
