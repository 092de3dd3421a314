import type { Db, Filter } from 'mongodb';
import { insertOnce, insertUnordered, isDuplicateRefusal } from './mongo';
import { byIdReader } from './reads-by-id';
import type { WorldHistoryEvent } from './world-history.repo';
import type { WorldChange, WorldRevisionsRepo } from './world-revisions.repo';

/** Where a reconciled field's current value came from. */
export interface FieldProvenance {
  /** `occurred_at` of the event that set the value (ISO 8601 UTC, ms). */
  occurred_at: string;
  event_id: string;
  source_family: string;
  source_event_id: string;
  /**
   * True when events with this same `occurred_at` reported different values for the field:
   * the value is the tie-break winner (larger `(source_family, source_event_id)`).
   */
  conflict: boolean;
}

/** A Kubernetes-style condition. */
export interface ExternalCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  last_transition_time: string;
}

/** The reconciled external state of one world object, as stored and projected. */
export interface ExternalState {
  /** Position in the object's revision chain; grows by one with every committed change. */
  revision: number;
  fields: Record<string, unknown>;
  provenance: Record<string, FieldProvenance>;
  generation: number;
  observed_generation: number;
  conditions: ExternalCondition[];
  last_event_id: string | null;
  updated_at: string;
}

/**
 * One committed change of an object's external state. `_id` is `<object_id>:<revision>`:
 * inserting revision r + 1 is the claim of the right to change revision r (a unique `_id`
 * insert is atomic, where FerretDB's conditional updates are not), so two writers that read
 * the same revision cannot both commit. The history event is kept here so a pass that died
 * before recording it can be completed by the next reader.
 */
export interface ExternalStateRevision {
  _id: string;
  object_id: string;
  revision: number;
  state: ExternalState;
  history: WorldHistoryEvent;
  committed_at: string;
}

/** What a reconciler needs of a world object. */
export interface ObjectWithExternalState {
  _id: string;
  kind: string;
  name: string;
  external_state?: Partial<ExternalState> | null;
}

export interface ExternalStateFilter {
  object_id?: string;
  kind?: string;
}

/**
 * Statements in one `update` command. FerretDB v1.24 never answers an `update` of 100 or more
 * statements (99 it does; `world-external-state.repo.int.test.ts` sends more than this).
 */
const UPDATES_PER_COMMAND = 50;

/** The fields of a world object a reconciler reads. */
const OBJECT = { _id: 1, kind: 1, name: 1, external_state: 1 };

export const revisionId = (objectId: string, revision: number): string => `${objectId}:${revision}`;

/** The chain record committing `state` (its `revision`) with its history event. */
export const revisionRecord = (
  objectId: string,
  state: ExternalState,
  history: WorldHistoryEvent,
  committedAt: string,
): ExternalStateRevision => ({
  _id: revisionId(objectId, state.revision),
  object_id: objectId,
  revision: state.revision,
  state,
  history,
  committed_at: committedAt,
});

/**
 * The external state of world objects: an append-only chain of revisions (the truth) and
 * its projection onto `world_objects.external_state` (what object reads show; a cache that
 * may briefly lag the chain, never lead it).
 */
export function createWorldExternalStateRepo(
  db: Db,
  worldRevisions: Pick<WorldRevisionsRepo, 'advance'>,
) {
  const objects = db.collection<ObjectWithExternalState>('world_objects');
  const revisions = db.collection<ExternalStateRevision>('world_external_state_revisions');
  const readByIds = byIdReader(db);
  return {
    /** The object with its projected external state, or null when there is no such object. */
    findObject: (objectId: string) => objects.findOne({ _id: objectId }, { projection: OBJECT }),
    /**
     * Objects with their projected external state, in the order asked (null where there is
     * no such object): read by `_id` the server's way (`reads-by-id.ts`: one `findOne` each,
     * sent at once, on FerretDB, whose `$in` decodes the whole collection; one `find` on
     * MongoDB).
     */
    findObjects: (objectIds: readonly string[]) => readByIds(objects, objectIds, OBJECT),
    /** One revision of the chain, read by `_id`. */
    findRevision: (objectId: string, revision: number) =>
      revisions.findOne({ _id: revisionId(objectId, revision) }),
    /** Revisions of several chains (`[object, revision]` each), read as `findObjects` reads. */
    findRevisions: (wanted: readonly (readonly [string, number])[]) =>
      readByIds(
        revisions,
        wanted.map(([objectId, revision]) => revisionId(objectId, revision)),
      ),
    /** Commits a revision; false when another writer committed this revision first. */
    async claimRevision(revision: ExternalStateRevision): Promise<boolean> {
      return insertOnce(revisions, revision);
    },
    /**
     * Commits revisions of several chains in one unordered insert: one answer per revision,
     * false where another writer committed that revision first (a duplicate `_id` refuses
     * only its own document, on FerretDB as on MongoDB: `world-external-state.repo.int.test.ts`).
     * Any other refusal throws; the revisions it did not refuse are committed then, and their
     * next reader finishes them (the chain is the truth).
     */
    async claimRevisions(records: readonly ExternalStateRevision[]): Promise<boolean[]> {
      const won = records.map(() => true);
      if (records.length === 0) return won;
      const refusals = await insertUnordered(revisions, [...records], isDuplicateRefusal);
      for (const refusal of refusals) won[refusal.index] = false;
      return won;
    },
    /**
     * Projects a committed state onto the object unless a later revision is there already.
     * Only `external_state` is set, so the object's attributes and `version` stay as they
     * are. (FerretDB v1 applies an update as read-modify-write of the whole document, so a
     * concurrent writer can still overwrite the projection; the chain stays the truth and
     * the next pass re-projects.)
     */
    async project(objectId: string, state: ExternalState): Promise<void> {
      await objects.updateOne(
        {
          _id: objectId,
          $or: [
            { 'external_state.revision': { $exists: false } },
            { 'external_state.revision': { $lt: state.revision } },
          ],
        },
        { $set: { external_state: state } },
      );
      await worldRevisions.advance({ objects: [objectId] });
    },
    /**
     * Writes a committed state onto the object, filtering by `_id` alone: the one filter
     * FerretDB serves from its index (the guarded `project` scans the collection, a cost per
     * pass that grows with the world). Nothing checks
     * that a later revision is not projected already, so the caller must then look for
     * revision `state.revision + 1` and project the chain's newest if it is there (the
     * reconciler's `followChain`). `alsoChanged`: the caller's writes this advance covers.
     */
    async projectById(
      objectId: string,
      state: ExternalState,
      alsoChanged: WorldChange = {},
    ): Promise<void> {
      await objects.updateOne({ _id: objectId }, { $set: { external_state: state } });
      // One advance for this write and the caller's history appended just before it.
      await worldRevisions.advance({ ...alsoChanged, objects: [objectId] });
    },
    /**
     * `projectById` for several objects: one `update` command of one statement per object
     * (each filtered by `_id` alone; a command per `UPDATES_PER_COMMAND` objects), then one
     * world revision advance for them all and the caller's `alsoChanged`. The same duty
     * follows: the caller looks for the revision after each state it wrote.
     */
    async projectManyById(
      states: readonly (readonly [string, ExternalState])[],
      alsoChanged: WorldChange = {},
    ): Promise<void> {
      for (let start = 0; start < states.length; start += UPDATES_PER_COMMAND) {
        await objects.bulkWrite(
          states.slice(start, start + UPDATES_PER_COMMAND).map(([objectId, state]) => ({
            updateOne: { filter: { _id: objectId }, update: { $set: { external_state: state } } },
          })),
          { ordered: false },
        );
      }
      if (states.length === 0) return;
      await worldRevisions.advance({ ...alsoChanged, objects: states.map(([id]) => id) });
    },
    /** Objects that have an external state, in id order after `afterId`; `limit + 1` rows. */
    list(filter: ExternalStateFilter, limit: number, afterId?: string) {
      // One object at most when `object_id` is given, so a page never follows it.
      const idClause = filter.object_id ?? (afterId ? { $gt: afterId } : undefined);
      const query: Filter<ObjectWithExternalState> = {
        'external_state.revision': { $gte: 1 },
        ...(filter.kind ? { kind: filter.kind } : {}),
        ...(idClause === undefined ? {} : { _id: idClause }),
      };
      return objects
        .find(query, { projection: OBJECT })
        .sort({ _id: 1 })
        .limit(limit + 1)
        .toArray();
    },
  };
}

export type WorldExternalStateRepo = ReturnType<typeof createWorldExternalStateRepo>;
