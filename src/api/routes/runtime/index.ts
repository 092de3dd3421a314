import { getContinuity } from '../../../domain/runtime/continuity.service';
import { getPlatformSummary } from '../../../domain/runtime/platform-summary.service';
import { getRuntimeStatus } from '../../../domain/runtime/runtime-status.service';
import { getRuntimeSummary } from '../../../domain/runtime/runtime-summary.service';
import * as runtimeSchemas from '../../../domain/runtime/schemas';
import { defineRoute, type RouteDefinition } from '../../route';
import { envelope, fromQuery } from '../common';

/** Runtime status, summary and continuity (the witnesses: witnesses.routes.ts). */
export const runtimeRoutes: RouteDefinition[] = [
  defineRoute({
    operationId: 'runtime.status',
    method: 'GET',
    path: '/v1/runtime/status',
    family: 'runtime_basic',
    summary: 'continuity and status',
    description:
      "The runtime's state, identity (runtime id and identity digest, stable for the life of the database) and this api instance's version and uptime.",
    responses: {
      200: { description: 'Runtime status.', schema: envelope(runtimeSchemas.runtimeStatusView) },
    },
    handler: async (_req, deps) => ({ payload: await getRuntimeStatus(deps) }),
  }),

  defineRoute({
    operationId: 'runtime.continuity',
    method: 'GET',
    path: '/v1/runtime/continuity',
    family: 'runtime_basic',
    summary: 'continuity witness report',
    description:
      'Returns the identity lineage of the runtime across sessions and checkpoints: a hash chain of one link per session rooted in the runtime identity digest, its newest links verified, the session counts from its head, optionally focused on one session (an unknown one is 404). Reads only; see docs/sessions.md.',
    request: { query: runtimeSchemas.runtimeSessionQuery },
    responses: {
      404: { description: 'No such session.' },
      200: {
        description: 'The continuity report.',
        schema: envelope(runtimeSchemas.continuityView),
      },
    },
    handler: fromQuery(getContinuity),
  }),

  defineRoute({
    operationId: 'runtime.summary',
    method: 'GET',
    path: '/v1/runtime/summary',
    family: 'runtime_basic',
    summary: 'build-safe runtime summary',
    description:
      'Returns a short, build-safe summary of the runtime (state and a one-paragraph summary, with the facts it states); with `session_id` it focuses on that session (an unknown one is 404). Not paginated; creates nothing.',
    request: { query: runtimeSchemas.runtimeSessionQuery },
    responses: {
      404: { description: 'No such session (`session_id`).' },
      200: {
        description: 'The runtime summary.',
        schema: envelope(runtimeSchemas.runtimeSummaryView),
      },
    },
    handler: fromQuery(getRuntimeSummary),
  }),
];

/**
 * `GET /v1/platform/summary`, which counts the routes of every public family: it is given
 * the route table to count (the table includes it), read when a request comes.
 */
export const platformRoutes = (routes: () => readonly RouteDefinition[]): RouteDefinition[] => [
  defineRoute({
    operationId: 'platform.summary',
    method: 'GET',
    path: '/v1/platform/summary',
    family: 'runtime_basic',
    summary: 'build-safe platform summary',
    description:
      'Returns a build-safe description of the platform: API version, the route families with their exposure, and headline counts of the durable records.',
    responses: {
      200: {
        description: 'The platform summary.',
        schema: envelope(runtimeSchemas.platformSummaryView),
      },
    },
    handler: async (_req, deps) => ({ payload: await getPlatformSummary(deps, routes()) }),
  }),
];
