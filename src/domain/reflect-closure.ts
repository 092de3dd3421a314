import type { Repos } from '../store';
import type { Notify } from './notifications/notifiable-event';
import { abortAction, type AbortActionDeps } from './external-actions/abort-action';
import { failCheckpointAfterClosure } from './checkpoints/checkpoint-closure';
import { failRepairAfterClosure } from './repairs/repair-closure';
import { failDeploymentAfterClosure } from './substrates/deployment-closure';
import type { ClosureOutcome, WorkflowClosure } from './workflow-closure';

export interface ClosureDeps {
  repos: Pick<
    Repos,
    | 'externalActions'
    | 'actionInbox'
    | 'substrateDeployments'
    | 'heavyWork'
    | 'checkpoints'
    | 'repairs'
  >;
  notify?: Notify;
  ledgerSeal: AbortActionDeps['ledgerSeal'];
  checkpoints?: AbortActionDeps['checkpoints'];
}

/**
 * Moves the resource of a closed workflow run to its terminal status (`aborted` for an
 * action, `failed` for a deployment, checkpoint or repair, naming the Temporal operator
 * action), unless it is there already. Idempotent, and safe to run in several api processes
 * at once: every write is a unique insert or keyed by the closure (docs/operations.md).
 */
export async function reflectClosure(
  deps: ClosureDeps,
  closure: WorkflowClosure,
): Promise<ClosureOutcome> {
  const [kind, id] = splitWorkflowId(closure.workflow_id);
  switch (kind) {
    case 'action':
      return abortAction(deps, id, closure);
    case 'deployment':
      return failDeploymentAfterClosure(deps, id, closure);
    case 'checkpoint':
      return failCheckpointAfterClosure(deps, id, closure);
    case 'repair':
      return failRepairAfterClosure(deps, id, closure);
    default:
      return 'not_ours';
  }
}

/** `action-act_…` → [`action`, `act_…`]. */
function splitWorkflowId(workflowId: string): [string, string] {
  const dash = workflowId.indexOf('-');
  return dash < 0 ? ['', workflowId] : [workflowId.slice(0, dash), workflowId.slice(dash + 1)];
}
