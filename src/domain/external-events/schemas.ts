/**
 * External events: the vocabulary, the schemas of ingest bodies and queries, and the views of
 * ingested events and their reconciliation (docs/external-events.md). Request types are derived
 * from the schemas.
 */
import { Type, type Static } from '@sinclair/typebox';
import * as schema from '../../lib/schema';
import { historyCursor } from '../../lib/cursor';

/** Largest payload, as serialized JSON (docs/external-events.md). */
export const MAX_PAYLOAD_BYTES = 64 * 1024;
/** Most top-level fields (each one is a reconciled field of the object). */
export const MAX_PAYLOAD_FIELDS = 256;
/** Longest top-level field name. */
export const MAX_FIELD_NAME = 128;
/** Deepest nesting of objects and arrays inside a payload. */
export const MAX_PAYLOAD_DEPTH = 32;

/** Pattern of `source_family` (docs/external-events.md). */
export const SOURCE_FAMILY_PATTERN = '^[a-z][a-z0-9_.-]{0,63}$';
/** Pattern of a `world_object_ref`: an object id, or any path-safe handle (then `unmatched`). */
export const WORLD_OBJECT_REF_PATTERN = '^[A-Za-z0-9_.:-]{1,128}$';
/** Most events in one batch. */
export const MAX_BATCH_EVENTS = 500;

/**
 * Schema of one external event. The batch route validates each item against it on its own
 * (so one bad item does not sink the others); the 64 KiB payload bound is checked in code.
 */
export const externalEventSchema = schema.closedObject(
  {
    source_family: schema.patterned(
      'Free-text source family, e.g. `github`, `erp.orders`.',
      SOURCE_FAMILY_PATTERN,
      64,
    ),
    source_event_id: schema.text(
      'Id of the event at its source; with `source_family` the dedup key.',
      256,
    ),
    event_type: schema.patterned(
      'Event type, e.g. `deployment.status_changed`.',
      '^[A-Za-z][A-Za-z0-9_.:-]{0,127}$',
      128,
    ),
    occurred_at: schema.dateTime('When the event happened at its source (ISO 8601).'),
    world_object_ref: schema.patterned(
      'World object the event is about (`obj_...`); an unknown ref reconciles as `unmatched`.',
      WORLD_OBJECT_REF_PATTERN,
      128,
    ),
    shared_context_id: schema.contextRef('Shared context the event belongs to.'),
    payload: schema.storedObject(
      `Event payload (at most 64 KiB serialized, ${MAX_PAYLOAD_DEPTH} levels deep); each top-level field is a reconciled field of the object.`,
      MAX_PAYLOAD_FIELDS,
      { min: 1, max: MAX_FIELD_NAME },
    ),
  },
  ['source_family', 'source_event_id', 'event_type', 'occurred_at', 'payload'],
  'One inbound external event.',
);

/** Body of `POST /v1/external-events/ingest` (and one item of a batch). */
export type ExternalEventRequest = Static<typeof externalEventSchema>;

/** Body of `POST /v1/external-events/ingest-batch`; items are validated one by one. */
export const externalEventBatchBody = schema.closedObject(
  {
    events: schema.arrayOf(
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
export const eventHistoryQuery = schema.pagedQuery(historyCursor.schema, {
  source_family: schema.patterned('Only events of this source family.', SOURCE_FAMILY_PATTERN, 64),
  world_object_ref: schema.patterned(
    'Only events about this world object.',
    WORLD_OBJECT_REF_PATTERN,
    128,
  ),
});
export type EventHistoryQuery = Static<typeof eventHistoryQuery>;

/** A Kubernetes-style condition on a reconciled object. */
export const conditionView = schema.view(
  {
    type: schema.text('Condition type, e.g. `Reconciled`.'),
    status: schema.choice(['True', 'False', 'Unknown'], 'Condition status.'),
    reason: schema.text('Machine-readable CamelCase reason.'),
    message: schema.text('Human-readable explanation.', 1024, 0),
    last_transition_time: schema.dateTime('When the status last changed.'),
  },
  ['type', 'status', 'last_transition_time'],
  'A Kubernetes-style condition.',
);

/** Reconciled external state of one world object. */
export const externalStateView = schema.view(
  {
    object_id: schema.idRef('obj', 'World object id.'),
    fields: schema.freeObject('Merged external fields (newest `occurred_at` wins per field).'),
    generation: schema.count('Bumped by every applied event.'),
    observed_generation: schema.count('Generation the reconciler has fully processed.'),
    conditions: schema.arrayOf(conditionView, 'Current conditions.', { maxItems: 64 }),
    last_event_id: schema.nullable(schema.idRef('evt', 'Newest applied event.')),
    updated_at: schema.dateTime('When the external state last changed.'),
  },
  ['object_id', 'fields', 'generation', 'observed_generation', 'conditions'],
  'Reconciled external state of one world object.',
);

/** Reconciliation outcomes of an ingested event. */
export const RECONCILIATION_OUTCOMES = ['applied', 'stale', 'unmatched', 'conflict'] as const;

/** The reconciliation output of one ingested event. */
export const reconciliationView = schema.view(
  {
    event_id: schema.idRef('evt', 'Ingested event id.'),
    reconciliation_id: schema.idRef('rec', 'Reconciliation record id.'),
    outcome: schema.choice(RECONCILIATION_OUTCOMES, 'What reconciliation did with the event.'),
    world_object_ref: schema.nullable(schema.text('World object the event named.', 128)),
    shared_context_id: schema.nullable(schema.contextRef('Shared context the event named.')),
    applied_fields: schema.arrayOf(
      schema.text('Field name.', 128),
      'Fields merged into the object.',
      {
        maxItems: 256,
      },
    ),
    reason: schema.nullable(
      schema.text('Why the event was stale, unmatched or in conflict.', 1024),
    ),
    generation: schema.nullable(schema.count('Object generation after the event.')),
    reconciled_at: schema.dateTime('When the event was reconciled.'),
  },
  ['event_id', 'outcome', 'reconciled_at'],
  'Reconciliation output of one ingested event.',
);

/** An ingested event. */
export const eventView = schema.view(
  {
    event_id: schema.prefixedId('evt', 'Ingested event id.'),
    source_family: schema.text('Source family.', 64),
    source_event_id: schema.text('Id at the source.', 256),
    event_type: schema.text('Event type.', 128),
    occurred_at: schema.dateTime('When it happened at the source.'),
    received_at: schema.dateTime('When the service first ingested it.'),
    world_object_ref: schema.nullable(schema.text('World object ref.', 128)),
    shared_context_id: schema.nullable(schema.contextRef('Shared context.')),
    payload: schema.freeObject('Event payload.'),
    payload_sha256: schema.text('sha256 of the canonical payload.', 128),
    reconciliation: schema.choice(RECONCILIATION_OUTCOMES, 'Outcome of reconciliation.'),
  },
  ['event_id', 'source_family', 'source_event_id', 'event_type', 'occurred_at', 'received_at'],
  'An ingested external event.',
);

/** An ingested event, whether it was a duplicate, and its reconciliation. */
export const ingestResultView = schema.view(
  {
    event: eventView,
    duplicate: schema.flag('True when `(source_family, source_event_id)` was already ingested.'),
    reconciliation: reconciliationView,
  },
  ['event', 'duplicate', 'reconciliation'],
);

/** The per-item results of a batch. */
export const batchResultView = schema.view(
  {
    results: schema.arrayOf(
      schema.view(
        {
          index: schema.count('Position of the item in `events`.'),
          status: schema.choice(['created', 'duplicate', 'rejected'], 'Outcome of the item.'),
          event_id: schema.nullable(schema.prefixedId('evt', 'Event id, unless rejected.')),
          reconciliation: schema.nullable(
            schema.choice(RECONCILIATION_OUTCOMES, 'Reconciliation outcome, unless rejected.'),
          ),
          errors: schema.arrayOf(
            schema.freeObject('One validation issue (`loc`, `msg`, `type`).', 8),
            'Why the item was rejected.',
            { maxItems: 64 },
          ),
        },
        ['index', 'status'],
      ),
      'Per-item results.',
      { maxItems: MAX_BATCH_EVENTS },
    ),
    created: schema.count('Items ingested as new events.'),
    duplicates: schema.count('Items that repeated an ingested event.'),
    rejected: schema.count('Items rejected.'),
  },
  ['results', 'created', 'duplicates', 'rejected'],
);
