import {
  ApplicationFailure,
  type ActivityOptions,
  proxyActivities,
  setCurrentDetails,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { ScenarioActivities } from '../activities';
import type { ScenarioName } from '../domain/scenarios/schemas';
import type { ScenarioRunRecord } from '../store/scenario-runs.repo';
import { RECORD_STEP_OPTIONS } from './activity-options';
import { scenarioCurrentDetails, type ScenarioStage } from './ops-details';
import type { ScenarioWorkflowInput } from './scenario.contract';
import { OpsStatusKey } from './shared.contract';

const { recordScenarioRun, reportScenario } =
  proxyActivities<ScenarioActivities>(RECORD_STEP_OPTIONS);
// Driving waits for deployments (heartbeating while it polls) and api answers.
const DRIVE_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '15 minutes',
  heartbeatTimeout: '2 minutes',
  retry: { initialInterval: '2 seconds', maximumInterval: '30 seconds', maximumAttempts: 3 },
};
const { driveScenario } = proxyActivities<ScenarioActivities>(DRIVE_OPTIONS);

/**
 * One scenario run (`scenario-scn_…`): drive the live system through its api, judge what
 * it observed against the known outcome, store the report. The workflow is the run
 * record's single writer; the run ends `passed`, `failed` or `errored`.
 */
export async function scenarioWorkflow(input: ScenarioWorkflowInput): Promise<ScenarioRunRecord> {
  let record: ScenarioRunRecord = { ...input.record };
  const show = (stage: ScenarioStage) => setCurrentDetails(scenarioCurrentDetails(record, stage));
  const save = async () => {
    record.seq += 1;
    record.updated_at = new Date().toISOString();
    show('ended');
    upsertSearchAttributes([{ key: OpsStatusKey, value: `scenario.${record.status}` }]);
    await recordScenarioRun.executeWithOptions(
      { ...RECORD_STEP_OPTIONS, summary: `record the run ${record.status}` },
      [record],
    );
  };
  try {
    show('driving');
    record.observations = await driveScenario.executeWithOptions(
      {
        ...DRIVE_OPTIONS,
        summary: `drive scenario ${record.scenario} through the api at ${input.api_url}`,
      },
      [
        {
          run_id: record._id,
          scenario: record.scenario as ScenarioName,
          params: record.params,
          shared_context_id: record.shared_context_id,
          api_url: input.api_url,
        },
      ],
    );
    show('judging');
    // Workflow time: the same on a retry of the activity, so its report bytes are too.
    record = await reportScenario.executeWithOptions(
      { ...RECORD_STEP_OPTIONS, summary: 'judge the observations, write the report' },
      [{ record, judged_at: new Date().toISOString() }],
    );
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
