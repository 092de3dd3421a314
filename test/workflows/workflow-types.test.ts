import * as workflows from '../../src/workflows';
import type { WorkflowTypes } from '../../src/workflows/workflow-types';

// Compile-time: each registered workflow function has the signature its starters use.
const registered: WorkflowTypes = workflows;

describe('workflow types', () => {
  it('name every registered workflow, and only those', () => {
    const declared: Record<keyof WorkflowTypes, true> = {
      externalActionWorkflow: true,
      substrateDeploymentWorkflow: true,
      checkpointWorkflow: true,
      repairWorkflow: true,
      serviceProbeWorkflow: true,
      notificationDeliveryWorkflow: true,
      proofWorkflow: true,
      scenarioWorkflow: true,
    };
    expect(Object.keys(registered).sort()).toEqual(Object.keys(declared).sort());
  });
});
