import { proposeUpdate } from '../helpers/actions';
import {
  cancelDeployments,
  deploy,
  deploymentOf,
  eventually,
  latticeSpec,
  type Body,
  type DeploymentView,
} from '../helpers/heavy-work';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';

// Issue 16, item 3: substrate compute runs on its own task queue with a bounded number of
// chunks per worker, so approval workflows never wait behind the engine.

/** Temporal's PendingActivityState: scheduled (waiting for a worker) and started. */
const SCHEDULED = 1;
const STARTED = 2;

interface ActionView {
  action_id: string;
  status: string;
  dry_run: { plan_digest: string };
}

let app: TestApp;
let worker: TestWorker;
let key: TestKey;
let proposer: TestKey;
let approver: TestKey;

beforeAll(async () => {
  app = await startTestApp('compute_saturation');
  worker = await startTestWorker(app.deps, app.deps.config.taskQueue, {
    computeConcurrentChunks: 1,
  });
  [key, proposer, approver] = await Promise.all(
    [1, 2, 3].map(() => createTestKey(app, { entitlement: 'strategic', accessLayer: 2 })),
  );
});
afterAll(async () => {
  await worker.stop();
  await app.close();
});

/** Chunks of the deployments' workflows now running and waiting on the compute queue. */
async function pendingChunks(deployments: DeploymentView[]) {
  const client = await app.deps.temporal.getClient();
  const states = await Promise.all(
    deployments.map(async (d) => {
      const { raw } = await client.workflow.getHandle(d.workflow_id).describe();
      return (raw.pendingActivities ?? []).map((activity) => Number(activity.state));
    }),
  );
  const all = states.flat();
  return {
    started: all.filter((s) => s === STARTED).length,
    waiting: all.filter((s) => s === SCHEDULED).length,
  };
}

describe('the compute queue saturated', () => {
  it('runs an approval (propose → approve → execute) promptly while deployments wait for compute', async () => {
    // Three long deployments (1024² × 100,000 ticks: about 200 chunks each) on a worker that
    // runs one chunk at a time: the compute queue stays full for minutes.
    const deployments: DeploymentView[] = [];
    for (let seed = 1; seed <= 3; seed++) {
      const res = await deploy(app, key, latticeSpec(1024, 100_000, seed));
      expect(res.status).toBe(201);
      deployments.push(res.body.payload);
    }
    try {
      // Saturated: a chunk runs, other deployments' chunks wait, never more than the bound.
      let maxStarted = 0;
      await eventually(
        'a running chunk with others waiting',
        async () => {
          const { started, waiting } = await pendingChunks(deployments);
          maxStarted = Math.max(maxStarted, started);
          return started === 1 && waiting >= 1;
        },
        60_000,
      );

      const begun = Date.now();
      const actionId = await proposeUpdate(app, proposer, { patch: { status: 'reviewed' } });
      const viewed = await call<Body<ActionView>>(
        app.url,
        'GET',
        `/v1/external-actions/${actionId}`,
        { key: approver.apiKey },
      );
      const approved = await call<Body<ActionView>>(
        app.url,
        'POST',
        `/v1/external-actions/${actionId}/approve`,
        {
          key: approver.apiKey,
          body: { reason: 'ok', plan_digest: viewed.body.payload.dry_run.plan_digest },
        },
      );
      expect(approved.body.payload.status).toBe('approved');
      const executed = await call<Body<ActionView>>(
        app.url,
        'POST',
        `/v1/external-actions/${actionId}/execute`,
        { key: approver.apiKey, body: {} },
      );
      expect(executed.status).toBe(200);
      expect(executed.body.payload.status).toBe('executed');
      const elapsedMs = Date.now() - begun;

      // Generous: it proves only that the action did not wait behind the deployments,
      // which are all still running (minutes of compute left) when it is executed.
      expect(elapsedMs).toBeLessThan(30_000);
      for (const d of deployments) {
        const now = await deploymentOf(app, key, d.deployment_id);
        expect(now.status).toBe('running');
        expect(now.progress.tick).toBeLessThan(now.progress.ticks_total);
      }
      const after = await pendingChunks(deployments);
      maxStarted = Math.max(maxStarted, after.started);
      expect(maxStarted).toBe(1);
    } finally {
      await cancelDeployments(app, key, deployments);
    }
    // Cancelled deployments give their slots back. The workflow's last step writes the final
    // stage first and then frees the slots, so a read just after the stage is seen may still
    // find one: wait (bounded) for the release.
    const slotsOf = () => app.deps.repos.heavyWork.slotsOf(`key:${key.keyId}`);
    for (let i = 0; i < 50 && (await slotsOf()).length > 0; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(await slotsOf()).toEqual([]);
  }, 180_000);
});
