/**
 * External events: the vocabulary, the schemas of ingest bodies and queries, and the views of
 * ingested events and their reconciliation (DESIGN.md section 5). Request types are derived
 * from the schemas.
 */
import { Type, type Static } from '@sinclair/typebox';
import {
  arrayOf,
  choice,
  closedObject,
  contextRef,
  count,
  dateTime,
  flag,
  freeObject,
  idRef,
  nullable,
  pagedQuery,
  patterned,
  prefixedId,
  text,
  view,
} from '../../lib/schema';

/** Pattern of `source_family` (DESIGN.md section 5). */
export const SOURCE_FAMILY_PATTERN = '^[a-z][a-z0-9_.-]{0,63}$';
/** Pattern of a `world_object_ref`: an object id, or any path-safe handle (then `unmatched`). */
export const WORLD_OBJECT_REF_PATTERN = '^[A-Za-z0-9_.:-]{1,128}$';
/** Most events in one batch. */
export const MAX_BATCH_EVENTS = 500;

/**
 * Schema of one external event. The batch route validates each item against it on its own
 * (so one bad item does not sink the others); the 64 KiB payload bound is checked in code.
 */
export const externalEventSchema = closedObject(
  {
    source_family: patterned(
      'Free-text source family, e.g. `github`, `erp.orders`.',
      SOURCE_FAMILY_PATTERN,
      64,
    ),
    source_event_id: text(
      'Id of the event at its source; with `source_family` the dedup key.',
      256,
    ),
    event_type: patterned(
      'Event type, e.g. `deployment.status_changed`.',
      '^[A-Za-z][A-Za-z0-9_.:-]{0,127}$',
      128,
    ),
    occurred_at: dateTime('When the event happened at its source (ISO 8601).'),
    world_object_ref: patterned(
      'World object the event is about (`obj_...`); an unknown ref reconciles as `unmatched`.',
      WORLD_OBJECT_REF_PATTERN,
      128,
    ),
    shared_context_id: contextRef('Shared context the event belongs to.'),
    payload: freeObject('Event payload (at most 64 KiB serialized).'),
  },
  ['source_family', 'source_event_id', 'event_type', 'occurred_at', 'payload'],
  'One inbound external event.',
);

/** Body of `POST /v1/external-events/ingest` (and one item of a batch). */
export type ExternalEventRequest = Static<typeof externalEventSchema>;

/** Body of `POST /v1/external-events/ingest-batch`; items are validated one by one. */
export const externalEventBatchBody = closedObject(
  {
    events: arrayOf(
      Type.Unknown({
        type: 'object',
        description:
          'An ExternalEventRequest. Each item is validated on its own; an invalid one is reported in its result, not as a 422 of the batch.',
      }),
      'Events to ingest, in order.',
      { minItems: 1, maxItems: MAX_BATCH_EVENTS },
    ),
  },
  ['events'],
);
export type ExternalEventBatchRequest = Static<typeof externalEventBatchBody>;

/** Query of `GET /v1/external-events/history`. */
export const eventHistoryQuery = pagedQuery({
  source_family: patterned('Only events of this source family.', SOURCE_FAMILY_PATTERN, 64),
  world_object_ref: patterned(
    'Only events about this world object.',
    WORLD_OBJECT_REF_PATTERN,
    128,
  ),
});
export type EventHistoryQuery = Static<typeof eventHistoryQuery>;

/** A Kubernetes-style condition on a reconciled object. */
export const conditionView = view(
  {
    type: text('Condition type, e.g. `Reconciled`.'),
    status: choice(['True', 'False', 'Unknown'], 'Condition status.'),
    reason: text('Machine-readable CamelCase reason.'),
    message: text('Human-readable explanation.', 1024, 0),
    last_transition_time: dateTime('When the status last changed.'),
  },
  ['type', 'status', 'last_transition_time'],
  'A Kubernetes-style condition.',
);

/** Reconciled external state of one world object. */
export const externalStateView = view(
  {
    object_id: idRef('obj', 'World object id.'),
    fields: freeObject('Merged external fields (newest `occurred_at` wins per field).'),
    generation: count('Bumped by every applied event.'),
    observed_generation: count('Generation the reconciler has fully processed.'),
    conditions: arrayOf(conditionView, 'Current conditions.', { maxItems: 64 }),
    last_event_id: nullable(idRef('evt', 'Newest applied event.')),
    updated_at: dateTime('When the external state last changed.'),
  },
  ['object_id', 'fields', 'generation', 'observed_generation', 'conditions'],
  'Reconciled external state of one world object.',
);

/** Reconciliation outcomes of an ingested event. */
export const RECONCILIATION_OUTCOMES = ['applied', 'stale', 'unmatched', 'conflict'] as const;

/** The reconciliation output of one ingested event. */
export const reconciliationView = view(
  {
    event_id: idRef('evt', 'Ingested event id.'),
    reconciliation_id: idRef('rec', 'Reconciliation record id.'),
    outcome: choice(RECONCILIATION_OUTCOMES, 'What reconciliation did with the event.'),
    world_object_ref: nullable(text('World object the event named.', 128)),
    shared_context_id: nullable(contextRef('Shared context the event named.')),
    applied_fields: arrayOf(text('Field name.', 128), 'Fields merged into the object.', {
      maxItems: 256,
    }),
    reason: nullable(text('Why the event was stale, unmatched or in conflict.', 1024)),
    generation: nullable(count('Object generation after the event.')),
    reconciled_at: dateTime('When the event was reconciled.'),
  },
  ['event_id', 'outcome', 'reconciled_at'],
  'Reconciliation output of one ingested event.',
);

/** An ingested event. */
export const eventView = view(
  {
    event_id: prefixedId('evt', 'Ingested event id.'),
    source_family: text('Source family.', 64),
    source_event_id: text('Id at the source.', 256),
    event_type: text('Event type.', 128),
    occurred_at: dateTime('When it happened at the source.'),
    received_at: dateTime('When the service first ingested it.'),
    world_object_ref: nullable(text('World object ref.', 128)),
    shared_context_id: nullable(contextRef('Shared context.')),
    payload: freeObject('Event payload.'),
    payload_sha256: text('sha256 of the canonical payload.', 128),
    reconciliation: choice(RECONCILIATION_OUTCOMES, 'Outcome of reconciliation.'),
  },
  ['event_id', 'source_family', 'source_event_id', 'event_type', 'occurred_at', 'received_at'],
  'An ingested external event.',
);

/** An ingested event, whether it was a duplicate, and its reconciliation. */
export const ingestResultView = view(
  {
    event: eventView,
    duplicate: flag('True when `(source_family, source_event_id)` was already ingested.'),
    reconciliation: reconciliationView,
  },
  ['event', 'duplicate', 'reconciliation'],
);

/** The per-item results of a batch. */
export const batchResultView = view(
  {
    results: arrayOf(
      view(
        {
          index: count('Position of the item in `events`.'),
          status: choice(['created', 'duplicate', 'rejected'], 'Outcome of the item.'),
          event_id: nullable(prefixedId('evt', 'Event id, unless rejected.')),
          reconciliation: nullable(
            choice(RECONCILIATION_OUTCOMES, 'Reconciliation outcome, unless rejected.'),
          ),
          errors: arrayOf(
            freeObject('One validation issue (`loc`, `msg`, `type`).', 8),
            'Why the item was rejected.',
            { maxItems: 64 },
          ),
        },
        ['index', 'status'],
      ),
      'Per-item results.',
      { maxItems: MAX_BATCH_EVENTS },
    ),
    created: count('Items ingested as new events.'),
    duplicates: count('Items that repeated an ingested event.'),
    rejected: count('Items rejected.'),
  },
  ['results', 'created', 'duplicates', 'rejected'],
);
