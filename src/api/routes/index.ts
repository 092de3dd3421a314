import type { RouteDefinition } from '../route';
import { accessRoutes } from './access';
import { adminRoutes } from './admin';
import { artifactRoutes } from './artifacts';
import { continuousOpsRoutes } from './continuous-ops';
import { repairRoutes } from './repair';
import { sharedContextRoutes } from './shared-contexts';
import { intentionalityRoutes } from './intentionality';
import { membraneRoutes } from './membrane';
import { assayRoutes } from './assays';
import { proofRoutes } from './proofs';
import { dossierRoutes } from './dossiers';
import { scenarioRoutes } from './scenarios';
import { externalActionsRoutes } from './external-actions';
import { externalEventsRoutes } from './external-events';
import { plannedApiRoutes } from './planned';
import { platformRoutes, runtimeRoutes } from './runtime';
import { runtimeWitnessRoutes } from './runtime/witnesses.routes';
import { sessionsRoutes } from './sessions';
import { substratesRoutes } from './substrates';
import { worldsRoutes } from './worlds';

/**
 * The whole /v1 API, one table per area; the system routes are added by the app. The
 * platform and access-layer summaries count routes, so they are handed the full table.
 */
export const apiRoutes = (catalog: () => readonly RouteDefinition[]): RouteDefinition[] => [
  ...accessRoutes,
  ...sessionsRoutes,
  ...runtimeRoutes,
  ...runtimeWitnessRoutes,
  ...platformRoutes(() => catalog().filter((route) => route.path.startsWith('/v1/'))),
  ...worldsRoutes,
  ...externalEventsRoutes,
  ...externalActionsRoutes,
  ...substratesRoutes,
  ...artifactRoutes,
  ...continuousOpsRoutes,
  ...repairRoutes,
  ...sharedContextRoutes,
  ...intentionalityRoutes,
  ...membraneRoutes,
  ...assayRoutes,
  ...proofRoutes,
  ...dossierRoutes,
  ...scenarioRoutes,
  ...adminRoutes(catalog),
  ...plannedApiRoutes,
];
