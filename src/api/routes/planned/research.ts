import * as schema from '../../../lib/schema';
import type { PlannedRow } from './table';
import { plannedRoutes } from './table';

/** Strategies of the social assays (DESIGN.md section 8; `axelrod` is the reference). */
const STRATEGIES = [
  'tit_for_tat',
  'always_defect',
  'always_cooperate',
  'grudger',
  'tit_for_two_tats',
  'suspicious_tit_for_tat',
  'alternator',
  'win_stay_lose_shift',
  'random',
] as const;
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
const payoff = (what: string) => schema.decimal(what, -1000, 1000);

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

/** Proofs, social assays, scenarios and dossiers (DESIGN.md section 8): issue #14. */
export const researchRoutes = plannedRoutes(14, 'research', [
  {
    operationId: 'assays.social.run',
    method: 'POST',
    path: '/v1/assays/social/run',
    family: 'assays',
    summary: 'run social/cultural assay',
    capability: 'Social assays',
    body: {
      name: 'RunSocialAssayRequest',
      schema: schema.closedObject(
        {
          strategies: schema.arrayOf(
            schema.choice(STRATEGIES, 'A strategy.'),
            'Strategies in the round robin.',
            {
              minItems: 2,
              maxItems: 16,
            },
          ),
          turns: schema.integer('Turns per match.', 1, 10_000),
          repetitions: schema.integer('Repetitions of the round robin.', 1, 10, 1),
          noise: schema.decimal('Chance a move is flipped.', 0, 0.5, 0),
          seed: schema.integer('Seed of `random` and of the noise.', 0, 4_294_967_295),
          payoffs: schema.view(
            {
              R: payoff('Reward.'),
              S: payoff('Sucker.'),
              T: payoff('Temptation.'),
              P: payoff('Punishment.'),
            },
            ['R', 'S', 'T', 'P'],
            'Payoff matrix (default 3, 0, 5, 1).',
          ),
        },
        ['strategies', 'turns'],
      ),
    },
  },
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
