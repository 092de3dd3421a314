import type { RouteDefinition } from '../../route';
import { researchRoutes } from './research';

/** Every route whose capability is planned, by owning issue (docs/roadmap.md). */
export const plannedApiRoutes: RouteDefinition[] = [...researchRoutes];
