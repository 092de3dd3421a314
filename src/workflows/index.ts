export { externalActionWorkflow } from './external-action.workflow';
export { serviceProbeWorkflow } from './service-probe.workflow';
export { substrateDeploymentWorkflow } from './substrate-deployment.workflow';
