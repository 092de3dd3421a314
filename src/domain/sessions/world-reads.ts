import type { DomainInfra } from '../infra';
import { found, Invalid } from '../../lib/errors';
import type { WorldObject } from '../../store/world-objects.repo';

type WorldDeps = Pick<DomainInfra, 'repos'>;

/**
 * How far behind other processes' world writes a `list_objects` or `observe_world` step may
 * be (this process's own writes are seen at once): a revision check that found the world
 * unchanged at most this long ago is reused, instead of one read per step
 * (docs/sessions.md; docs/performance.md, sessions).
 */
export const STEP_WORLD_STALENESS_MS = 25;

/** An object as a step lists it. */
const brief = (object: WorldObject) => ({
  object_id: object._id,
  kind: object.kind,
  name: object.name,
  version: object.version,
  updated_at: object.updated_at,
});

/** `list_objects`: objects in creation (`_id`) order, optionally of one kind (cached, see docs/world.md). */
export function listObjectsStep(
  deps: WorldDeps & Pick<DomainInfra, 'worldReads'>,
  args: { kind?: string; limit: number },
) {
  const key = `list_objects:${JSON.stringify([args.kind, args.limit])}`;
  return deps.worldReads.read(key, () => firstObjects(deps, args), STEP_WORLD_STALENESS_MS);
}

async function firstObjects(deps: WorldDeps, args: { kind?: string; limit: number }) {
  const rows = await deps.repos.worldObjects.list({ kind: args.kind }, args.limit);
  const items = rows.slice(0, args.limit).map(brief);
  return {
    kind: args.kind ?? null,
    items,
    count: items.length,
    truncated: rows.length > args.limit,
  };
}

/** `inspect_object`: one object in full; an unknown id is 404 and takes no step. */
export async function inspectObject(deps: WorldDeps, objectId: string) {
  const object = await found(
    deps.repos.worldObjects.findById(objectId),
    `world object ${objectId}`,
  );
  return {
    object: {
      ...brief(object),
      attributes: object.attributes,
      external_state: object.external_state,
      created_at: object.created_at,
    },
  };
}

/**
 * `observe_world`: how many objects of each kind and the newest history event. Both read
 * whole collections (FerretDB scans anything but `_id`), so the census is cached until the
 * world revision moves.
 */
export async function observeWorld(deps: WorldDeps & Pick<DomainInfra, 'worldReads'>, now: string) {
  const census = await deps.worldReads.read(
    'census',
    () => worldCensus(deps),
    STEP_WORLD_STALENESS_MS,
  );
  return { ...census, observed_at: now };
}

async function worldCensus(deps: WorldDeps) {
  const [kinds, event] = await Promise.all([
    deps.repos.worldObjects.countByKind(),
    deps.repos.worldHistory.newest(),
  ]);
  const byKind = Object.fromEntries(
    kinds.sort((a, b) => a._id.localeCompare(b._id)).map((k) => [k._id, k.count]),
  );
  return {
    objects: kinds.reduce((sum, k) => sum + k.count, 0),
    by_kind: byKind,
    history_head: event?._id ?? null,
    newest_event: event
      ? { event_id: event._id, kind: event.kind, object_id: event.object_id ?? null, at: event.at }
      : null,
  };
}

/** A note's references must name existing objects: 422 for each that does not. */
export async function checkRefs(deps: WorldDeps, refs: string[]): Promise<void> {
  const found = await Promise.all(refs.map((id) => deps.repos.worldObjects.findById(id)));
  const missing = refs.flatMap((id, index) => (found[index] ? [] : [{ id, index }]));
  if (missing.length === 0) return;
  throw new Invalid(
    missing.map(({ id, index }) => ({
      loc: ['body', 'input_packet', 'args', 'refs', index],
      msg: `Unknown world object ${id}`,
      type: 'value_error',
    })),
  );
}
