import { Type, type TObject } from '@sinclair/typebox';
import * as schema from '../../lib/schema';
import { paramsOf, runScenarioBody, type ScenarioName } from './schemas';

/** A scenario's parameters once validated (defaults filled in). */
export type ScenarioParams = Record<string, unknown> & { expect?: Record<string, unknown> };

export interface ScenarioDefinition {
  name: ScenarioName;
  summary: string;
  /** Its parameters' JSON Schema, with defaults. */
  params: TObject;
  /** The known outcome, in words. */
  expected: string;
  /** The known outcome as observation values, for these parameters. */
  expectedValues(params: ScenarioParams): Record<string, unknown>;
}

const IPD_PLAYERS = ['tit_for_tat', 'always_defect', 'always_cooperate', 'grudger'] as const;

/**
 * The registry. Each expectation is known independently of our code: a glider crosses a
 * torus of side n in 4n generations; the R-pentomino settles at generation 1103 with 116
 * cells (Conway's Life lore, with the 6 gliders it throws still 5 cells each); the
 * iterated-dilemma totals follow from the payoffs by hand (docs/scenarios.md); the
 * approval and ingest rules are the service's own (docs/actions.md, docs/external-events.md).
 */
export const SCENARIOS: readonly ScenarioDefinition[] = [
  {
    name: 'glider-transit',
    summary:
      'Deploys a glider on a Life torus for one full crossing (4 × side generations) and observes it on the way.',
    params: paramsOf({
      side: schema.integer('Side of the square torus.', 8, 256, 32),
      laps: schema.integer('Crossings to run.', 1, 4, 1),
    }),
    expected:
      'The deployment is ready; 4 generations in, the glider has moved one cell right and one down; half way it is elsewhere with 5 cells; after 4 × side × laps generations it is back where it started, cell for cell (same state digest), still 5 cells.',
    expectedValues: (params) => ({
      status: 'ready',
      final_tick: 4 * Number(params['side']) * Number(params['laps']),
      moved_after_4_ticks: [1, 1],
      half_way_population: 5,
      half_way_elsewhere: true,
      final_population: 5,
      back_at_start: true,
    }),
  },
  {
    name: 'r-pentomino-methuselah',
    summary:
      'Deploys the R-pentomino on a Life torus wide enough that its gliders meet nothing, for 1103 generations.',
    params: paramsOf({
      side: schema.integer(
        'Side of the square torus (512 and up: its gliders do not wrap within 1103 generations).',
        512,
        1024,
        512,
      ),
    }),
    expected:
      'From 5 cells, the R-pentomino settles at generation 1103 with 116 live cells (the debris and its six gliders).',
    expectedValues: () => ({
      status: 'ready',
      initial_population: 5,
      final_tick: 1103,
      final_population: 116,
    }),
  },
  {
    name: 'approval-drill',
    summary:
      'Two internal principals: one proposes a world update, may not approve it or execute it unapproved; the other approves; it executes once.',
    params: paramsOf({
      value: Type.String({
        description: 'The `status` the update writes.',
        minLength: 1,
        maxLength: 64,
        default: 'approved-by-drill',
      }),
    }),
    expected:
      'Proposed → awaiting_approval; the proposer approving is 403; executing before approval is 409; the other principal approves (200); execute answers executed; the object is at version 2 with the new status; a second execute is 409.',
    expectedValues: (params) => ({
      proposed_status: 'awaiting_approval',
      self_approval: 403,
      execute_before_approval: 409,
      approval: 200,
      executed_status: 'executed',
      object_version: 2,
      object_status: params['value'],
      second_execute: 409,
    }),
  },
  {
    name: 'ipd-classic',
    summary: `An iterated prisoner's dilemma round robin of ${IPD_PLAYERS.join(', ')}.`,
    params: paramsOf({
      turns: schema.integer('Turns per match.', 2, 10_000, 200),
    }),
    expected:
      'With payoffs R=3, S=0, T=5, P=1 and n turns: always_defect wins with 7n + 8, tit_for_tat and grudger have 7n − 1 each, always_cooperate is last with 6n.',
    expectedValues: (params) => {
      const n = Number(params['turns']);
      return {
        totals: {
          always_cooperate: 6 * n,
          always_defect: 7 * n + 8,
          grudger: 7 * n - 1,
          tit_for_tat: 7 * n - 1,
        },
        winner: 'always_defect',
        last: 'always_cooperate',
      };
    },
  },
  {
    name: 'ingest-reconcile',
    summary:
      'Ingests one batch about an object: two events in order, an older one, a repeat of the first, and one about an unknown object.',
    params: paramsOf({}),
    expected:
      'Four events are created and one is a duplicate; the two in order are applied, the older one is stale, the repeat answers with the first one’s outcome, the unknown reference is unmatched; the object’s external state holds the newest event’s fields.',
    expectedValues: () => ({
      created: 4,
      duplicates: 1,
      rejected: 0,
      outcomes: [
        'created:applied',
        'created:applied',
        'created:stale',
        'duplicate:applied',
        'created:unmatched',
      ],
      external_state: { state: 'shipped' },
    }),
  },
];

export const scenarioNamed = (name: ScenarioName): ScenarioDefinition =>
  SCENARIOS.find((scenario) => scenario.name === name)!;

export { IPD_PLAYERS };

/**
 * Body of `POST /v1/scenarios/run` with each scenario's `params` schema stated:
 * the document shows what each scenario takes, and the 422s are the usual ones at
 * `params.<field>`.
 */
export const runScenarioRequest = schema.withRules(
  runScenarioBody,
  SCENARIOS.map((scenario) =>
    schema.shapedWhen(
      { properties: { scenario: { const: scenario.name } }, required: ['scenario'] },
      { properties: { params: scenario.params } },
      `the parameters of ${scenario.name}`,
    ),
  ),
);
