/** Scenarios (docs/scenarios.md): named end-to-end runs and their records. */
import { Type, type Static, type TObject } from '@sinclair/typebox';
import * as schema from '../../lib/schema';

export const SCENARIO_NAMES = [
  'glider-transit',
  'r-pentomino-methuselah',
  'approval-drill',
  'ipd-classic',
  'ingest-reconcile',
] as const;
export type ScenarioName = (typeof SCENARIO_NAMES)[number];

export const SCENARIO_RUN_STATUSES = ['running', 'passed', 'failed', 'errored'] as const;
export type ScenarioRunStatus = (typeof SCENARIO_RUN_STATUSES)[number];

/** Runs per scenario `GET /v1/scenarios` shows. */
export const RUNS_SHOWN = 5;

/** Longest observation name: a check's `name`, so also a key of `expect`. */
export const MAX_CHECK_NAME = 128;

/**
 * Every scenario's `expect`: replaces expected values (to see the judge fail on purpose).
 * Each key becomes a stored check's `name`, so it is held to that name's 1..128 characters
 * (`expectKeyIssues`): an empty one made a run whose record broke its own schema.
 */
export const expectOverride = schema.storedObject(
  'Expected values to judge against instead of the known ones, by observation name (e.g. to check that a false expectation fails).',
  16,
  { min: 1, max: MAX_CHECK_NAME },
);

/** Body of `POST /v1/scenarios/run`; `params` is checked against the scenario's own schema. */
export const runScenarioBody = schema.closedObject(
  {
    scenario: schema.choice(SCENARIO_NAMES, 'The scenario to run.'),
    params: schema.storedObject(
      "Parameters, checked against the scenario's `params` schema (`GET /v1/scenarios`).",
      16,
    ),
  },
  ['scenario'],
);
export type RunScenarioBody = Static<typeof runScenarioBody>;

const checkView = schema.view(
  {
    name: schema.text('The observation judged.', MAX_CHECK_NAME),
    expected: Type.Unknown({ description: 'What the scenario expects.' }),
    observed: Type.Unknown({ description: 'What the run observed (null: not observed).' }),
    passed: schema.flag('Whether they are equal.'),
  },
  ['name', 'expected', 'observed', 'passed'],
);

/** One run of a scenario. */
export const scenarioRunView = schema.view(
  {
    run_id: schema.prefixedId('scn', 'Run id.'),
    scenario: schema.choice(SCENARIO_NAMES, 'The scenario.'),
    params: schema.freeObject('The parameters, defaults filled in.'),
    status: schema.choice(
      SCENARIO_RUN_STATUSES,
      '`running`; `passed` (every check held); `failed` (a check did not); `errored` (the run could not finish).',
    ),
    shared_context_id: schema.contextRef('The context its records name: `scenario:<run_id>`.'),
    workflow_id: schema.text('Temporal workflow id (`scenario-scn_…`).', 128),
    workflow_url: schema.workflowUrl,
    checks: schema.arrayOf(checkView, 'Each expected observation, judged.', { maxItems: 64 }),
    observations: schema.freeObject('What the run observed.'),
    report: schema.nullable(
      schema.view(
        {
          json: schema.text('Path of the JSON report (`scenarios/scn_…/report.json`).', 256),
          markdown: schema.text('Path of the Markdown report.', 256),
          sha256: schema.text('sha256 of the JSON report.', 64),
        },
        ['json', 'markdown', 'sha256'],
        'The report artifacts, once judged (`GET /v1/artifacts/<path>/raw`).',
      ),
    ),
    error: schema.nullable(schema.text('Why the run errored.', 2048)),
    requested_by: schema.text('Principal that started it.', 64),
    created_at: schema.dateTime('When it started.'),
    updated_at: schema.dateTime('Last change.'),
    completed_at: schema.nullable(schema.dateTime('When it was judged.')),
  },
  [
    'run_id',
    'scenario',
    'params',
    'status',
    'shared_context_id',
    'workflow_id',
    'workflow_url',
    'checks',
    'observations',
    'report',
    'error',
    'requested_by',
    'created_at',
    'updated_at',
    'completed_at',
  ],
);

/** `GET /v1/scenarios`: the registry, each scenario with its newest runs. */
export const scenarioListView = schema.view(
  {
    items: schema.arrayOf(
      schema.view(
        {
          name: schema.choice(SCENARIO_NAMES, 'Scenario name.'),
          summary: schema.text('What it exercises.', 512),
          params: schema.freeObject('JSON Schema of its parameters (with defaults).'),
          expected: schema.text('The known outcome it is judged against.', 2048),
          newest_runs: schema.arrayOf(scenarioRunView, 'Its newest runs, newest first.', {
            maxItems: RUNS_SHOWN,
          }),
        },
        ['name', 'summary', 'params', 'expected', 'newest_runs'],
      ),
      'Every scenario.',
      { maxItems: SCENARIO_NAMES.length },
    ),
  },
  ['items'],
);

/** A scenario's parameter schema: its own fields plus `expect`, closed. */
export const paramsOf = (fields: Parameters<typeof schema.closedObject>[0]): TObject =>
  schema.closedObject({ ...fields, expect: expectOverride }, []);
