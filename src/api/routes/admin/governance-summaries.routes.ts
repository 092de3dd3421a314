import * as summariesService from '../../../domain/governance/summaries.service';
import * as governanceViews from '../../../domain/governance/view-schemas';
import { defineRoute, type RouteDefinition } from '../../route';
import { envelope } from '../common';

/**
 * The access-layer and entitlement summaries. The access-layer summary counts the routes of
 * every family, so it is handed the whole route table (which includes it), read per request.
 */
export const summaryRoutes = (routes: () => readonly RouteDefinition[]): RouteDefinition[] => [
  defineRoute({
    operationId: 'admin.accessLayers',
    method: 'GET',
    path: '/v1/admin/access-layers',
    family: 'admin_control_plane',
    summary: 'access-layer governance summary',
    description:
      'Returns the access layers with the route families each opens (planned families included), and how many active keys hold each layer.',
    responses: {
      200: {
        description: 'The access-layer summary.',
        schema: envelope(governanceViews.accessLayerSummaryView),
      },
    },
    handler: async (_req, deps) => ({
      payload: await summariesService.accessLayerSummary(deps, routes()),
    }),
  }),

  defineRoute({
    operationId: 'admin.entitlements',
    method: 'GET',
    path: '/v1/admin/entitlements',
    family: 'admin_control_plane',
    summary: 'entitlement classes and usage posture',
    description:
      'Returns each entitlement class with its default limits, the active class-scoped quota policies that override them and how many keys hold it, by status.',
    responses: {
      200: {
        description: 'The entitlement classes.',
        schema: envelope(governanceViews.entitlementSummaryView),
      },
    },
    handler: async (_req, deps) => ({ payload: await summariesService.entitlementSummary(deps) }),
  }),
];
