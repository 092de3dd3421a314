import { createSubstrate } from '../../src/domain/substrates/engine';
import type { DeploymentRecord } from '../../src/store/substrate-deployments.repo';
import { DeploymentStageKey } from '../../src/workflows/shared.contract';
import {
  deploymentStateQuery,
  deploymentWorkflowId,
  type DeploymentWorkflowInput,
} from '../../src/workflows/substrate-deployment.contract';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { deploymentRecordOf } from '../helpers/deployments';
import { startTestWorker } from '../helpers/test-worker';
import { killed, startWorkerProcess } from '../helpers/worker-process';

let app: TestApp;
let key: TestKey;

beforeAll(async () => {
  app = await startTestApp('deployment_wf');
  key = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
});
afterAll(() => app.close());

type Envelope = { payload: DeploymentRecord & { deployment_id: string } };

const deploy = async (spec: unknown): Promise<string> => {
  const res = await call<Envelope>(app.url, 'POST', '/v1/substrates/deploy', {
    key: key.apiKey,
    body: { spec },
  });
  expect(res.status).toBe(201);
  return res.body.payload.deployment_id;
};
const record = async (id: string) =>
  (
    await call<Envelope>(app.url, 'GET', `/v1/substrates/deployments/${id}`, {
      key: key.apiKey,
    })
  ).body.payload;

/** Waits until the deployment has computed some ticks but not all. */
async function midRun(id: string, timeoutMs = 60_000): Promise<DeploymentRecord> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const current = await record(id);
    if (current.stage === 'deploying' && current.progress.tick > 0) return current;
    if (current.status !== 'running') throw new Error(`deployment ended: ${current.stage}`);
    if (Date.now() > deadline) throw new Error(`deployment still at ${current.stage}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// 128 ticks per chunk on 2048 x 2048: many chunks, each a fraction of a second.
const bigSpec = (ticks: number) => ({
  scaffold: 'life-lattice',
  envelope: 'lattice-large',
  params: { width: 2048, height: 2048, rule: 'B3/S23', ticks, seed: 2026 },
});

describe('surviving a worker crash', () => {
  it('finishes a deployment whose worker was killed mid-run, with the same final digest', async () => {
    let worker = startWorkerProcess(app);
    try {
      const id = await deploy(bigSpec(1500));
      const before = await midRun(id);
      await killed(worker);
      worker = startWorkerProcess(app);

      const client = await app.deps.temporal.getClient();
      const final = (await client.workflow
        .getHandle(deploymentWorkflowId(id))
        .result()) as DeploymentRecord;
      expect(final).toMatchObject({ status: 'ready', stage: 'ready', error: null });
      expect(final.progress).toEqual({ tick: 1500, ticks_total: 1500 });
      expect(before.progress.tick).toBeLessThan(1500);

      const engine = createSubstrate('life-lattice', bigSpec(1500).params);
      engine.step(1500);
      expect(final.final?.digest).toBe(engine.digest());
      expect(final.assay?.passed).toBe(true);
      expect((await record(id)).stage).toBe('ready');
    } finally {
      await killed(worker);
    }
  }, 180_000);
});

describe('operating a running deployment', () => {
  it('answers progress by query and search attribute, and cancels cleanly', async () => {
    const worker = await startTestWorker(app.deps);
    try {
      const id = await deploy(bigSpec(100_000));
      await midRun(id);
      const client = await app.deps.temporal.getClient();
      const handle = client.workflow.getHandle(deploymentWorkflowId(id));
      const live = await handle.query(deploymentStateQuery);
      expect(live.stage).toBe('deploying');
      expect(live.progress.tick).toBeGreaterThan(0);
      expect(live.progress.ticks_total).toBe(100_000);
      const description = await handle.describe();
      expect(description.typedSearchAttributes.get(DeploymentStageKey)).toBe('deploying');

      await handle.cancel();
      await expect(handle.result()).rejects.toThrow();
      expect((await handle.describe()).status.name).toBe('CANCELLED');
      const stored = await record(id);
      expect(stored).toMatchObject({ status: 'cancelled', stage: 'cancelled', error: 'cancelled' });
      expect(stored.progress.tick).toBeLessThan(100_000);
      expect(Object.keys(stored.stage_timestamps)).toContain('cancelled');
    } finally {
      await worker.stop();
    }
  }, 120_000);

  it('fails a run that passes its wall-time bound, naming the tick', async () => {
    const worker = await startTestWorker(app.deps);
    try {
      const spec = bigSpec(5000);
      const deployment = deploymentRecordOf(
        { ...spec, scaffold: 'life-lattice', params: { ...spec.params, height: 2048 } },
        { snapshot_interval: 128, trail_step: 4, max_wall_seconds: 0 },
      );
      const id = deployment._id;
      await app.deps.repos.substrateDeployments.insertFirst(deployment);
      const client = await app.deps.temporal.getClient();
      const input: DeploymentWorkflowInput = { deployment };
      const handle = await client.workflow.start('substrateDeploymentWorkflow', {
        workflowId: deployment.workflow_id,
        taskQueue: app.deps.config.taskQueue,
        args: [input],
      });
      await expect(handle.result()).rejects.toThrow();
      const stored = await record(id);
      expect(stored).toMatchObject({ status: 'failed', stage: 'failed' });
      expect(stored.error).toMatch(/wall-time bound/);
      expect(stored.progress.tick).toBeLessThan(5000);
    } finally {
      await worker.stop();
    }
  }, 60_000);
});
