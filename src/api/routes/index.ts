import type { RouteDefinition } from '../route';
import { accessRoutes } from './access.routes';
import { adminControlPlaneRoutes } from './admin-control-plane.routes';
import { adminOpsRoutes } from './admin-ops.routes';
import { continuousOpsRoutes } from './continuous-ops.routes';
import { externalActionsRoutes } from './external-actions';
import { externalEventsRoutes } from './external-events';
import { intentionalityRoutes } from './intentionality.routes';
import { membraneRoutes } from './membrane.routes';
import { repairRoutes } from './repair.routes';
import { researchRoutes } from './research.routes';
import { runtimeStatusRoutes } from './runtime-status.routes';
import { runtimeRoutes } from './runtime.routes';
import { sessionsRoutes } from './sessions';
import { sharedContextsRoutes } from './shared-contexts.routes';
import { substratesRoutes } from './substrates';
import { worldsRoutes } from './worlds';

/** The whole /v1 API, one table per area; the system routes are added by the app. */
export const apiRoutes: RouteDefinition[] = [
  ...accessRoutes,
  ...sessionsRoutes,
  ...runtimeStatusRoutes,
  ...runtimeRoutes,
  ...intentionalityRoutes,
  ...worldsRoutes,
  ...sharedContextsRoutes,
  ...repairRoutes,
  ...externalEventsRoutes,
  ...externalActionsRoutes,
  ...substratesRoutes,
  ...researchRoutes,
  ...membraneRoutes,
  ...continuousOpsRoutes,
  ...adminControlPlaneRoutes,
  ...adminOpsRoutes,
];
