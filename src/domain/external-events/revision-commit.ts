import stringify from 'safe-stable-stringify';
import { newId } from '../../lib/ids';
import type { ExternalState, FieldProvenance } from '../../store/world-external-state.repo';
import type { WorldHistoryEvent } from '../../store/world-history.repo';
import { settledConditions } from './conditions';
import type { MergedFields } from './merge';

/** World history kind of a committed change of an object's external state. */
export const EXTERNAL_STATE_CHANGED = 'object.external_state_changed';
/** Event ids listed in one history event. */
const HISTORY_EVENT_IDS = 20;

/** The state of an object no event has reached: revision 0 of its chain. */
export const initialState = (): ExternalState => ({
  revision: 0,
  fields: {},
  provenance: {},
  generation: 0,
  observed_generation: 0,
  conditions: [],
  last_event_id: null,
  updated_at: '',
});

/**
 * The revision committing `merged` on top of `before` (revision + 1), and its world history
 * event; `changers` are the events that changed the state, in order.
 */
export function commitOf(
  objectId: string,
  before: ExternalState,
  merged: MergedFields,
  changers: string[],
  now: string,
): { next: ExternalState; history: WorldHistoryEvent } {
  const next: ExternalState = {
    revision: before.revision + 1,
    fields: merged.fields,
    provenance: merged.provenance,
    generation: merged.generation,
    observed_generation: merged.generation,
    conditions: settledConditions(
      {
        generation: merged.generation,
        provenance: merged.provenance,
        conditions: before.conditions,
      },
      now,
    ),
    last_event_id: merged.last_event_id,
    updated_at: now,
  };
  const history: WorldHistoryEvent = {
    _id: newId('evt'),
    kind: EXTERNAL_STATE_CHANGED,
    object_id: objectId,
    at: now,
    change: describeChange(before, next, changers),
  };
  return { next, history };
}

/** The world history `change` of one committed revision. */
function describeChange(before: ExternalState, after: ExternalState, changers: string[]) {
  const fields: Record<string, { from: unknown; to: unknown }> = {};
  for (const [field, value] of Object.entries(after.fields)) {
    const had = Object.prototype.hasOwnProperty.call(before.fields, field);
    if (!had || stringify(before.fields[field]) !== stringify(value)) {
      fields[field] = { from: had ? before.fields[field] : null, to: value };
    }
  }
  const disputed = Object.entries(after.provenance)
    .filter(
      ([field, p]: [string, FieldProvenance]) => p.conflict && !before.provenance[field]?.conflict,
    )
    .map(([field]) => field);
  return {
    source: 'external_events',
    revision: after.revision,
    generation: { from: before.generation, to: after.generation },
    fields,
    newly_disputed_fields: disputed,
    event_count: changers.length,
    event_ids: changers.slice(0, HISTORY_EVENT_IDS),
  };
}
