import stringify from 'safe-stable-stringify';
import type { FieldProvenance } from '../../store/world-external-state.repo';

/**
 * The reconciliation merge: a last-writer-wins map keyed by field, where "last" is the
 * event's stamp `(occurred_at, source_family, source_event_id)`. Stamps are a total order
 * over distinct events (the pair is the dedup key), so the merged fields and their
 * provenance are a pure function of the *set* of events merged: the merge is commutative,
 * associative and idempotent, and any arrival order (or a re-delivery) ends in the same
 * state. Pure code: no I/O, no clock.
 */

/** The merged part of an object's external state. */
export interface MergedFields {
  fields: Record<string, unknown>;
  provenance: Record<string, FieldProvenance>;
  /** Bumped by every event that set at least one field. */
  generation: number;
  /** Newest event (by arrival) that set a field. */
  last_event_id: string | null;
}

/** What the merge needs of an event. */
export interface MergeEvent {
  event_id: string;
  source_family: string;
  source_event_id: string;
  /** Normalised ISO 8601 UTC. */
  occurred_at: string;
  payload: Record<string, unknown>;
}

/** A same-`occurred_at` disagreement the event took part in, and how it was settled. */
export interface FieldConflict {
  field: string;
  /** `won`: this event's value is kept; `lost`: the held value is kept. */
  resolution: 'won' | 'lost';
  /** The other side of the tie. */
  against: { event_id: string; source_family: string; source_event_id: string };
}

export type MergeOutcome = 'applied' | 'stale' | 'conflict';

/** What merging one event did. */
export interface MergeResult {
  state: MergedFields;
  outcome: MergeOutcome;
  /** Fields this event's values now hold (won, or already held from this same event). */
  applied_fields: string[];
  /** Fields held by a newer observation. */
  stale_fields: string[];
  conflicts: FieldConflict[];
  /** True when the state differs from the input (values, provenance or conflict flags). */
  changed: boolean;
  reason: string | null;
}

export const emptyMerged = (): MergedFields => ({
  fields: {},
  provenance: {},
  generation: 0,
  last_event_id: null,
});

/** A copy of `state` for `mergeEventInto` to change (it replaces held entries, never edits). */
export const ownedCopy = (state: MergedFields): MergedFields => ({
  fields: { ...state.fields },
  provenance: { ...state.provenance },
  generation: state.generation,
  last_event_id: state.last_event_id,
});

const canonical = (value: unknown): string => stringify(value) ?? 'undefined';
const timeOf = (iso: string): number => Date.parse(iso);

type Stamp = Pick<FieldProvenance, 'occurred_at' | 'source_family' | 'source_event_id'>;

/** Total order of stamps: time, then source family, then source event id. */
export function compareStamps(a: Stamp, b: Stamp): number {
  return compareStampsAt(timeOf(a.occurred_at), a, timeOf(b.occurred_at), b);
}

/** `compareStamps` with both times already parsed (a merge parses each once). */
function compareStampsAt(aTime: number, a: Stamp, bTime: number, b: Stamp): number {
  if (aTime !== bTime) return aTime < bTime ? -1 : 1;
  if (a.source_family !== b.source_family) return a.source_family < b.source_family ? -1 : 1;
  if (a.source_event_id !== b.source_event_id)
    return a.source_event_id < b.source_event_id ? -1 : 1;
  return 0;
}

/**
 * Merges one event into the state. Per field of the payload (its top-level keys):
 * a larger stamp wins; a smaller one is stale; an equal stamp is the same event again
 * (a no-op that still counts as applied). Equal `occurred_at` with a different value is a
 * conflict, settled by the stamp order and flagged on the field whichever side arrives
 * first. Outcome: `conflict` if the event took part in one, else `applied` if it holds any
 * field, else `stale`.
 */
export function mergeEvent(state: MergedFields, event: MergeEvent): MergeResult {
  return mergeEventInto(ownedCopy(state), event);
}

/**
 * `mergeEvent` into a state the caller owns (from `ownedCopy`), changed in place: a pass
 * that merges many events into one object copies its fields once, not once per event.
 */
export function mergeEventInto(state: MergedFields, event: MergeEvent): MergeResult {
  const { fields, provenance } = state;
  const applied: string[] = [];
  const stale: string[] = [];
  const conflicts: FieldConflict[] = [];
  let won = false;
  let changed = false;
  const stamp = {
    occurred_at: event.occurred_at,
    source_family: event.source_family,
    source_event_id: event.source_event_id,
  };
  const eventTime = timeOf(event.occurred_at);
  for (const [field, value] of Object.entries(event.payload)) {
    const held = provenance[field];
    if (!held) {
      fields[field] = value;
      provenance[field] = { ...stamp, event_id: event.event_id, conflict: false };
      applied.push(field);
      won = changed = true;
      continue;
    }
    const heldTime = timeOf(held.occurred_at);
    const order = compareStampsAt(eventTime, stamp, heldTime, held);
    if (order === 0) {
      applied.push(field);
      continue;
    }
    const sameTime = eventTime === heldTime;
    const differs = sameTime && canonical(value) !== canonical(fields[field]);
    const other = {
      event_id: held.event_id,
      source_family: held.source_family,
      source_event_id: held.source_event_id,
    };
    if (order > 0) {
      fields[field] = value;
      provenance[field] = {
        ...stamp,
        event_id: event.event_id,
        conflict: sameTime && (held.conflict || differs),
      };
      applied.push(field);
      if (differs) conflicts.push({ field, resolution: 'won', against: other });
      won = changed = true;
    } else if (differs) {
      conflicts.push({ field, resolution: 'lost', against: other });
      if (!held.conflict) {
        provenance[field] = { ...held, conflict: true };
        changed = true;
      }
    } else {
      stale.push(field);
    }
  }
  const outcome: MergeOutcome =
    conflicts.length > 0 ? 'conflict' : applied.length > 0 ? 'applied' : 'stale';
  if (won) {
    state.generation += 1;
    state.last_event_id = event.event_id;
  }
  return {
    state,
    outcome,
    applied_fields: applied,
    stale_fields: stale,
    conflicts,
    changed,
    reason: reasonOf(outcome, event, stale, conflicts),
  };
}

function reasonOf(
  outcome: MergeOutcome,
  event: MergeEvent,
  stale: string[],
  conflicts: FieldConflict[],
): string | null {
  if (outcome === 'conflict') {
    const parts = conflicts.map(
      (c) =>
        `${c.field} ${c.resolution === 'won' ? 'won over' : 'lost to'} ${c.against.source_family}/${c.against.source_event_id}`,
    );
    return `same occurred_at, different value (the larger (source_family, source_event_id) wins): ${parts.join('; ')}`;
  }
  if (outcome === 'stale') {
    return Object.keys(event.payload).length === 0
      ? 'the payload carries no fields'
      : `every field is held by a newer observation: ${stale.join(', ')}`;
  }
  return null;
}
