import { tagged, type RouteDefinition } from '../route';
import { accessRoutes } from './access';
import { adminRoutes } from './admin';
import { approverKeyRoutes } from './approver-keys';
import { artifactRoutes } from './artifacts';
import { checkpointRoutes } from './checkpoints';
import { repairRoutes } from './repairs';
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
import { principalsRoutes } from './principals';
import { runtimeWitnessRoutes } from './runtime/witnesses.routes';
import { sessionsRoutes } from './sessions';
import { substratesRoutes } from './substrates';
import { worldRoutes } from './world';

/**
 * The whole /v1 API, one table per area under its OpenAPI tag; the system routes are added
 * by the app. The platform and access-layer summaries count routes, so they are handed the
 * full table. Planned routes come tagged by their own table (`plannedRoutes`).
 */
export const apiRoutes = (catalog: () => readonly RouteDefinition[]): RouteDefinition[] => [
  ...tagged('access', accessRoutes),
  ...tagged('principals', principalsRoutes),
  ...tagged('sessions', sessionsRoutes),
  ...tagged('runtime', [
    ...runtimeRoutes,
    ...runtimeWitnessRoutes,
    ...platformRoutes(() => catalog().filter((route) => route.path.startsWith('/v1/'))),
  ]),
  ...tagged('worlds', worldRoutes),
  ...tagged('external-events', externalEventsRoutes),
  ...tagged('external-actions', externalActionsRoutes),
  ...tagged('approver-keys', approverKeyRoutes),
  ...tagged('substrates', substratesRoutes),
  ...tagged('artifacts', artifactRoutes),
  ...tagged('continuous-ops', checkpointRoutes),
  ...tagged('repair', repairRoutes),
  ...tagged('shared-contexts', sharedContextRoutes),
  ...tagged('intentionality', intentionalityRoutes),
  ...tagged('membrane', membraneRoutes),
  ...tagged('assays', assayRoutes),
  ...tagged('proofs', proofRoutes),
  ...tagged('dossiers', dossierRoutes),
  ...tagged('scenarios', scenarioRoutes),
  ...tagged('admin', adminRoutes(catalog)),
  ...plannedApiRoutes,
];
