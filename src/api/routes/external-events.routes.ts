import {
  eventHistory,
  getEvent,
  getReconciliation,
  ingestBatch,
  ingestEvent,
} from '../../domain/events/events.service';
import { defineRoute, type JsonSchema, type RouteDefinition } from '../route';
import { closedObject, envelope, page, pagedQuery, pathParams, prefixedId } from './common';
import {
  arrayOf,
  choice,
  contextRef,
  count,
  dateTime,
  flag,
  freeObject,
  nullable,
  patterned,
  reconciliationView,
  RECONCILIATION_OUTCOMES,
  text,
  view,
  type NoParams,
  type NoQuery,
  type PagedQuery,
} from './schemas';

const TAGS = ['external-events'];

/** Pattern of `source_family` (DESIGN.md section 5). */
export const SOURCE_FAMILY_PATTERN = '^[a-z][a-z0-9_.-]{0,63}$';
/** Pattern of a `world_object_ref`: an object id, or any path-safe handle (then `unmatched`). */
export const WORLD_OBJECT_REF_PATTERN = '^[A-Za-z0-9_.:-]{1,128}$';
/** Most events in one batch. */
export const MAX_BATCH_EVENTS = 500;

/** Body of `POST /v1/external-events/ingest` (and one item of a batch). */
export interface ExternalEventRequest {
  source_family: string;
  source_event_id: string;
  event_type: string;
  occurred_at: string;
  world_object_ref?: string;
  shared_context_id?: string;
  /** At most 64 KiB serialized; the service checks the size. */
  payload: Record<string, unknown>;
}

/** Body of `POST /v1/external-events/ingest-batch`; items are validated one by one. */
export interface ExternalEventBatchRequest {
  events: unknown[];
}

/** Query of `GET /v1/external-events/history`. */
export type EventHistoryQuery = PagedQuery & { source_family?: string; world_object_ref?: string };
type EventParams = { event_id: string };

/**
 * Schema of one external event. The batch route validates each item against it on its own
 * (so one bad item does not sink the others); the 64 KiB payload bound is checked in code.
 */
export const externalEventSchema: JsonSchema = closedObject(
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

const eventParams = pathParams({ event_id: prefixedId('evt', 'Ingested event id.') });

const eventView = view(
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

const ingestResultView = view(
  {
    event: eventView,
    duplicate: flag('True when `(source_family, source_event_id)` was already ingested.'),
    reconciliation: reconciliationView,
  },
  ['event', 'duplicate', 'reconciliation'],
);

/** Inbound-only, connector-neutral event ingress and reconciliation inspection. */
export const externalEventsRoutes: RouteDefinition[] = [
  defineRoute({
    operationId: 'events.history',
    method: 'GET',
    path: '/v1/external-events/history',
    family: 'external_event_ingress',
    summary: 'ingress history',
    description:
      'Lists ingested events, newest first, optionally from one source family or about one world object.',
    tags: TAGS,
    request: {
      query: pagedQuery({
        source_family: patterned('Only events of this source family.', SOURCE_FAMILY_PATTERN, 64),
        world_object_ref: patterned(
          'Only events about this world object.',
          WORLD_OBJECT_REF_PATTERN,
          128,
        ),
      }),
    },
    responses: { 200: { description: 'A page of ingress records.', schema: page(eventView) } },
    handler: async (req, deps) => ({ payload: await eventHistory(deps, req.query) }),
  }),

  defineRoute({
    operationId: 'events.ingest',
    method: 'POST',
    path: '/v1/external-events/ingest',
    family: 'external_event_ingress',
    summary: 'ingest one event',
    description:
      'Ingests one event and reconciles it against its world object (newer `occurred_at` wins per field). A repeat of `(source_family, source_event_id)` returns the first record with `duplicate: true` (200) and never makes a second.',
    tags: TAGS,
    request: { body: { name: 'ExternalEventRequest', schema: externalEventSchema } },
    responses: {
      201: {
        description: 'The new event and its reconciliation.',
        schema: envelope(ingestResultView),
      },
      200: {
        description: 'A duplicate: the first record, with `duplicate: true`.',
        schema: envelope(ingestResultView),
      },
    },
    idempotent: true,
    handler: async (req, deps) => {
      const { created, payload } = await ingestEvent(deps, req.body);
      return { status: created ? 201 : 200, payload };
    },
  }),

  defineRoute({
    operationId: 'events.ingestBatch',
    method: 'POST',
    path: '/v1/external-events/ingest-batch',
    family: 'external_event_ingress',
    summary: 'ingest a batch of events',
    description:
      'Ingests 1..500 events in order, each on its own: the answer has one result per item (created, duplicate or rejected with its validation issues), and one bad item does not sink the others.',
    tags: TAGS,
    request: {
      body: {
        name: 'ExternalEventBatchRequest',
        schema: closedObject(
          {
            events: arrayOf(
              {
                type: 'object',
                description:
                  'An ExternalEventRequest. Each item is validated on its own; an invalid one is reported in its result, not as a 422 of the batch.',
              },
              'Events to ingest, in order.',
              { minItems: 1, maxItems: MAX_BATCH_EVENTS },
            ),
          },
          ['events'],
        ),
      },
    },
    responses: {
      200: {
        description: 'One result per item, in order.',
        schema: envelope(
          view(
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
          ),
        ),
      },
    },
    idempotent: true,
    handler: async (req, deps) => ({ payload: await ingestBatch(deps, req.body) }),
  }),

  defineRoute({
    operationId: 'events.reconciliation',
    method: 'GET',
    path: '/v1/external-events/reconciliation/{event_id}',
    family: 'external_reconciliation',
    summary: 'reconciliation output',
    description:
      'Returns what reconciliation did with one event (`applied`, `stale`, `unmatched` or `conflict`), which fields it merged, and the resulting generation of the object.',
    tags: TAGS,
    request: { params: eventParams },
    responses: {
      200: { description: 'The reconciliation output.', schema: envelope(reconciliationView) },
    },
    handler: async (req, deps) => ({
      payload: await getReconciliation(deps, req.params.event_id),
    }),
  }),

  defineRoute({
    operationId: 'events.get',
    method: 'GET',
    path: '/v1/external-events/{event_id}',
    family: 'external_event_ingress',
    summary: 'event envelope',
    description:
      'Returns one ingested event: its source identity, payload and reconciliation outcome.',
    tags: TAGS,
    request: { params: eventParams },
    responses: { 200: { description: 'The event envelope.', schema: envelope(eventView) } },
    handler: async (req, deps) => ({ payload: await getEvent(deps, req.params.event_id) }),
  }),
];
