import { randomBytes } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { createWorker } from '../../src/worker/create-worker';
import type { ServiceProbeResult } from '../../src/workflows/service-probe.contract';
import { testTemporalAddress, workflowBundleCode } from '../test-env';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await TestWorkflowEnvironment.createFromExistingServer({
    address: testTemporalAddress(),
  });
});
afterAll(() => env?.teardown());

describe('serviceProbeWorkflow', () => {
  it('runs its activity on a worker and reports which one', async () => {
    const taskQueue = `probe-${randomBytes(4).toString('hex')}`;
    const { worker } = await createWorker({
      address: testTemporalAddress(),
      namespace: 'default',
      taskQueue,
      connection: env.nativeConnection,
      compute: false,
      workflowBundle: { code: workflowBundleCode() },
      activityDeps: {
        repos: {} as never, // the probe touches no store
        webhookAllowlist: [],
        webhookSigningSecret: 'unused-by-the-probe-0123456789abcdef',
        webhookTimeoutMs: 1000,
        keyPepper: 'unused-by-the-probe',
        trust: {} as never, // nor trust
      },
    });
    const requestedAt = new Date().toISOString();
    const result = await worker.runUntil(
      env.client.workflow.execute('serviceProbeWorkflow', {
        taskQueue,
        workflowId: `probe-${taskQueue}`,
        args: [{ requestedAt }],
      }) as Promise<ServiceProbeResult>,
    );
    expect(result.requestedAt).toBe(requestedAt);
    expect(Date.parse(result.activityAt)).toBeGreaterThanOrEqual(Date.parse(requestedAt));
    expect(result.workerIdentity).toMatch(/^\d+@/);
  });
});
