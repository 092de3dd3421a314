import * as schema from '../../../lib/schema';
import type { PlannedRow } from './table';
import { plannedRoutes } from './table';

/** Invariant checks of a proof run. */
const PROOF_CHECKS = [
  'action_ledger_chain',
  'executions_approved',
  'world_history_replay',
  'event_dedup',
  'no_secrets',
  'artifacts_integrity',
  'repair_chain',
] as const;

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

/** Proofs, scenarios and dossiers (DESIGN.md section 8): issue #14. */
export const researchRoutes = plannedRoutes(14, 'research', [
  {
    operationId: 'proofs.checks',
    method: 'POST',
    path: '/v1/proofs/checks',
    family: 'proofs',
    summary: 'run bounded proof checks',
    capability: 'Proof checks',
    body: {
      name: 'ProofChecksRequest',
      required: false,
      schema: schema.closedObject({
        checks: schema.arrayOf(
          schema.choice(PROOF_CHECKS, 'A check.'),
          'Checks to run (default: all).',
          {
            minItems: 1,
            maxItems: PROOF_CHECKS.length,
            uniqueItems: true,
          },
        ),
        max_records: schema.integer('Most records a check reads.', 1, 100_000, 10_000),
      }),
    },
  },
  {
    operationId: 'proofs.status',
    method: 'GET',
    path: '/v1/proofs/status',
    family: 'proofs',
    summary: 'bounded proof certification status',
    capability: 'Proof status',
  },
  {
    operationId: 'proofs.summary',
    method: 'GET',
    path: '/v1/proofs/summary',
    family: 'proofs',
    summary: 'proof-layer summary',
    capability: 'Proof summaries',
  },
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
