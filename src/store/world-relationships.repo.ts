import type { Db, Filter } from 'mongodb';
import { insertOnce } from './mongo';

/** A directed relationship between two world objects (docs/world.md). */
export interface WorldRelationship {
  _id: string;
  from: string;
  to: string;
  kind: string;
  created_at: string;
}

/** Which end of a relationship the listed object is. */
export type RelationshipDirection = 'out' | 'in' | 'both';

export interface RelationshipFilter {
  kind?: string;
  direction: RelationshipDirection;
}

function toQuery(
  objectId: string,
  filter: RelationshipFilter,
  afterId?: string,
): Filter<WorldRelationship> {
  const ends: Filter<WorldRelationship> =
    filter.direction === 'out'
      ? { from: objectId }
      : filter.direction === 'in'
        ? { to: objectId }
        : { $or: [{ from: objectId }, { to: objectId }] };
  return {
    ...ends,
    ...(filter.kind ? { kind: filter.kind } : {}),
    ...(afterId ? { _id: { $gt: afterId } } : {}),
  };
}

export function createWorldRelationshipsRepo(db: Db) {
  const col = db.collection<WorldRelationship>('world_relationships');
  return {
    findById: (id: string) => col.findOne({ _id: id }),
    /** Inserts unless the id or the edge exists; true when this call created it. */
    async insertOnce(relationship: WorldRelationship): Promise<boolean> {
      return insertOnce(col, relationship);
    },
    /** The first `limit` relationships of the world, in `_id` order (a picture of it). */
    first: (limit: number): Promise<WorldRelationship[]> =>
      col.find({}).sort({ _id: 1 }).limit(limit).toArray(),
    /** Relationships of one object in `_id` order after `afterId`; `limit + 1` rows. */
    listFor(
      objectId: string,
      filter: RelationshipFilter,
      limit: number,
      afterId?: string,
    ): Promise<WorldRelationship[]> {
      return col
        .find(toQuery(objectId, filter, afterId))
        .sort({ _id: 1 })
        .limit(limit + 1)
        .toArray();
    },
  };
}

export type WorldRelationshipsRepo = ReturnType<typeof createWorldRelationshipsRepo>;
