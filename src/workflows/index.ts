export { serviceProbeWorkflow } from './service-probe.workflow';
