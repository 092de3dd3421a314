import { defineRoute, type JsonSchema, type RouteDefinition } from '../route';
import { contextId, envelope, notImplemented, pathParams } from './common';
import {
  arrayOf,
  choice,
  contextRef,
  count,
  dateTime,
  decimal,
  externalStateView,
  freeObject,
  nullable,
  reconciliationView,
  text,
  view,
  type NoQuery,
} from './schemas';

const TAGS = ['shared-contexts'];

type ContextParams = { context_id: string };

const contextParams = pathParams({ context_id: contextId });

/** A record of the context, as the witnesses cite it. */
const citationView = view(
  {
    ref: text('Record id (session, task, action, event...).', 128),
    kind: text('Record kind.', 64),
    at: dateTime('When the record was made.'),
  },
  ['ref', 'kind'],
);

/** The envelope of a shared-context view: its payload plus the fields every view carries. */
const contextView = (payload: Record<string, JsonSchema>, required: string[]): JsonSchema =>
  envelope(
    view(
      {
        context_id: contextRef('Shared-context id.'),
        ...payload,
        computed_at: dateTime('When the view was computed.'),
      },
      ['context_id', ...required, 'computed_at'],
    ),
  );

/**
 * Shared-context views. A context exists once any record names it; every view is computed
 * from the records that carry its `context_id`. An id no record names is 404.
 */
export const sharedContextsRoutes: RouteDefinition[] = [
  defineRoute({
    operationId: 'sharedContexts.get',
    method: 'GET',
    path: '/v1/shared-contexts/{context_id}',
    family: 'shared_contexts',
    summary: 'inspect shared context',
    description:
      'Returns a shared context: how many sessions, tasks, actions and events name it, and when it was first and last named.',
    tags: TAGS,
    request: { params: contextParams },
    responses: {
      200: {
        description: 'The shared context.',
        schema: contextView(
          {
            counts: view(
              {
                sessions: count('Sessions in the context.'),
                tasks: count('World tasks in the context.'),
                actions: count('External actions in the context.'),
                events: count('External events in the context.'),
              },
              [],
              'Records that name the context.',
            ),
            first_seen_at: dateTime('First record naming the context.'),
            last_seen_at: dateTime('Newest record naming the context.'),
          },
          ['counts', 'first_seen_at', 'last_seen_at'],
        ),
      },
    },
    handler: notImplemented('Shared-context inspection'),
  }),

  defineRoute({
    operationId: 'sharedContexts.aboutness',
    method: 'GET',
    path: '/v1/shared-contexts/{context_id}/aboutness',
    family: 'shared_contexts_witness',
    summary: 'shared aboutness witness',
    description:
      'Returns what the records of the context are about: the world objects and handles they refer to, weighted by how often.',
    tags: TAGS,
    request: { params: contextParams },
    responses: {
      200: {
        description: 'The shared aboutness witness.',
        schema: contextView(
          {
            about: arrayOf(
              view(
                {
                  ref: text('Referenced handle (object, task, action...).', 128),
                  kind: text('Kind of referent.', 64),
                  weight: decimal('Share of the references, 0..1.', 0, 1),
                  references: count('Records referring to it.'),
                },
                ['ref', 'kind', 'references'],
              ),
              'Referents, heaviest first.',
              { maxItems: 500 },
            ),
          },
          ['about'],
        ),
      },
    },
    handler: notImplemented('The shared aboutness witness'),
  }),

  defineRoute({
    operationId: 'sharedContexts.commitments',
    method: 'GET',
    path: '/v1/shared-contexts/{context_id}/commitments',
    family: 'shared_contexts_witness',
    summary: 'shared commitments witness',
    description:
      'Lists the commitments of the context: its open and in-progress tasks and its actions awaiting approval or execution, with who made them.',
    tags: TAGS,
    request: { params: contextParams },
    responses: {
      200: {
        description: 'The shared commitments witness.',
        schema: contextView(
          {
            commitments: arrayOf(
              view(
                {
                  ref: text('Task or action id.', 64),
                  kind: choice(['task', 'action'], 'What carries the commitment.'),
                  state: text('Task state or action status.', 64),
                  committed_by: nullable(text('Principal that made it, when known.', 64)),
                  since: dateTime('When it was made.'),
                },
                ['ref', 'kind', 'state'],
              ),
              'Open commitments, oldest first.',
              { maxItems: 500 },
            ),
            fulfilled: count('Commitments fulfilled (tasks done, actions executed).'),
            broken: count('Commitments broken (tasks cancelled, actions failed or expired).'),
          },
          ['commitments'],
        ),
      },
    },
    handler: notImplemented('The shared commitments witness'),
  }),

  defineRoute({
    operationId: 'sharedContexts.disagreement',
    method: 'GET',
    path: '/v1/shared-contexts/{context_id}/disagreement',
    family: 'shared_contexts_witness',
    summary: 'shared disagreement witness',
    description:
      'Lists where the records of the context disagree: rejected actions, reconciliation conflicts and tasks moved back and forth, with a disagreement score.',
    tags: TAGS,
    request: { params: contextParams },
    responses: {
      200: {
        description: 'The shared disagreement witness.',
        schema: contextView(
          {
            score: decimal('Disagreement, 0 (none) to 1.', 0, 1),
            items: arrayOf(
              view(
                {
                  kind: text('Kind, e.g. `action.rejected`, `reconciliation.conflict`.', 64),
                  refs: arrayOf(text('Record id.', 128), 'Records that disagree.', {
                    maxItems: 16,
                  }),
                  detail: text('What the disagreement is.', 1024),
                  at: dateTime('When it arose.'),
                },
                ['kind', 'refs'],
              ),
              'Disagreements, newest first.',
              { maxItems: 500 },
            ),
          },
          ['score', 'items'],
        ),
      },
    },
    handler: notImplemented('The shared disagreement witness'),
  }),

  defineRoute({
    operationId: 'sharedContexts.evidence',
    method: 'GET',
    path: '/v1/shared-contexts/{context_id}/evidence',
    family: 'shared_contexts_witness',
    summary: 'shared evidence witness',
    description:
      'Lists the evidence the context rests on: ingested events, dry-run plans and executions, each with its digest so it can be checked.',
    tags: TAGS,
    request: { params: contextParams },
    responses: {
      200: {
        description: 'The shared evidence witness.',
        schema: contextView(
          {
            evidence: arrayOf(
              view(
                {
                  ...(citationView.properties as Record<string, JsonSchema>),
                  digest: text('sha256 of the record.', 128),
                  supports: arrayOf(
                    text('Commitment or object it supports.', 128),
                    'What it backs.',
                    {
                      maxItems: 32,
                    },
                  ),
                },
                ['ref', 'kind', 'digest'],
              ),
              'Evidence items, newest first.',
              { maxItems: 500 },
            ),
          },
          ['evidence'],
        ),
      },
    },
    handler: notImplemented('The shared evidence witness'),
  }),

  defineRoute({
    operationId: 'sharedContexts.externalReconciliation',
    method: 'GET',
    path: '/v1/shared-contexts/{context_id}/external-reconciliation',
    family: 'external_reconciliation',
    summary: 'shared-context external reconciliations',
    description:
      'Lists the reconciliation outputs of the events ingested for the context and the resulting external state of the objects they reached.',
    tags: TAGS,
    request: { params: contextParams },
    responses: {
      200: {
        description: 'The external reconciliations of the context.',
        schema: contextView(
          {
            reconciliations: arrayOf(reconciliationView, 'Reconciliations, newest first.', {
              maxItems: 500,
            }),
            objects: arrayOf(externalStateView, 'External state of the objects reached.', {
              maxItems: 500,
            }),
          },
          ['reconciliations', 'objects'],
        ),
      },
    },
    handler: notImplemented('Shared-context external reconciliation'),
  }),

  defineRoute({
    operationId: 'sharedContexts.workflowSummary',
    method: 'GET',
    path: '/v1/shared-contexts/{context_id}/workflow-summary',
    family: 'shared_contexts',
    summary: 'shared workflow summary',
    description:
      'Summarises the workflows of the context: tasks by state, actions by status and substrate or repair runs in flight.',
    tags: TAGS,
    request: { params: contextParams },
    responses: {
      200: {
        description: 'The shared workflow summary.',
        schema: contextView(
          {
            tasks: freeObject('Task counts by state.', 16),
            actions: freeObject('Action counts by status.', 16),
            in_flight: arrayOf(citationView, 'Workflows still running.', { maxItems: 500 }),
            summary: text('Human-readable summary.', 4096),
          },
          ['tasks', 'actions', 'summary'],
        ),
      },
    },
    handler: notImplemented('The shared workflow summary'),
  }),
];
