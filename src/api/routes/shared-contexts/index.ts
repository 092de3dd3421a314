import type { TSchema } from '@sinclair/typebox';
import type { AppDeps } from '../../../app/deps';
import * as contexts from '../../../domain/shared-contexts/shared-contexts.service';
import * as contextViews from '../../../domain/shared-contexts/view-schemas';
import type { RouteFamily } from '../../../auth/families';
import { defineRoute, type RouteDefinition } from '../../route';
import { envelope } from '../common';

interface ContextRoute {
  operation: string;
  /** After `/v1/shared-contexts/{context_id}`. */
  path: string;
  family: RouteFamily;
  summary: string;
  description: string;
  view: TSchema;
  read: (deps: AppDeps, contextId: string) => Promise<unknown>;
}

/** One GET view of a context: 404 until some record names the context. */
const contextRoute = (spec: ContextRoute): RouteDefinition =>
  defineRoute({
    operationId: `sharedContexts.${spec.operation}`,
    method: 'GET',
    path: `/v1/shared-contexts/{context_id}${spec.path}`,
    family: spec.family,
    summary: spec.summary,
    description: `${spec.description} Reads only the records that name the context; 404 until one does. Carries the witness header (docs/witnesses.md).`,
    request: { params: contextViews.contextParams },
    responses: { 200: { description: spec.summary, schema: envelope(spec.view) } },
    handler: async (req, deps) => ({ payload: await spec.read(deps, req.params.context_id) }),
  });

/** Shared contexts and their witnesses (docs/witnesses.md). */
export const sharedContextRoutes: RouteDefinition[] = [
  contextRoute({
    operation: 'get',
    path: '',
    family: 'shared_contexts',
    summary: 'inspect shared context',
    description:
      'First and last activity, the sessions, actions, events and tasks that name it, and who took part.',
    view: contextViews.contextView,
    read: (deps, id) => contexts.getContext(deps, id),
  }),
  contextRoute({
    operation: 'aboutness',
    path: '/aboutness',
    family: 'shared_contexts_witness',
    summary: 'shared aboutness witness',
    description:
      "The world objects the context's actions, events and tasks refer to, most referred first, with the referring records.",
    view: contextViews.contextAboutnessView,
    read: (deps, id) => contexts.contextAboutness(deps, id),
  }),
  contextRoute({
    operation: 'commitments',
    path: '/commitments',
    family: 'shared_contexts_witness',
    summary: 'shared commitments witness',
    description: 'Its approved or executing actions and its open or in-progress tasks.',
    view: contextViews.contextCommitmentsView,
    read: (deps, id) => contexts.contextCommitments(deps, id),
  }),
  contextRoute({
    operation: 'disagreement',
    path: '/disagreement',
    family: 'shared_contexts_witness',
    summary: 'shared disagreement witness',
    description:
      'Rejected actions, split decisions, events reconciled as conflicts or stale, and blocked tasks.',
    view: contextViews.contextDisagreementView,
    read: (deps, id) => contexts.contextDisagreement(deps, id),
  }),
  contextRoute({
    operation: 'evidence',
    path: '/evidence',
    family: 'shared_contexts_witness',
    summary: 'shared evidence witness',
    description:
      'The hash-chained ledger entries of its actions, its events with their payload digests, and the checkpoints completed since it began.',
    view: contextViews.contextEvidenceView,
    read: (deps, id) => contexts.contextEvidence(deps, id),
  }),
  contextRoute({
    operation: 'externalReconciliation',
    path: '/external-reconciliation',
    family: 'external_reconciliation',
    summary: 'shared-context external reconciliations',
    description: 'Its external events and how each reconciled, with counts per outcome.',
    view: contextViews.contextReconciliationView,
    read: (deps, id) => contexts.contextReconciliation(deps, id),
  }),
  contextRoute({
    operation: 'workflowSummary',
    path: '/workflow-summary',
    family: 'shared_contexts',
    summary: 'shared workflow summary',
    description:
      'Its workflows from Temporal visibility (`SharedContextId`): counts by workflow type and execution status, and the newest executions with Temporal UI links.',
    view: contextViews.contextWorkflowSummaryView,
    read: (deps, id) => contexts.contextWorkflowSummary(deps, id),
  }),
];
