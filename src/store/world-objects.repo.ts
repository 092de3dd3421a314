import type { Collection, Db, Filter } from 'mongodb';
import { insertOnce, isDuplicateKey } from './mongo';
import type { WorldChange, WorldRevisionsRepo } from './world-revisions.repo';

/** A world object (docs/world.md); `version` grows by one with every change. */
export interface WorldObject {
  _id: string;
  kind: string;
  name: string;
  attributes: Record<string, unknown>;
  external_state: Record<string, unknown>;
  version: number;
  created_at: string;
  updated_at: string;
  /** The external action that made the last change, so re-applying it is recognised. */
  last_action_id?: string;
}

/** Filters of the object listings. */
export interface WorldObjectFilter {
  kind?: string;
}

const byKind = (filter: WorldObjectFilter): Filter<WorldObject> =>
  filter.kind ? { kind: filter.kind } : {};

/** The revision change of creating `object`: it is written, and one more of its kind. */
const createdChange = (object: WorldObject): WorldChange => ({
  objects: [object._id],
  created: { [object.kind]: 1 },
});

export function createWorldObjectsRepo(db: Db, revisions: Pick<WorldRevisionsRepo, 'advance'>) {
  const col = db.collection<WorldObject>('world_objects');
  const versions: Collection<{ _id: string; object_id: string; action_id: string; at: string }> =
    db.collection('world_object_versions');
  return {
    /** Objects per kind (one `$group`, FerretDB-safe), in no particular order. */
    countByKind: (): Promise<{ _id: string; count: number }[]> =>
      col
        .aggregate<{ _id: string; count: number }>([
          { $group: { _id: '$kind', count: { $sum: 1 } } },
        ])
        .toArray(),
    findById: (id: string) => col.findOne({ _id: id }),
    async insert(object: WorldObject): Promise<WorldObject> {
      await col.insertOne(object);
      await revisions.advance(createdChange(object));
      return object;
    },
    /** Inserts unless an object with this id exists; true when this call created it. */
    async insertOnce(object: WorldObject): Promise<boolean> {
      if (!(await insertOnce(col, object))) return false;
      await revisions.advance(createdChange(object));
      return true;
    },
    /** True when no object exists at all (one indexed read, no scan). */
    isEmpty: async (): Promise<boolean> =>
      (await col.findOne({}, { projection: { _id: 1 } })) === null,
    /** True when the object exists (read by `_id`). */
    exists: async (id: string): Promise<boolean> =>
      (await col.findOne({ _id: id }, { projection: { _id: 1 } })) !== null,
    /**
     * The ids among `ids` that name no object. One read by `_id` each, in parallel: FerretDB
     * answers `$in` with a collection scan, a lookup by `_id` without one.
     */
    async missingIds(ids: readonly string[]): Promise<string[]> {
      const found = await Promise.all(
        ids.map((id) => col.findOne({ _id: id }, { projection: { _id: 1 } })),
      );
      return ids.filter((_, index) => found[index] === null);
    },
    /** Objects in `_id` order after `afterId`; `limit + 1` rows, so the caller sees if more follow. */
    list(filter: WorldObjectFilter, limit: number, afterId?: string): Promise<WorldObject[]> {
      const query: Filter<WorldObject> = {
        ...byKind(filter),
        ...(afterId ? { _id: { $gt: afterId } } : {}),
      };
      return col
        .find(query)
        .sort({ _id: 1 })
        .limit(limit + 1)
        .toArray();
    },
    /** How many objects match (all pages). */
    count: (filter: WorldObjectFilter): Promise<number> => col.countDocuments(byKind(filter)),
    /**
     * Sets attributes if the object is still at `baseVersion` (optimistic concurrency);
     * false when it has moved on. `replace` swaps in the whole attribute set (a repair),
     * otherwise only the fields given change.
     */
    async patchAtVersion(
      id: string,
      baseVersion: number,
      attributes: Record<string, unknown>,
      actionId: string,
      now: string,
      mode: 'patch' | 'replace' = 'patch',
    ): Promise<boolean> {
      // FerretDB's conditional update is not a compare-and-set (it reads, then writes by
      // _id), so the next version is claimed by a unique insert first: exactly one writer
      // gets it. A retry of the same action finds its own claim and finishes the write.
      const claim = {
        _id: `${id}:${baseVersion + 1}`,
        object_id: id,
        action_id: actionId,
        at: now,
      };
      try {
        await versions.insertOne(claim);
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        const held = await versions.findOne({ _id: claim._id });
        if (held?.action_id !== actionId) return false;
      }
      // Writers that do not claim versions may have moved the object on meanwhile.
      const current = await col.findOne(
        { _id: id },
        { projection: { version: 1, last_action_id: 1 } },
      );
      if (!current) return false;
      if (current.version !== baseVersion && current.last_action_id !== actionId) return false;
      const set: Record<string, unknown> = {
        updated_at: now,
        last_action_id: actionId,
        version: baseVersion + 1,
      };
      if (mode === 'replace') set['attributes'] = attributes;
      else
        for (const [field, value] of Object.entries(attributes)) set[`attributes.${field}`] = value;
      await col.updateOne({ _id: id }, { $set: set });
      await revisions.advance({ objects: [id] });
      return true;
    },
  };
}

export type WorldObjectsRepo = ReturnType<typeof createWorldObjectsRepo>;
