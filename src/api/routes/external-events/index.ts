import * as eventsService from '../../../domain/external-events/external-events.service';
import * as eventsSchemas from '../../../domain/external-events/schemas';
import { pathParams, prefixedId } from '../../../lib/schema';
import { defineRoute, type RouteDefinition } from '../../route';
import { envelope, fromBody, fromQuery, handOn, page } from '../common';

const eventParams = pathParams({ event_id: prefixedId('evt', 'Ingested event id.') });

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
    request: { query: eventsSchemas.eventHistoryQuery },
    responses: {
      200: {
        description: 'A page of ingress records.',
        schema: page(eventsSchemas.eventView, eventsSchemas.eventHistoryQuery),
      },
    },
    handler: fromQuery(eventsService.eventHistory),
  }),

  defineRoute({
    operationId: 'events.ingest',
    method: 'POST',
    path: '/v1/external-events/ingest',
    family: 'external_event_ingress',
    summary: 'ingest one event',
    description:
      'Ingests one event and reconciles it against its world object (newer `occurred_at` wins per field). A repeat of `(source_family, source_event_id)` returns the first record with `duplicate: true` (200) and never makes a second.',
    request: { body: { name: 'ExternalEventRequest', schema: eventsSchemas.externalEventSchema } },
    responses: {
      201: {
        description: 'The new event and its reconciliation.',
        schema: envelope(eventsSchemas.ingestResultView),
        links: handOn('event_id', '/payload/event/event_id', {
          path: { Get: 'events.get', Reconciliation: 'events.reconciliation' },
        }),
      },
      200: {
        description: 'A duplicate: the first record, with `duplicate: true`.',
        schema: envelope(eventsSchemas.ingestResultView),
      },
    },
    idempotent: true,
    handler: async (req, deps) => {
      const { created, payload } = await eventsService.ingestEvent(deps, req.body);
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
    request: {
      body: {
        name: 'ExternalEventBatchRequest',
        schema: eventsSchemas.externalEventBatchBody,
      },
    },
    responses: {
      200: {
        description: 'One result per item, in order.',
        schema: envelope(eventsSchemas.batchResultView),
      },
    },
    idempotent: true,
    handler: fromBody(eventsService.ingestBatch),
  }),

  defineRoute({
    operationId: 'events.reconciliation',
    method: 'GET',
    path: '/v1/external-events/reconciliation/{event_id}',
    family: 'external_reconciliation',
    summary: 'reconciliation output',
    description:
      'Returns what reconciliation did with one event (`applied`, `stale`, `unmatched` or `conflict`), which fields it merged, and the resulting generation of the object.',
    request: { params: eventParams },
    responses: {
      200: {
        description: 'The reconciliation output.',
        schema: envelope(eventsSchemas.reconciliationView),
      },
    },
    handler: async (req, deps) => ({
      payload: await eventsService.getReconciliation(deps, req.params.event_id),
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
    request: { params: eventParams },
    responses: {
      200: { description: 'The event envelope.', schema: envelope(eventsSchemas.eventView) },
    },
    handler: async (req, deps) => ({
      payload: await eventsService.getEvent(deps, req.params.event_id),
    }),
  }),
];
