import type { RouteDefinition } from '../../route';

/** Every route whose capability is planned, by owning issue (docs/roadmap.md). */
export const plannedApiRoutes: RouteDefinition[] = [];
