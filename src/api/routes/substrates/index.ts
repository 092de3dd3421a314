import type { RouteDefinition } from '../../route';
import { substrateInspectionRoutes } from './inspection.routes';
import { substratePipelineRoutes } from './pipeline.routes';
import { substrateRegistryRoutes } from './registries.routes';

/** Substrates: validate, compile, deploy, observe, assay, recognize, render, registries. */
export const substratesRoutes: RouteDefinition[] = [
  ...substratePipelineRoutes,
  ...substrateInspectionRoutes,
  ...substrateRegistryRoutes,
];
