import type { DomainInfra } from '../infra';
import type { AuthContext } from '../../auth/auth-context';
import { Invalid, type ValidationIssue } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { createValidatorFactory, type InputValidator } from '../../lib/validation';
import type { ScenarioRunRecord } from '../../store/scenario-runs.repo';
import { scenarioWorkflowId, type ScenarioWorkflowInput } from '../../workflows/scenario.contract';
import { resultWithin, startOpsWorkflow } from '../workflow-start';
import { workflowUrlOf, type LinkDeps } from '../workflow-links';
import { scenarioStartText } from './scenario-text';
import { SCENARIOS, scenarioNamed, type ScenarioParams } from './registry';
import { MAX_CHECK_NAME, RUNS_SHOWN, type RunScenarioBody, type ScenarioName } from './schemas';

type Deps = Pick<DomainInfra, 'config' | 'metrics' | 'repos' | 'temporal'>;

/** How long `POST /v1/scenarios/run` waits for its run before answering 202. */
export const SCENARIO_WAIT_MS = 10_000;

const compile = createValidatorFactory();
const paramValidators = new Map<ScenarioName, InputValidator>(
  SCENARIOS.map((scenario) => [scenario.name, compile(scenario.params, 'body')]),
);

export function toScenarioRunView(record: ScenarioRunRecord, links: LinkDeps) {
  const { _id, seq: _seq, ...rest } = record;
  return { run_id: _id, ...rest, workflow_url: workflowUrlOf(links, record.workflow_id) };
}

/** `GET /v1/scenarios`: every scenario, its parameter schema and expectation, its newest runs. */
export async function listScenarios(deps: Pick<DomainInfra, 'config' | 'repos' | 'temporal'>) {
  const runs = await Promise.all(
    SCENARIOS.map((scenario) => deps.repos.scenarioRuns.newestOf(scenario.name, RUNS_SHOWN)),
  );
  return {
    items: SCENARIOS.map((scenario, index) => ({
      name: scenario.name,
      summary: scenario.summary,
      params: scenario.params,
      expected: scenario.expected,
      newest_runs: runs[index].map((run) => toScenarioRunView(run, deps)),
    })),
  };
}

/** The parameters checked against the scenario's schema, defaults filled in (422 naming each problem). */
function checkedParams(name: ScenarioName, params: Record<string, unknown> | undefined) {
  const value = structuredClone(params ?? {});
  const issues = [...paramValidators.get(name)!(value).issues, ...expectKeyIssues(value)];
  if (issues.length > 0) {
    throw new Invalid(
      issues.map((issue) => ({ ...issue, loc: ['body', 'params', ...issue.loc.slice(1)] })),
    );
  }
  return value as ScenarioParams;
}

/**
 * Keys of `expect` outside 1..`MAX_CHECK_NAME` characters, each at its place. Each becomes a
 * stored check's `name`, which the run's schema holds to that length. Checked here because
 * validation leaves key rules (`propertyNames`) to the layers that word them.
 */
function expectKeyIssues(params: Record<string, unknown>): ValidationIssue[] {
  const expect = params['expect'];
  if (typeof expect !== 'object' || expect === null || Array.isArray(expect)) return [];
  return Object.keys(expect)
    .filter((key) => key.length === 0 || key.length > MAX_CHECK_NAME)
    .map((key) => ({
      loc: ['body', 'expect', key],
      msg: `An expectation's name is an observation's name: 1..${MAX_CHECK_NAME} characters`,
      type: 'value_error',
    }));
}

/**
 * `POST /v1/scenarios/run`: records the run, starts its workflow (`scenario-scn_…`) under
 * the context `scenario:<run_id>`, and waits up to `SCENARIO_WAIT_MS` for its verdict.
 * The run drives the api at `SCENARIO_API_URL`, else at the address this request reached.
 */
export async function runScenario(
  deps: Deps,
  auth: AuthContext,
  body: RunScenarioBody,
  requestOrigin: string,
) {
  const definition = scenarioNamed(body.scenario);
  const params = checkedParams(definition.name, body.params);
  const now = new Date().toISOString();
  const id = newId('scn');
  const record: ScenarioRunRecord = {
    _id: id,
    scenario: definition.name,
    params,
    status: 'running',
    shared_context_id: `scenario:${id}`,
    workflow_id: scenarioWorkflowId(id),
    checks: [],
    observations: {},
    report: null,
    error: null,
    requested_by: auth.principalId,
    created_at: now,
    updated_at: now,
    completed_at: null,
    seq: 0,
  };
  await deps.repos.scenarioRuns.insert(record);
  const input: ScenarioWorkflowInput = {
    record,
    api_url: deps.config.scenarioApiUrl ?? requestOrigin,
  };
  await startOpsWorkflow(deps, {
    workflowType: 'scenarioWorkflow',
    workflowId: record.workflow_id,
    args: [input],
    opsStatus: 'scenario.running',
    sharedContextId: record.shared_context_id,
    requestedBy: auth.principalId,
    ...scenarioStartText(deps, record, definition, params, auth),
  });
  const finished = await resultWithin<ScenarioRunRecord>(
    deps,
    record.workflow_id,
    SCENARIO_WAIT_MS,
  );
  const stored = finished ?? (await deps.repos.scenarioRuns.findById(id)) ?? record;
  return { run: toScenarioRunView(stored, deps), done: stored.status !== 'running' };
}
