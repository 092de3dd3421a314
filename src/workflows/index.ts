export { checkpointWorkflow } from './checkpoint.workflow';
export { externalActionWorkflow } from './external-action.workflow';
export { notificationDeliveryWorkflow } from './notification-delivery.workflow';
export { serviceProbeWorkflow } from './service-probe.workflow';
export { substrateDeploymentWorkflow } from './substrate-deployment.workflow';
export { repairWorkflow } from './repair.workflow';
export { proofWorkflow } from './proof.workflow';
export { scenarioWorkflow } from './scenario.workflow';
