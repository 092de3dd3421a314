import type { RouteDefinition } from '../route';
import { accessRoutes } from './access.routes';
import { adminControlPlaneRoutes } from './admin-control-plane.routes';
import { adminOpsRoutes } from './admin-ops.routes';
import { artifactRoutes } from './artifacts';
import { externalActionsRoutes } from './external-actions';
import { externalEventsRoutes } from './external-events';
import { plannedApiRoutes } from './planned';
import { platformRoutes, runtimeRoutes } from './runtime';
import { sessionsRoutes } from './sessions';
import { substratesRoutes } from './substrates';
import { worldsRoutes } from './worlds';

/** The whole /v1 API, one table per area; the system routes are added by the app. */
export const apiRoutes: RouteDefinition[] = [
  ...accessRoutes,
  ...sessionsRoutes,
  ...runtimeRoutes,
  ...platformRoutes(() => apiRoutes),
  ...worldsRoutes,
  ...externalEventsRoutes,
  ...externalActionsRoutes,
  ...substratesRoutes,
  ...artifactRoutes,
  ...adminControlPlaneRoutes,
  ...adminOpsRoutes,
  ...plannedApiRoutes,
];
