import type { Client } from '@temporalio/client';
import { createSubstrate } from '../../src/domain/substrates/engine';
import { chunkPlan } from '../../src/domain/substrates/chunking';
import { deploy } from '../../src/domain/substrates/deployments.service';
import type { DeploymentRecord, NormalizedSpec } from '../../src/store/substrate-deployments.repo';
import type { TemporalGateway } from '../../src/temporal/gateway';
import { computeTaskQueueOf } from '../../src/workflows/shared.contract';
import {
  deploymentWorkflowId,
  type DeploymentProgressState,
  type DeploymentWorkflowInput,
} from '../../src/workflows/substrate-deployment.contract';
import type { AuthContext } from '../../src/auth/auth-context';
import { CLASS_LIMITS } from '../../src/auth/limits';
import { deploymentRecordOf } from '../helpers/deployments';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';

// Issue 10, risks 1, 2, 3, 4 and 6 of the substrate deployment pipeline.

let app: TestApp;
let worker: TestWorker;
let client: Client;

beforeAll(async () => {
  app = await startTestApp('deployment_risks');
  worker = await startTestWorker(app.deps);
  client = await app.deps.temporal.getClient();
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

const start = (input: DeploymentWorkflowInput) =>
  client.workflow.start('substrateDeploymentWorkflow', {
    workflowId: input.deployment.workflow_id,
    taskQueue: app.deps.config.taskQueue,
    args: [input],
  });

const engineDigest = (spec: NormalizedSpec, tick: number): string => {
  const engine = createSubstrate(spec.scaffold, spec.params);
  engine.step(tick);
  return engine.digest();
};

describe('a long run continues as new (risk 1) and chunks on the compute queue (risk 4)', () => {
  it('continues as new every N chunks, passing ids, with the engine-alone digest', async () => {
    const spec = gliderSpec(40);
    const deployment = deploymentRecordOf(spec);
    const handle = await start({ deployment, chunks_per_run: 2 });
    const final = (await handle.result()) as DeploymentProgressState;

    expect(final).toMatchObject({ status: 'ready', stage: 'ready' });
    expect(final.final?.digest).toBe(engineDigest(spec, 40));
    // Eight chunks at two per run: the execution that finished is not the first.
    const latest = await client.workflow.getHandle(deployment.workflow_id).describe();
    expect(latest.runId).not.toBe(handle.firstExecutionRunId);
    const firstRun = await client.workflow
      .getHandle(deployment.workflow_id, handle.firstExecutionRunId)
      .fetchHistory();
    const events = firstRun.events ?? [];
    expect(events.some((e) => e.workflowExecutionContinuedAsNewEventAttributes)).toBe(true);

    // Chunk inputs carry ids and ticks, never the spec; they run on the compute queue.
    const scheduled = events
      .map((e) => e.activityTaskScheduledEventAttributes)
      .filter((a) => a?.activityType?.name === 'runDeploymentChunk');
    expect(scheduled.length).toBeGreaterThan(0);
    for (const chunk of scheduled) {
      expect(chunk?.taskQueue?.name).toBe(computeTaskQueueOf(app.deps.config.taskQueue));
      const input = Buffer.from(chunk?.input?.payloads?.[0]?.data ?? []).toString('utf8');
      expect(input).toContain(deployment._id);
      expect(input).not.toContain('glider');
    }
    const stored = await app.deps.repos.substrateDeployments.findById(deployment._id);
    expect(stored).toMatchObject({ stage: 'ready', spec });
  }, 90_000);
});

describe('the recorded chunk plan (risk 2)', () => {
  it('writes snapshots at the recorded interval, where the state reader looks', async () => {
    const spec = gliderSpec(40);
    // What the plan would be today is not what this deployment recorded.
    expect(chunkPlan(64, 64, 40).interval).not.toBe(7);
    const deployment = deploymentRecordOf(spec, { snapshot_interval: 7, trail_step: 1 });
    const final = (await (await start({ deployment })).result()) as DeploymentProgressState;
    expect(final.stage).toBe('ready');

    for (const tick of [7, 14, 21, 28, 35, 40]) {
      expect(await app.deps.repos.substrateSnapshots.find(deployment._id, tick)).not.toBeNull();
    }
    const stored = (await app.deps.repos.substrateDeployments.findById(deployment._id))!;
    const at10 = await app.deps.substrateStates.at(stored, 10);
    expect(at10.digest()).toBe(engineDigest(spec, 10));
  }, 60_000);
});

describe('deterministic failures and the wall-time bound (risk 3)', () => {
  it('fails at once, without retrying, when a snapshot it needs is missing', async () => {
    const spec = gliderSpec(40);
    // A run resumed at tick 10, whose snapshot was never written.
    const deployment = deploymentRecordOf(spec, {
      stage: 'deploying',
      progress: { tick: 10, ticks_total: 40 },
    });
    await app.deps.repos.substrateDeployments.insertFirst(deployment);
    const handle = await start({ deployment });
    await expect(handle.result()).rejects.toThrow();
    const stored = await app.deps.repos.substrateDeployments.findById(deployment._id);
    expect(stored).toMatchObject({ status: 'failed', stage: 'failed' });
    expect(stored?.error).toMatch(/no snapshot/);
    const history = await handle.fetchHistory();
    const started = (history.events ?? []).filter((e) => e.activityTaskStartedEventAttributes);
    expect(started.map((e) => e.activityTaskStartedEventAttributes?.attempt)).toEqual([1]);
  }, 30_000);

  it('cuts a chunk longer than the bound with a timer, cancelling it', async () => {
    // One chunk of 2048 x 2048 x 2000 ticks (seconds of engine work) against a 1 s bound.
    const spec: NormalizedSpec = {
      scaffold: 'life-lattice',
      envelope: 'lattice-large',
      params: { width: 2048, height: 2048, rule: 'B3/S23', ticks: 2000, seed: 7 },
    };
    const deployment = deploymentRecordOf(spec, {
      stage: 'deploying',
      snapshot_interval: 2000,
      trail_step: 2000,
      max_wall_seconds: 1,
    });
    await app.deps.repos.substrateDeployments.insertFirst(deployment);
    const handle = await start({ deployment });
    await expect(handle.result()).rejects.toThrow();
    const stored = await app.deps.repos.substrateDeployments.findById(deployment._id);
    expect(stored?.error).toMatch(/wall-time bound \(1 s\) at tick 0/);
    const history = await handle.fetchHistory();
    expect((history.events ?? []).some((e) => e.activityTaskCancelRequestedEventAttributes)).toBe(
      true,
    );
  }, 60_000);
});

describe('the workflow start is the source of truth (risk 6)', () => {
  const auth = {
    keyId: 'k_test',
    principalId: 'prn_test',
    organizationId: 'org_test',
    limits: CLASS_LIMITS.strategic,
  } as AuthContext;
  const body = { spec: gliderSpec(12) };

  it('writes nothing while the start has not happened (no record stuck at validating)', async () => {
    const before = await app.deps.db.collection('substrate_deployments').countDocuments();
    // Temporal never answers: the process may die here, and nothing must be half-written.
    let reachTemporal!: () => void;
    const reached = new Promise<void>((resolve) => (reachTemporal = resolve));
    const hung = {
      getClient: () => {
        reachTemporal();
        return new Promise<never>(() => undefined);
      },
    } as unknown as TemporalGateway;
    let settled: unknown = undefined;
    const deploying = deploy({ ...app.deps, temporal: hung }, auth, body).then(
      (value) => (settled = { value }),
      (error: unknown) => (settled = { error }),
    );
    // The deploy got as far as asking Temporal for the start (it did not end before it), and
    // everything it wrote on the way is written by then: it awaits each write in turn.
    await Promise.race([reached, deploying]);
    expect(settled).toBeUndefined();
    expect(await app.deps.db.collection('substrate_deployments').countDocuments()).toBe(before);
    expect(settled).toBeUndefined();
  });

  it('ends with a full record when the api dies right after the start', async () => {
    const deployments = app.deps.repos.substrateDeployments;
    let id = '';
    const crashing = {
      ...deployments,
      insertFirst: (record: DeploymentRecord) => {
        id = record._id;
        return Promise.reject(new Error('the api process died here'));
      },
    };
    const repos = { ...app.deps.repos, substrateDeployments: crashing };
    await expect(deploy({ ...app.deps, repos }, auth, body)).rejects.toThrow(/died/);
    await client.workflow.getHandle(deploymentWorkflowId(id)).result();
    const stored = await deployments.findById(id);
    expect(stored).toMatchObject({
      stage: 'ready',
      spec: expect.objectContaining({ scaffold: 'life-lattice' }),
    });
  }, 60_000);
});
