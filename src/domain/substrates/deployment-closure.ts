import { closureText, type WorkflowClosure } from '../workflow-closure';
import { recordDeploymentState, type DeploymentRecorderDeps } from './record-deployment';

/**
 * A deployment whose workflow was ended from Temporal while it ran: `failed` (stage and
 * status), its `error` naming what Temporal recorded, its slots freed and `deployment.failed`
 * sent, as the workflow records a failure of its own. A deployment already final (a
 * cancellation the workflow recorded itself as `cancelled`) is left as it is.
 */
export async function failDeploymentAfterClosure(
  deps: DeploymentRecorderDeps,
  deploymentId: string,
  closure: WorkflowClosure,
): Promise<'recorded' | 'already_final' | 'unknown_record'> {
  const record = await deps.repos.substrateDeployments.findById(deploymentId);
  if (!record) return 'unknown_record';
  if (record.status !== 'running') return 'already_final';
  const { spec: _spec, ...view } = record;
  await recordDeploymentState(deps, {
    ...view,
    stage: 'failed',
    status: 'failed',
    error: closureText(closure),
    stage_timestamps: { ...record.stage_timestamps, failed: closure.closed_at },
    updated_at: closure.closed_at,
  });
  return 'recorded';
}
