import type { ExternalEventRecord, StoredReconciliation } from '../../store/external-events.repo';
import type {
  ExternalState,
  ExternalStateRevision,
  ObjectWithExternalState,
} from '../../store/world-external-state.repo';
import { pendingConditions } from './conditions';
import type { EventReconciliation } from './reconciler';

/** An ingested event as clients see it. */
export function toEventView(
  record: ExternalEventRecord,
  outcome: StoredReconciliation['outcome'] | undefined,
) {
  const { _id, ...rest } = record;
  return { ...rest, ...(outcome ? { reconciliation: outcome } : {}) };
}

/** One reconciliation record per event: `rec_` and the event id's ULID. */
export const reconciliationIdOf = (eventId: string): string => `rec_${eventId.slice(4)}`;

const sameList = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((item, index) => item === b[index]);

/** The row that stores an event's output: only what differs from the usual is written. */
export function toStoredReconciliation(
  event: ExternalEventRecord,
  output: EventReconciliation,
  reconciledAt: string,
): StoredReconciliation {
  const usualApplied = output.outcome === 'applied' ? Object.keys(event.payload) : [];
  return {
    _id: event.event_id,
    event_key: event._id,
    outcome: output.outcome,
    generation: output.generation,
    revision: output.revision,
    reconciled_at: reconciledAt,
    ...(sameList(output.applied_fields, usualApplied)
      ? {}
      : { applied_fields: output.applied_fields }),
    ...(output.stale_fields.length > 0 ? { stale_fields: output.stale_fields } : {}),
    ...(output.conflicts.length > 0 ? { conflicts: output.conflicts } : {}),
    ...(output.reason !== null ? { reason: output.reason } : {}),
  };
}

/** The reconciliation output of one event, from its stored row and the event. */
export function toReconciliationView(stored: StoredReconciliation, event: ExternalEventRecord) {
  return {
    event_id: stored._id,
    reconciliation_id: reconciliationIdOf(stored._id),
    outcome: stored.outcome,
    world_object_ref: event.world_object_ref,
    shared_context_id: event.shared_context_id,
    applied_fields:
      stored.applied_fields ?? (stored.outcome === 'applied' ? Object.keys(event.payload) : []),
    stale_fields: stored.stale_fields ?? [],
    conflicts: stored.conflicts ?? [],
    reason: stored.reason ?? null,
    generation: stored.generation,
    revision: stored.revision,
    reconciled_at: stored.reconciled_at,
  };
}

/**
 * The external state of one object: its projection, or the newest revision of its chain
 * when that is ahead (a pass still recording): then `observed_generation` is what the
 * projection has and `Reconciled` is False.
 */
export function toExternalStateView(
  object: Pick<ObjectWithExternalState, '_id' | 'kind' | 'name'>,
  projected: ExternalState,
  latest: ExternalStateRevision | null,
) {
  const state: ExternalState = latest
    ? {
        ...latest.state,
        observed_generation: projected.generation,
        conditions: pendingConditions(
          latest.state.conditions,
          latest.revision,
          latest.committed_at,
        ),
      }
    : projected;
  return {
    object_id: object._id,
    kind: object.kind,
    name: object.name,
    fields: state.fields,
    generation: state.generation,
    observed_generation: state.observed_generation,
    conditions: state.conditions,
    last_event_id: state.last_event_id,
    updated_at: state.updated_at,
    revision: state.revision,
    provenance: state.provenance,
  };
}
