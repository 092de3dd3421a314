import { defineRoute, type JsonSchema, type RouteDefinition } from '../route';
import { closedObject, envelope, handleId, notImplemented, page, pagedQuery } from './common';
import {
  arrayOf,
  choice,
  contextRef,
  count,
  dateTime,
  decimal,
  flag,
  freeObject,
  integer,
  nullable,
  text,
  view,
  type NoParams,
  type NoQuery,
  type PagedQuery,
} from './schemas';

const TAGS = ['research'];

/** Strategies of the iterated prisoner's dilemma tournament (Axelrod-style). */
export const SOCIAL_STRATEGIES = [
  'always_cooperate',
  'always_defect',
  'tit_for_tat',
  'tit_for_two_tats',
  'suspicious_tit_for_tat',
  'generous_tit_for_tat',
  'grudger',
  'pavlov',
  'alternator',
  'random',
] as const;
export type SocialStrategy = (typeof SOCIAL_STRATEGIES)[number];

/** Bounded proof checks over the ledgers (DESIGN.md section 8). */
export const PROOF_CHECKS = [
  'ledger_hash_chain',
  'approvals_precede_execution',
  'world_history_replay',
  'no_duplicate_events',
] as const;
export type ProofCheck = (typeof PROOF_CHECKS)[number];

/** Body of `POST /v1/assays/social/run`. */
export interface RunSocialAssayRequest {
  strategies: SocialStrategy[];
  rounds: number;
  seed: number;
  noise?: number;
}

/** Body of `POST /v1/proofs/checks`. */
export interface ProofChecksRequest {
  checks?: ProofCheck[];
  max_items?: number;
}

/** Body of `POST /v1/scenarios/run`. */
export interface RunScenarioRequest {
  scenario_id: string;
  seed?: number;
}

/** Body of `POST /v1/dossiers/core` and `/full`. */
export interface DossierRequest {
  subject?: string;
  shared_context_id?: string;
}

const MAX_SEED = 4_294_967_295;

const checkResultView = view(
  {
    check: choice(PROOF_CHECKS, 'Check.'),
    passed: flag('Verdict.'),
    examined: count('Records examined.'),
    truncated: flag('True when `max_items` stopped the check early.'),
    violations: arrayOf(freeObject('One violation with the records involved.'), 'Violations.', {
      maxItems: 100,
    }),
  },
  ['check', 'passed', 'examined', 'violations'],
);

const scenarioView = view(
  {
    scenario_id: text('Scenario id.', 128),
    name: text('Display name.', 256),
    description: text('What the scenario exercises.', 4096),
    default_seed: count('Seed used when none is given.'),
    steps: count('Steps the scenario runs.'),
  },
  ['scenario_id', 'name', 'description'],
  'A named research scenario.',
);

const dossierBody = {
  name: 'DossierRequest',
  required: false,
  schema: closedObject({
    subject: text(
      'What the dossier is about: a world object, session or action id (default: the whole runtime).',
      128,
    ),
    shared_context_id: contextRef('Limit the dossier to one shared context.'),
  }),
};

const dossierView = (what: string): JsonSchema =>
  view(
    {
      dossier_id: text('Digest-derived dossier id.', 128),
      kind: choice(['core', 'full'], 'Dossier kind.'),
      subject: nullable(text('Subject.', 128)),
      shared_context_id: nullable(contextRef('Shared context.')),
      sections: arrayOf(
        view(
          {
            title: text('Section title.', 256),
            content: freeObject('Section content.'),
          },
          ['title', 'content'],
        ),
        what,
        { maxItems: 64 },
      ),
      sha256: text('sha256 of the dossier.', 64),
      artifact_path: nullable(text('Stored copy (`GET /v1/artifacts/{artifact_path}`).', 512)),
      built_at: dateTime('When it was built.'),
    },
    ['dossier_id', 'kind', 'sections', 'sha256', 'built_at'],
  );

/** Social assays, proofs, scenarios and dossiers. */
export const researchRoutes: RouteDefinition[] = [
  defineRoute({
    operationId: 'assays.social.run',
    method: 'POST',
    path: '/v1/assays/social/run',
    family: 'assays',
    summary: 'run social/cultural assay',
    description:
      "Runs a deterministic round-robin iterated prisoner's dilemma tournament (Axelrod-style) among the named strategies with the given seed; the same input gives the same result, move for move.",
    tags: TAGS,
    request: {
      body: {
        name: 'RunSocialAssayRequest',
        schema: closedObject(
          {
            strategies: arrayOf(
              choice(SOCIAL_STRATEGIES, 'Strategy name.'),
              'Strategies in the tournament (each plays every other once).',
              { minItems: 2, maxItems: 16 },
            ),
            rounds: integer('Rounds of each match.', 1, 10_000),
            seed: integer('Seed of every random choice (noise, `random`).', 0, MAX_SEED),
            noise: decimal('Chance that a move is flipped.', 0, 0.5, 0),
          },
          ['strategies', 'rounds', 'seed'],
        ),
      },
    },
    responses: {
      200: {
        description: 'The tournament result.',
        schema: envelope(
          view(
            {
              standings: arrayOf(
                view(
                  {
                    strategy: choice(SOCIAL_STRATEGIES, 'Strategy.'),
                    score: count('Total payoff.'),
                    mean_score: decimal('Mean payoff per round.', 0, 5),
                    rank: count('Rank (1 is best).'),
                  },
                  ['strategy', 'score', 'rank'],
                ),
                'Standings, best first.',
                { maxItems: 16 },
              ),
              matches: arrayOf(
                view(
                  {
                    a: choice(SOCIAL_STRATEGIES, 'First player.'),
                    b: choice(SOCIAL_STRATEGIES, 'Second player.'),
                    score_a: count('Payoff of `a`.'),
                    score_b: count('Payoff of `b`.'),
                    moves_digest: text('sha256 of the move sequence.', 64),
                  },
                  ['a', 'b', 'score_a', 'score_b'],
                ),
                'Every match.',
                { maxItems: 136 },
              ),
              payoffs: freeObject('Payoff matrix used (T, R, P, S).'),
              digest: text('sha256 of the whole result.', 64),
            },
            ['standings', 'matches', 'digest'],
          ),
        ),
      },
    },
    idempotent: true,
    handler: notImplemented('Social assays'),
  }),

  defineRoute({
    operationId: 'proofs.checks',
    method: 'POST',
    path: '/v1/proofs/checks',
    family: 'proofs',
    summary: 'run bounded proof checks',
    description:
      'Runs bounded invariant checks over the ledgers (hash chain intact, every execution preceded by valid approvals, world history replays to the current versions, no duplicate ingested event) and records the result.',
    tags: TAGS,
    request: {
      body: {
        name: 'ProofChecksRequest',
        required: false,
        schema: closedObject({
          checks: arrayOf(choice(PROOF_CHECKS, 'Check name.'), 'Checks to run (default: all).', {
            minItems: 1,
            maxItems: PROOF_CHECKS.length,
            uniqueItems: true,
          }),
          max_items: integer('Most records each check examines.', 1, 100_000, 10_000),
        }),
      },
    },
    responses: {
      200: {
        description: 'The check results.',
        schema: envelope(
          view(
            {
              passed: flag('True when every check passed.'),
              checks: arrayOf(checkResultView, 'Each check.', { maxItems: PROOF_CHECKS.length }),
              checked_at: dateTime('When the checks ran.'),
            },
            ['passed', 'checks', 'checked_at'],
          ),
        ),
      },
    },
    handler: notImplemented('Proof checks'),
  }),

  defineRoute({
    operationId: 'proofs.status',
    method: 'GET',
    path: '/v1/proofs/status',
    family: 'proofs',
    summary: 'bounded proof certification status',
    description:
      'Returns the certification status: the last result of each proof check and whether the runtime is currently certified (every check passed since the last ledger change).',
    tags: TAGS,
    responses: {
      200: {
        description: 'The certification status.',
        schema: envelope(
          view(
            {
              certified: flag('True when every check last passed and is current.'),
              checks: arrayOf(
                view(
                  {
                    check: choice(PROOF_CHECKS, 'Check.'),
                    passed: nullable(flag('Last verdict; null when never run.')),
                    checked_at: nullable(dateTime('When it last ran.')),
                    stale: flag('True when the ledgers changed since.'),
                  },
                  ['check', 'passed', 'stale'],
                ),
                'Each check.',
                { maxItems: PROOF_CHECKS.length },
              ),
            },
            ['certified', 'checks'],
          ),
        ),
      },
    },
    handler: notImplemented('Proof status'),
  }),

  defineRoute({
    operationId: 'proofs.summary',
    method: 'GET',
    path: '/v1/proofs/summary',
    family: 'proofs',
    summary: 'proof-layer summary',
    description:
      'Summarises the proof layer: the checks it knows, how many runs passed and failed, and the newest run.',
    tags: TAGS,
    responses: {
      200: {
        description: 'The proof-layer summary.',
        schema: envelope(
          view(
            {
              checks: arrayOf(choice(PROOF_CHECKS, 'Check.'), 'Known checks.', {
                maxItems: PROOF_CHECKS.length,
              }),
              runs: count('Check runs recorded.'),
              passed: count('Runs that passed.'),
              failed: count('Runs that failed.'),
              last_run_at: nullable(dateTime('Newest run.')),
              summary: text('Human-readable summary.', 4096),
            },
            ['checks', 'runs', 'passed', 'failed', 'summary'],
          ),
        ),
      },
    },
    handler: notImplemented('The proof summary'),
  }),

  defineRoute({
    operationId: 'scenarios.list',
    method: 'GET',
    path: '/v1/scenarios',
    family: 'scenarios',
    summary: 'list named research scenarios',
    description: 'Lists the named research scenarios that `POST /v1/scenarios/run` can run.',
    tags: TAGS,
    request: { query: pagedQuery() },
    responses: { 200: { description: 'A page of scenarios.', schema: page(scenarioView) } },
    handler: notImplemented('Research scenarios'),
  }),

  defineRoute({
    operationId: 'scenarios.run',
    method: 'POST',
    path: '/v1/scenarios/run',
    family: 'scenarios',
    summary: 'run a named scenario',
    description:
      'Runs a named scenario deterministically with a seed and returns its outcome; an unknown scenario is 404.',
    tags: TAGS,
    request: {
      body: {
        name: 'RunScenarioRequest',
        schema: closedObject(
          {
            scenario_id: handleId('Scenario to run (see `GET /v1/scenarios`).'),
            seed: integer('Seed (default: the scenario default).', 0, MAX_SEED),
          },
          ['scenario_id'],
        ),
      },
    },
    responses: {
      200: {
        description: 'The scenario outcome.',
        schema: envelope(
          view(
            {
              scenario_id: text('Scenario run.', 128),
              seed: count('Seed used.'),
              passed: flag('True when every expectation of the scenario held.'),
              steps: arrayOf(
                view(
                  {
                    name: text('Step.', 256),
                    passed: flag('Verdict.'),
                    detail: freeObject('What happened.'),
                  },
                  ['name', 'passed'],
                ),
                'Each step.',
                { maxItems: 1000 },
              ),
              digest: text('sha256 of the outcome.', 64),
            },
            ['scenario_id', 'seed', 'passed', 'steps', 'digest'],
          ),
        ),
      },
    },
    idempotent: true,
    handler: notImplemented('Scenario runs'),
  }),

  defineRoute({
    operationId: 'dossiers.core',
    method: 'POST',
    path: '/v1/dossiers/core',
    family: 'dossiers',
    summary: 'build core dossier',
    description:
      'Builds the core dossier of a subject (or of the runtime): identity, state, commitments and the latest witnesses, reproducibly from the durable records.',
    tags: TAGS,
    request: { body: dossierBody },
    responses: {
      200: { description: 'The core dossier.', schema: envelope(dossierView('Core sections.')) },
    },
    idempotent: true,
    handler: notImplemented('Core dossiers'),
  }),

  defineRoute({
    operationId: 'dossiers.full',
    method: 'POST',
    path: '/v1/dossiers/full',
    family: 'dossiers',
    summary: 'build full dossier',
    description:
      'Builds the full dossier: the core dossier plus history, evidence, reconciliations, repairs and proof results, stored as an artifact.',
    tags: TAGS,
    request: { body: dossierBody },
    responses: {
      200: { description: 'The full dossier.', schema: envelope(dossierView('All sections.')) },
    },
    idempotent: true,
    handler: notImplemented('Full dossiers'),
  }),
];
