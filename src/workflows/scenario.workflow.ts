import {
  ApplicationFailure,
  proxyActivities,
  setCurrentDetails,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { ScenarioActivities } from '../activities';
import type { ScenarioName } from '../domain/scenarios/schemas';
import type { ScenarioRunRecord } from '../store/scenario-runs.repo';
import { RECORD_STEP_OPTIONS } from './activity-options';
import { OpsStatusKey, type ScenarioWorkflowInput } from './shared';

const { recordScenarioRun, reportScenario } =
  proxyActivities<ScenarioActivities>(RECORD_STEP_OPTIONS);
// Driving waits for deployments (heartbeating while it polls) and api answers.
const { driveScenario } = proxyActivities<ScenarioActivities>({
  startToCloseTimeout: '15 minutes',
  heartbeatTimeout: '2 minutes',
  retry: { initialInterval: '2 seconds', maximumInterval: '30 seconds', maximumAttempts: 3 },
});

/**
 * One scenario run (`scenario-scn_…`): drive the live system through its api, judge what
 * it observed against the known outcome, store the report. The workflow is the run
 * record's single writer; the run ends `passed`, `failed` or `errored`.
 */
export async function scenarioWorkflow(input: ScenarioWorkflowInput): Promise<ScenarioRunRecord> {
  let record: ScenarioRunRecord = { ...input.record };
  const save = async () => {
    record.seq += 1;
    record.updated_at = new Date().toISOString();
    setCurrentDetails(
      `scenario \`${record.scenario}\` run \`${record._id}\`: **${record.status}**${record.checks.length ? ` (${record.checks.filter((c) => c.passed).length}/${record.checks.length} checks held)` : ''}${record.report ? `; report \`${record.report.markdown}\`` : ''}`,
    );
    upsertSearchAttributes([{ key: OpsStatusKey, value: `scenario.${record.status}` }]);
    await recordScenarioRun(record);
  };
  try {
    record.observations = await driveScenario({
      run_id: record._id,
      scenario: record.scenario as ScenarioName,
      params: record.params,
      shared_context_id: record.shared_context_id,
      api_url: input.api_url,
    });
    // Workflow time: the same on a retry of the activity, so its report bytes are too.
    record = await reportScenario({ record, judged_at: new Date().toISOString() });
    await save();
    return record;
  } catch (error) {
    record.status = 'errored';
    record.error = error instanceof Error ? error.message : String(error);
    record.completed_at = new Date().toISOString();
    await save();
    throw ApplicationFailure.nonRetryable(`scenario run ${record._id} errored: ${record.error}`);
  }
}
