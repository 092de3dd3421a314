import type { Repos } from '../../store';
import type { DeploymentProgressState } from '../../workflows/substrate-deployment.contract';
import type { Notify } from '../notifications/notifiable-event';

export interface DeploymentRecorderDeps {
  repos: Pick<Repos, 'substrateDeployments' | 'heavyWork'>;
  /** Tells subscribers a deployment is ready or failed. */
  notify?: Notify;
}

/**
 * Writes a view of the deployment (the workflow's, or the api's when its workflow was ended
 * from Temporal), frees its running slots once final, and tells subscribers of `ready` and
 * `failed`. Each step is idempotent (the notification's id is the deployment's and stage's).
 */
export async function recordDeploymentState(
  deps: DeploymentRecorderDeps,
  state: DeploymentProgressState,
): Promise<void> {
  const { repos } = deps;
  await repos.substrateDeployments.project(state);
  // A final stage frees the deployment's running slots (docs/governance.md); the
  // projection is written first, so a lost release is found final and reconciled.
  if (state.status !== 'running') await repos.heavyWork.releaseSlotsOf(state._id);
  if ((state.stage === 'ready' || state.stage === 'failed') && deps.notify) {
    await deps.notify({
      event: state.stage === 'ready' ? 'deployment.ready' : 'deployment.failed',
      event_id: `${state._id}:${state.stage}`,
      subject: { type: 'deployment', id: state._id },
      at: state.updated_at,
      data: {
        deployment_id: state._id,
        stage: state.stage,
        status: state.status,
        error: state.error,
        final_digest: state.final?.digest ?? null,
        workflow_id: state.workflow_id,
      },
    });
  }
}
