import * as schema from '../../../lib/schema';
import type { PlannedRow } from './table';
import { plannedRoutes } from './table';

const dossier = (depth: 'core' | 'full', summary: string): PlannedRow => ({
  operationId: `dossiers.${depth}`,
  method: 'POST',
  path: `/v1/dossiers/${depth}`,
  family: 'dossiers',
  summary,
  capability: 'Dossiers',
  body: {
    name: 'DossierRequest',
    schema: schema.closedObject(
      {
        subject: schema.closedObject(
          {
            kind: schema.choice(
              ['action', 'deployment', 'context', 'object', 'session'],
              'Subject kind.',
            ),
            id: schema.text('Subject id (a record id, or the context id).', 140),
          },
          ['kind', 'id'],
        ),
      },
      ['subject'],
    ),
  },
});

/** Scenarios and dossiers (DESIGN.md section 8): issue #14. */
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
  dossier('core', 'build core dossier'),
  dossier('full', 'build full dossier'),
]);
