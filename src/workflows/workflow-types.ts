import type { CheckpointRecord } from '../store/checkpoints.repo';
import type { ProofRunRecord } from '../store/proofs.repo';
import type { RepairRecord } from '../store/repairs.repo';
import type { ScenarioRunRecord } from '../store/scenario-runs.repo';
import type { CheckpointWorkflowInput } from './checkpoint.contract';
import type { ActionState, ActionWorkflowInput } from './external-action.contract';
import type { NotificationDeliveryInput } from './notification-delivery.contract';
import type { ProofWorkflowInput } from './proof.contract';
import type { RepairWorkflowInput } from './repair.contract';
import type { ScenarioWorkflowInput } from './scenario.contract';
import type { ServiceProbeInput, ServiceProbeResult } from './service-probe.contract';
import type { SubstrateDeploymentWorkflow } from './substrate-deployment.contract';

/**
 * Every workflow the worker registers, by its registered name, as the signature its starters
 * use (typed references: `client.workflow.start<WorkflowTypes['checkpointWorkflow']>`).
 * Built from the contracts, so a starter never imports workflow code, not even as a type
 * (a workflow's type graph reaches the activities and from there the domain that starts it);
 * test/workflows/workflow-types.test.ts holds each registered function to its entry.
 */
export interface WorkflowTypes {
  externalActionWorkflow: (input: ActionWorkflowInput) => Promise<ActionState>;
  substrateDeploymentWorkflow: SubstrateDeploymentWorkflow;
  checkpointWorkflow: (input: CheckpointWorkflowInput) => Promise<CheckpointRecord>;
  repairWorkflow: (input: RepairWorkflowInput) => Promise<RepairRecord>;
  serviceProbeWorkflow: (input: ServiceProbeInput) => Promise<ServiceProbeResult>;
  notificationDeliveryWorkflow: (input: NotificationDeliveryInput) => Promise<string>;
  proofWorkflow: (input: ProofWorkflowInput) => Promise<ProofRunRecord>;
  scenarioWorkflow: (input: ScenarioWorkflowInput) => Promise<ScenarioRunRecord>;
}

export type WorkflowName = keyof WorkflowTypes;
