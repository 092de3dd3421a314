import { temporal } from '@temporalio/proto';
import { NativeConnection, Worker } from '@temporalio/worker';
import { SCOPE_COLLECTIONS } from '../../src/domain/checkpoints/schemas';
import { newCheckpoint } from '../../src/domain/checkpoints/checkpoints.service';
import { actionWorkflowId, planSettledUpdate } from '../../src/workflows/external-action.contract';
import { DeploymentStageKey } from '../../src/workflows/shared.contract';
import { eventually } from '../helpers/eventually';
import { deploy, deploymentOf, latticeSpec } from '../helpers/heavy-work';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { repairAwaitingApproval, repairOf, requestRepair } from '../helpers/repairs';
import { temporalCliOk } from '../helpers/temporal-cli';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';
import { testTemporalAddress, workflowBundleCode } from '../test-env';
import { signedNotifyInput } from '../helpers/signed-actions';

// Resets and timeouts of deployment, checkpoint and repair workflows, and timeouts of action
// workflows, done with the real `temporal` CLI and client against the test server: the api
// follows a reset's new run to its real end, and records a timed-out run's resource as ended
// (docs/temporal-ui.md, "Resets"; docs/operations.md, "Runs ended from Temporal").

let app: TestApp;
/** An app on a task queue only the tests' own workers poll, when they choose to. */
let held: TestApp;
let worker: TestWorker;
let proposer: TestKey;
let approver: TestKey;
let heldKey: TestKey;
// The service monitor (and with it the closed-run watcher) ticks every 300 ms here.
const WATCH = { SERVICE_MONITOR_INTERVAL_MS: '300' };
beforeAll(async () => {
  app = await startTestApp('resets', { env: WATCH });
  held = await startTestApp('resets-held', { env: WATCH });
  worker = await startTestWorker(app.deps);
  const strategic = { entitlement: 'strategic', accessLayer: 2 } as const;
  [proposer, approver, heldKey] = await Promise.all([
    createTestKey(app, strategic),
    createTestKey(app, strategic),
    createTestKey(held, strategic),
  ]);
});
afterAll(async () => {
  await worker.stop();
  await held.close();
  await app.close();
});

const describeRun = async (target: TestApp, workflowId: string) =>
  (await target.deps.temporal.getClient()).workflow.getHandle(workflowId).describe();
const reset = (target: TestApp, workflowId: string, shape: string[]) =>
  temporalCliOk(target, [
    ...['workflow', 'reset', '--workflow-id', workflowId, '--reason', 'operator reset'],
    ...shape,
  ]);
const get = async <T>(target: TestApp, key: TestKey, path: string) => {
  const res = await call<{ payload: T }>(target.url, 'GET', path, { key: key.apiKey });
  expect(res.status).toBe(200);
  return res.body.payload;
};

const RESET_CAUSE =
  temporal.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW;

const SHAPES = [
  ['--type', 'LastWorkflowTask'],
  ['--type', 'FirstWorkflowTask'],
  ['--type', 'LastWorkflowTask', '--reapply-exclude', 'Signal'],
  ['--type', 'LastWorkflowTask', '--reapply-exclude', 'Update'],
];

describe('a reset of a running deployment', () => {
  it.each(SHAPES.map((shape) => [shape.join(' '), shape] as const))(
    '%s: the new run goes on to ready',
    async (_name, shape) => {
      // 512² for 8,192 ticks: four chunks of 2,048 ticks, seconds of engine work.
      const started = await deploy(app, proposer, latticeSpec(512, 8192, Date.now() % 1000));
      expect(started.status).toBe(201);
      const { deployment_id: id, workflow_id: workflowId } = started.body.payload;
      await eventually(
        () => deploymentOf(app, proposer, id),
        (view) => view.progress.tick > 0,
      );
      const before = await describeRun(app, workflowId);
      await reset(app, workflowId, [...shape]);
      expect((await describeRun(app, workflowId)).runId).not.toBe(before.runId);
      // Every state the api shows until the end: never failed.
      const seen = new Set<string>();
      const ended = await eventually(
        async () => {
          const view = await deploymentOf(app, proposer, id);
          seen.add(view.status);
          return view;
        },
        (view) => view.status !== 'running',
        60_000,
      );
      expect(ended).toMatchObject({ status: 'ready', stage: 'ready' });
      expect(ended.progress).toEqual({ tick: 8192, ticks_total: 8192 });
      expect([...seen]).not.toContain('failed');
      // The run records `ready`, then completes.
      const after = await eventually(
        () => describeRun(app, workflowId),
        (run) => run.status.name !== 'RUNNING',
      );
      expect(after.status.name).toBe('COMPLETED');
      expect(after.typedSearchAttributes.get(DeploymentStageKey)).toBe('ready');
    },
  );
});

describe('a reset of a checkpoint', () => {
  it('reset before its first copy ran: the new run copies and completes', async () => {
    // A worker of workflows only: the checkpoint's first task completes and its first
    // activity waits, so the reset happens while it runs.
    const connection = await NativeConnection.connect({
      address: testTemporalAddress(),
    });
    const workflows = await Worker.create({
      connection,
      taskQueue: held.deps.config.taskQueue,
      workflowBundle: { code: workflowBundleCode() },
    });
    const polling = workflows.run();
    const started = await call<{ payload: { checkpoint_id: string; workflow_id: string } }>(
      held.url,
      'POST',
      '/v1/continuous-ops/checkpoint',
      { key: heldKey.apiKey, body: { scope: ['world'] } },
    );
    expect(started.status).toBe(202);
    const { checkpoint_id: id, workflow_id: workflowId } = started.body.payload;
    await eventually(
      () => describeRun(held, workflowId),
      (run) => run.historyLength >= 4, // its first workflow task completed
    );
    const before = await describeRun(held, workflowId);
    await reset(held, workflowId, ['--type', 'LastWorkflowTask']);
    workflows.shutdown();
    await polling;
    await connection.close();
    const full = await startTestWorker(held.deps);
    try {
      const ended = await eventually(
        () =>
          get<{ status: string; manifest: unknown }>(
            held,
            heldKey,
            `/v1/continuous-ops/checkpoints/${id}`,
          ),
        (view) => view.status !== 'running',
      );
      expect(ended.status).toBe('completed');
      expect(ended.manifest).not.toBeNull();
      // The record says completed from its last projection, a moment before the run ends.
      const after = await eventually(
        () => describeRun(held, workflowId),
        (run) => run.status.name !== 'RUNNING',
      );
      expect(after.runId).not.toBe(before.runId);
      expect(after.status.name).toBe('COMPLETED');
    } finally {
      await full.stop();
    }
  });
});

interface ActionView {
  status: string;
  run_id: string;
}
const actionOf = (id: string) => get<ActionView>(app, approver, `/v1/external-actions/${id}`);
const approve = (id: string) =>
  call<{ payload: ActionView; error?: { status?: string } }>(
    app.url,
    'POST',
    `/v1/external-actions/${id}/approve`,
    { key: approver.apiKey, body: { reason: 'restore it' } },
  );

describe('a reset of a repair awaiting its child action', () => {
  it('to its last task: it follows its child through approval and applying, and ends repaired', async () => {
    // The rule's wait holds the approved child a moment before it executes, so its
    // `approved` signal reaches the repair while both still run.
    const rule = await call(app.url, 'POST', '/v1/admin/approval-rules/create', {
      key: app.adminKey,
      body: {
        name: 'restores wait a moment',
        match: { action_kind: 'world.restore_object' },
        required_approvals: 1,
        wait_seconds: 2,
      },
    });
    expect(rule.status).toBe(201);
    const { repair, child, objectId } = await repairAwaitingApproval(app, proposer);
    const before = await describeRun(app, `repair-${repair}`);
    await reset(app, `repair-${repair}`, ['--type', 'LastWorkflowTask']);
    expect((await describeRun(app, `repair-${repair}`)).runId).not.toBe(before.runId);
    expect((await actionOf(child)).status).toBe('awaiting_approval');
    expect((await approve(child)).status).toBe(200);
    // The child's status signals after the approval reach the new run (they named the
    // terminated run before, and were lost).
    const signalsAfterReset = async () => {
      const client = await app.deps.temporal.getClient();
      const history = await client.workflow.getHandle(`repair-${repair}`).fetchHistory();
      const events = history.events ?? [];
      const resetAt = events.findIndex(
        (event) => event.workflowTaskFailedEventAttributes?.cause === RESET_CAUSE,
      );
      return resetAt < 0
        ? 0
        : events.slice(resetAt).filter((event) => event.workflowExecutionSignaledEventAttributes)
            .length;
    };
    await eventually(signalsAfterReset, (count) => count >= 1, 10_000);
    const ended = await eventually(
      () => repairOf(app, proposer, repair, objectId),
      (view) => ['repaired', 'failed', 'rejected'].includes(view.status),
    );
    expect(ended).toMatchObject({ status: 'repaired', error: null });
    expect((await actionOf(child)).status).toBe('executed');
    const object = await app.deps.repos.worldObjects.findById(objectId);
    expect(object?.attributes).toEqual({ status: 'draft' });
    expect((await requestRepair(app, proposer, objectId)).status).toBe(202);
  });

  it('to its first task: its child is cancelled, and it ends failed saying why, freeing the object', async () => {
    const { repair, child, objectId } = await repairAwaitingApproval(app, proposer);
    await reset(app, `repair-${repair}`, ['--type', 'FirstWorkflowTask']);
    const ended = await eventually(
      () => repairOf(app, proposer, repair, objectId),
      (view) => view.status === 'failed',
    );
    expect(ended.error).toBe(
      `child action ${child} was started by an earlier run of this repair's workflow, which a reset replaced; this run cannot follow it, so it is cancelled: request the repair again`,
    );
    expect(ended.ledger_seq).toBeGreaterThanOrEqual(1);
    await eventually(
      () => actionOf(child),
      (view) => view.status === 'aborted',
    );
    // Nobody can approve the orphan into changing the object any more.
    const late = await approve(child);
    expect(late.status).toBe(409);
    const object = await app.deps.repos.worldObjects.findById(objectId);
    expect(object?.attributes).toEqual({ status: 'hacked' });
    expect((await requestRepair(app, proposer, objectId)).status).toBe(202);
  });
});

describe('a workflow execution timeout', () => {
  it('an action whose run times out is aborted, timed_out', async () => {
    const input = signedNotifyInput(app.deps.decisionSigner, proposer, 'times out', 3600);
    const actionId = input.action_id;
    const client = await app.deps.temporal.getClient();
    const handle = await client.workflow.start('externalActionWorkflow', {
      workflowId: actionWorkflowId(actionId),
      taskQueue: app.deps.config.taskQueue,
      workflowExecutionTimeout: '3 seconds',
      args: [input],
    });
    await handle.executeUpdate(planSettledUpdate);
    expect((await actionOf(actionId)).status).toBe('awaiting_approval');
    await eventually(
      () => actionOf(actionId),
      (view) => view.status === 'aborted',
    );
    const ledger = await get<{ items: { event: string; detail: Record<string, unknown> }[] }>(
      app,
      approver,
      `/v1/external-actions/history?action_id=${actionId}&limit=50`,
    );
    expect(ledger.items.find((entry) => entry.event === 'aborted')?.detail).toMatchObject({
      previous_status: 'awaiting_approval',
      temporal: {
        status: 'timed_out',
        reason: 'the workflow run passed its run or execution timeout',
      },
    });
  });

  it('a checkpoint whose run times out is failed, naming the timeout', async () => {
    // Started as the api starts one, with an execution timeout, on a queue no worker polls.
    const record = newCheckpoint(
      { scope: ['world'] },
      heldKey.principalId,
      new Date().toISOString(),
    );
    await held.deps.repos.checkpoints.project(record);
    const client = await held.deps.temporal.getClient();
    await client.workflow.start('checkpointWorkflow', {
      workflowId: record.workflow_id,
      taskQueue: held.deps.config.taskQueue,
      workflowExecutionTimeout: '2 seconds',
      args: [{ record, collections: SCOPE_COLLECTIONS }],
    });
    const failed = await eventually(
      () =>
        get<{ status: string; error: string | null }>(
          held,
          heldKey,
          `/v1/continuous-ops/checkpoints/${record._id}`,
        ),
      (view) => view.status !== 'running',
    );
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(
      /was timed out in Temporal: the workflow run passed its run or execution timeout$/,
    );
  });
});
