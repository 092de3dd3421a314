import type { DomainInfra } from '../infra';
import { found, notFound } from '../../lib/errors';
import type { RelationshipQuery, WorldHistoryQuery, WorldKindQuery } from './schemas';
import { decodePageCursor, decodeIdCursor, idPage, pageById } from '../../store/paging';
import type { WorldObject } from '../../store/world-objects.repo';
import { toHistoryEventView, objectView, toRelationshipView } from './views';

type WorldDeps = Pick<DomainInfra, 'repos'>;

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
    toRelationshipView,
  );
}

/** A page of the append-only history, newest first. */
export async function listHistory(deps: WorldDeps, query: WorldHistoryQuery) {
  const page = await deps.repos.worldHistory.list(
    { object_id: query.object_id, kind: query.kind },
    query.limit ?? DEFAULT_LIMIT,
    query.cursor ? decodePageCursor(query.cursor) : undefined,
  );
  return { items: page.items.map(toHistoryEventView), next_cursor: page.next_cursor };
}

/** A world-state answer as cached: the page's rows (`limit + 1`) and the totals. */
interface StateRows {
  rows: WorldObject[];
  objectCount: number;
  historyHead: string | null;
}

/**
 * The world state: a page of objects, their total and the newest history event id. Cached
 * per query by world revision; after a world write the cached answer is brought forward
 * from the revisions between (docs/performance.md, "Reads as data grows"): the totals are
 * read from the newest revision, which carries them, and only the objects those revisions
 * name that can be on the page are read again, by `_id`. A cold cache, an unfolded
 * revision chain or a long gap computes from the collections (scans on FerretDB).
 */
export async function worldState(
  deps: WorldDeps & Pick<DomainInfra, 'worldReads'>,
  query: WorldKindQuery,
) {
  const key = `state:${JSON.stringify([query.kind, query.limit, query.cursor])}`;
  const page = {
    kind: query.kind,
    limit: query.limit ?? DEFAULT_LIMIT,
    after: query.cursor ? decodeIdCursor(query.cursor, 'obj') : undefined,
  };
  // First pages are stored for the cold caches of other processes (one per kind and limit).
  const pages = page.after === undefined ? deps.repos.worldStatePages : undefined;
  const state = await deps.worldReads.fold<StateRows>(key, {
    compute: (revision) => computeWorldState(deps, page, revision),
    update: (value, from, to) => bringForward(deps, page, value, from, to),
    load: pages
      ? async () => {
          const stored = await pages.get(key);
          return stored && { revision: stored.revision, value: stored };
        }
      : undefined,
    save: pages ? (revision, value) => pages.put(key, { revision, ...value }) : undefined,
  });
  const objects = idPage(state.rows, page.limit);
  return {
    world_state: {
      objects: objects.items.map(objectView),
      history_head: state.historyHead,
      object_count: state.objectCount,
    },
    next_cursor: objects.next_cursor,
  };
}

interface StatePage {
  kind?: string;
  limit: number;
  /** The id the page starts after (its cursor). */
  after?: string;
}

const countOf = (counts: Record<string, number>, kind: string | undefined): number =>
  kind ? (counts[kind] ?? 0) : Object.values(counts).reduce((sum, n) => sum + n, 0);

async function computeWorldState(
  deps: WorldDeps,
  page: StatePage,
  revision: number,
): Promise<StateRows> {
  const { repos } = deps;
  const [rows, totals] = await Promise.all([
    repos.worldObjects.list({ kind: page.kind }, page.limit, page.after),
    repos.worldRevisions.owesAdvance() ? null : repos.worldRevisions.totalsAt(revision),
  ]);
  if (totals) {
    return {
      rows,
      objectCount: countOf(totals.objectCounts, page.kind),
      historyHead: totals.historyHead?.id ?? null,
    };
  }
  const [objectCount, historyHead] = await Promise.all([
    repos.worldObjects.count({ kind: page.kind }),
    repos.worldHistory.head(),
  ]);
  return { rows, objectCount, historyHead };
}

/**
 * The state at revision `to` from the state at `from`: objects are never deleted and never
 * change kind, so the page changes only where the revisions between name an object that is
 * on it (read again) or sorts before its last row (or the page is not full): it enters.
 * Null when the revisions between do not say (an unfolded chain, too many of them).
 */
/**
 * How many revisions a page is brought forward over before computing it again is cheaper.
 * On FerretDB computing decodes every object and a revision is one read by `_id`, which
 * costs about as much as decoding a dozen objects, so one revision per 16 objects keeps
 * bringing forward the cheaper of the two; a busy world
 * (an ingest burst advances it tens of times a second) would otherwise recompute its pages
 * on nearly every read. On MongoDB the page is an index walk and the bound is only a bound.
 */
const foldBound = (objects: number): number => Math.min(2048, Math.max(64, objects >> 4));

async function bringForward(
  deps: WorldDeps,
  page: StatePage,
  state: StateRows,
  from: number,
  to: number,
): Promise<StateRows | null> {
  const { repos } = deps;
  const [changed, totals] = await Promise.all([
    repos.worldRevisions.objectsChanged(from, to, foldBound(state.objectCount)),
    repos.worldRevisions.totalsAt(to),
  ]);
  if (!changed || !totals) return null;
  const onPage = new Set(state.rows.map((row) => row._id));
  const full = state.rows.length > page.limit;
  const last = state.rows[state.rows.length - 1]?._id;
  const candidates = changed.filter(
    (id) =>
      (page.after === undefined || id > page.after) &&
      (onPage.has(id) || !full || (last !== undefined && id < last)),
  );
  const fresh = await Promise.all(candidates.map((id) => repos.worldObjects.findById(id)));
  const byId = new Map(state.rows.map((row) => [row._id, row]));
  for (const object of fresh) {
    if (object && (!page.kind || object.kind === page.kind)) byId.set(object._id, object);
  }
  const rows = [...byId.values()]
    .sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0))
    .slice(0, page.limit + 1);
  return {
    rows,
    objectCount: countOf(totals.objectCounts, page.kind),
    historyHead: totals.historyHead?.id ?? null,
  };
}
