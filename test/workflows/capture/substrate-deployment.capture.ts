import type { Client } from '@temporalio/client';
import type { NormalizedSpec } from '../../../src/store/substrate-deployments.repo';
import {
  deploymentStateQuery,
  deploymentWorkflowId,
  type DeploymentWorkflowInput,
} from '../../../src/workflows/substrate-deployment.contract';
import { deploymentRecordOf } from '../../helpers/deployments';
import { call } from '../../helpers/http';
import { createTestKey, type TestKey } from '../../helpers/keys';
import { startTestApp, type TestApp } from '../../helpers/test-app';
import { startTestWorker, type TestWorker } from '../../helpers/test-worker';
import { saveHistory, saveRunChain } from './save-history';

// substrateDeploymentWorkflow: ready, continued as new (first, middle and last run), failed
// at its wall-time bound, and cancelled mid-run.
let app: TestApp;
let worker: TestWorker;
let client: Client;
let key: TestKey;
beforeAll(async () => {
  app = await startTestApp('capture_deployments');
  worker = await startTestWorker(app.deps);
  client = await app.deps.temporal.getClient();
  key = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
});
afterAll(async () => {
  await worker.stop();
  await app.close();
});

const gliderSpec = (ticks: number): NormalizedSpec => ({
  scaffold: 'life-lattice',
  envelope: 'lattice-standard',
  params: { width: 64, height: 64, rule: 'B3/S23', ticks, pattern: 'glider' },
});

/** Starts the workflow directly, with options the api does not expose. */
const start = (input: DeploymentWorkflowInput) =>
  client.workflow.start('substrateDeploymentWorkflow', {
    workflowId: input.deployment.workflow_id,
    taskQueue: app.deps.config.taskQueue,
    args: [input],
  });

describe('substrateDeploymentWorkflow histories', () => {
  it('ready: deployed through the api', async () => {
    const res = await call<{ payload: { deployment_id: string } }>(
      app.url,
      'POST',
      '/v1/substrates/deploy',
      {
        key: key.apiKey,
        body: {
          spec: {
            scaffold: 'life-lattice',
            params: { width: 32, rule: 'B3/S23', ticks: 8, pattern: 'glider' },
          },
        },
      },
    );
    expect(res.status).toBe(201);
    const id = deploymentWorkflowId(res.body.payload.deployment_id);
    expect((await saveHistory(client, 'ready', id)).result).toMatchObject({ stage: 'ready' });
  });

  it('continued as new: 30 ticks in chunks of 5, two chunks per run', async () => {
    const deployment = deploymentRecordOf(gliderSpec(30));
    const handle = await start({ deployment, chunks_per_run: 2 });
    await handle.result();
    const runs = await saveRunChain(
      client,
      'continued-as-new',
      deployment.workflow_id,
      handle.firstExecutionRunId,
    );
    expect(runs).toBe(3);
  });

  it('failed: past its wall-time bound', async () => {
    const deployment = deploymentRecordOf(gliderSpec(5000), { max_wall_seconds: 0 });
    await app.deps.repos.substrateDeployments.insertFirst(deployment);
    const handle = await start({ deployment });
    await expect(handle.result()).rejects.toThrow();
    await saveHistory(client, 'failed-wall-time', deployment.workflow_id);
  });

  it('cancelled mid-run', async () => {
    const deployment = deploymentRecordOf(gliderSpec(100_000));
    const handle = await start({ deployment });
    for (let i = 0; i < 200; i += 1) {
      const live = await handle.query(deploymentStateQuery);
      if (live.stage === 'deploying' && live.progress.tick >= 20) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await handle.cancel();
    await expect(handle.result()).rejects.toThrow();
    await saveHistory(client, 'cancelled', deployment.workflow_id);
  });
});
