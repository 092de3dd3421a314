import * as schema from '../../../lib/schema';
import { plannedRoutes } from './table';

/** Scenarios (DESIGN.md section 8): issue #14. */
export const researchRoutes = plannedRoutes(14, 'research', [
  {
    operationId: 'scenarios.list',
    method: 'GET',
    path: '/v1/scenarios',
    family: 'scenarios',
    summary: 'list named research scenarios',
    capability: 'Scenarios',
  },
  {
    operationId: 'scenarios.run',
    method: 'POST',
    path: '/v1/scenarios/run',
    family: 'scenarios',
    summary: 'run a named scenario',
    capability: 'Scenarios',
    body: {
      name: 'RunScenarioRequest',
      schema: schema.closedObject(
        {
          scenario: schema.handleId('Scenario name, e.g. `glider-transit`.'),
          params: schema.freeObject(
            'Scenario parameters (each scenario publishes their schema).',
            64,
          ),
        },
        ['scenario'],
      ),
    },
  },
]);
