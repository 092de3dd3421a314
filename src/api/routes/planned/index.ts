import type { RouteDefinition } from '../../route';
import { checkpointAndRepairRoutes } from './checkpoints-and-repair';
import { researchRoutes } from './research';
import { witnessRoutes } from './witnesses';

/** Every route whose capability is planned, by owning issue (docs/roadmap.md). */
export const plannedApiRoutes: RouteDefinition[] = [
  ...checkpointAndRepairRoutes,
  ...witnessRoutes,
  ...researchRoutes,
];
