import type { AppInfra } from '../../app/deps';
import { found, notFound } from '../../lib/errors';
import type { RelationshipQuery, WorldHistoryQuery, WorldKindQuery } from './schemas';
import { decodeCursor, pageById } from '../../store/paging';
import { historyEventView, objectView, relationshipView } from './views';

type WorldDeps = Pick<AppInfra, 'repos'>;

const DEFAULT_LIMIT = 50;

/** A page of world objects in id order, optionally of one kind. */
export const listObjects = (deps: WorldDeps, query: WorldKindQuery) =>
  pageById(
    query,
    'obj',
    (limit, after) => deps.repos.worldObjects.list({ kind: query.kind }, limit, after),
    objectView,
  );

/** One world object; 404 when unknown. */
export async function getObject(deps: WorldDeps, objectId: string) {
  const object = await found(
    deps.repos.worldObjects.findById(objectId),
    `world object ${objectId}`,
  );
  return objectView(object);
}

/** A page of one object's relationships (both directions unless asked); 404 when unknown. */
export async function listRelationships(
  deps: WorldDeps,
  objectId: string,
  query: RelationshipQuery,
) {
  if (!(await deps.repos.worldObjects.exists(objectId))) {
    throw notFound(`world object ${objectId}`);
  }
  return pageById(
    query,
    'rel',
    (limit, after) =>
      deps.repos.worldRelationships.listFor(
        objectId,
        { kind: query.kind, direction: query.direction ?? 'both' },
        limit,
        after,
      ),
    relationshipView,
  );
}

/** A page of the append-only history, newest first. */
export async function listHistory(deps: WorldDeps, query: WorldHistoryQuery) {
  const page = await deps.repos.worldHistory.list(
    { object_id: query.object_id, kind: query.kind },
    query.limit ?? DEFAULT_LIMIT,
    query.cursor ? decodeCursor(query.cursor) : undefined,
  );
  return { items: page.items.map(historyEventView), next_cursor: page.next_cursor };
}

/**
 * The world state: a page of objects, their total and the newest history event id. Cached
 * per query until the world revision moves: three collection scans on FerretDB otherwise.
 */
export function worldState(deps: WorldDeps & Pick<AppInfra, 'worldReads'>, query: WorldKindQuery) {
  const key = `state:${JSON.stringify([query.kind, query.limit, query.cursor])}`;
  return deps.worldReads.read(key, () => computeWorldState(deps, query));
}

async function computeWorldState(deps: WorldDeps, query: WorldKindQuery) {
  const { repos } = deps;
  const [objects, objectCount, historyHead] = await Promise.all([
    listObjects(deps, query),
    repos.worldObjects.count({ kind: query.kind }),
    repos.worldHistory.head(),
  ]);
  return {
    world_state: {
      objects: objects.items,
      history_head: historyHead,
      object_count: objectCount,
    },
    next_cursor: objects.next_cursor,
  };
}
