import type { Collection, Db } from 'mongodb';

/** A world object (DESIGN.md section 5); `version` grows by one with every change. */
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

export type WorldObjectsRepo = ReturnType<typeof createWorldObjectsRepo>;

export function createWorldObjectsRepo(db: Db) {
  const col: Collection<WorldObject> = db.collection<WorldObject>('world_objects');
  return {
    collection: col,
    async ensureIndexes(): Promise<void> {
      await col.createIndex({ kind: 1, _id: 1 }, { name: 'by_kind' });
    },
    findById: (id: string) => col.findOne({ _id: id }),
    async insert(object: WorldObject): Promise<WorldObject> {
      await col.insertOne(object);
      return object;
    },
    /**
     * Sets attributes if the object is still at `baseVersion` (optimistic concurrency);
     * false when it has moved on.
     */
    async patchAtVersion(
      id: string,
      baseVersion: number,
      attributes: Record<string, unknown>,
      actionId: string,
      now: string,
    ): Promise<boolean> {
      const set: Record<string, unknown> = { updated_at: now, last_action_id: actionId };
      for (const [field, value] of Object.entries(attributes)) set[`attributes.${field}`] = value;
      const result = await col.updateOne(
        { _id: id, version: baseVersion },
        { $set: set, $inc: { version: 1 } },
      );
      return result.modifiedCount === 1;
    },
  };
}
