import { DIVERGED_RESET_REASON } from '../../src/domain/closed-runs';
import { ActionStatusKey } from '../../src/workflows/shared.contract';
import { proposeUpdate } from '../helpers/actions';
import { storedIn } from '../helpers/collections';
import { eventually } from '../helpers/eventually';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import {
  repairAwaitingApproval as awaitingApproval,
  repairOf as repairViewOf,
  requestRepair as requestRepairOf,
} from '../helpers/repairs';
import { lastUpdateTask, temporalCliOk } from '../helpers/temporal-cli';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';
import { WebhookReceiver } from '../helpers/webhook-receiver';

// What an operator with access to the Temporal server (CLI, Web UI) does to our workflows is
// reflected truthfully by the api (docs/actions.md, "Temporal operator actions"): a run ended
// from Temporal moves its resource to a terminal status, and a reset's new run is followed.
// Driven with the real `temporal` CLI against the test server.

interface ActionView {
  action_id: string;
  status: string;
  run_id: string;
  ledger_head: string | null;
  approvals: { principal_id: string }[];
  allowed: { approve: boolean; reject: boolean; execute: boolean };
  links: { temporal_ui: string };
}
interface LedgerEntry {
  entry_id: string;
  seq: number;
  event: string;
  status: string;
  actor: unknown;
  detail: Record<string, unknown>;
  prev_digest: string | null;
  digest: string;
}

const receiver = new WebhookReceiver();
let receiverUrl: string;
let app: TestApp;
/** An app on a task queue no worker polls: its workflows start and wait. */
let idle: TestApp;
let worker: TestWorker;
let proposer: TestKey;
let approver: TestKey;
let idleKey: TestKey;
// The service monitor (and with it the closed-run watcher) ticks every 300 ms here.
const WATCH = { SERVICE_MONITOR_INTERVAL_MS: '300' };
beforeAll(async () => {
  receiverUrl = await receiver.start();
  app = await startTestApp('operator-actions', {
    env: { ...WATCH, WEBHOOK_ALLOWLIST: `${receiverUrl}/` },
  });
  idle = await startTestApp('operator-idle', { env: WATCH });
  worker = await startTestWorker(app.deps);
  const strategic = { entitlement: 'strategic', accessLayer: 2 } as const;
  [proposer, approver, idleKey] = await Promise.all([
    createTestKey(app, strategic),
    createTestKey(app, strategic),
    createTestKey(idle, strategic),
  ]);
});
afterAll(async () => {
  await worker.stop();
  await idle.close();
  await app.close();
  await receiver.stop();
});

const get = async <T>(target: TestApp, key: TestKey, path: string) => {
  const res = await call<{ payload: T }>(target.url, 'GET', path, { key: key.apiKey });
  expect(res.status).toBe(200);
  return res.body.payload;
};
const actionOf = (id: string) => get<ActionView>(app, approver, `/v1/external-actions/${id}`);
const ledgerOf = async (id: string) =>
  (
    await get<{ items: LedgerEntry[] }>(
      app,
      approver,
      `/v1/external-actions/history?action_id=${id}&limit=50`,
    )
  ).items.sort((a, b) => a.seq - b.seq);
const inboxIds = async () =>
  (
    await get<{ items: { action_id: string }[] }>(
      app,
      approver,
      '/v1/external-actions?awaiting_me=true&limit=100',
    )
  ).items.map((item) => item.action_id);
const decide = (id: string, decision: 'approve' | 'reject' | 'execute', body = {}) =>
  call<{ payload: ActionView; error?: { code: string; status?: string } }>(
    app.url,
    'POST',
    `/v1/external-actions/${id}/${decision}`,
    { key: approver.apiKey, body },
  );

/** An action awaiting the second of two approvals (so it is still in the inbox). */
async function awaitingSecondApproval(): Promise<ActionView> {
  const id = await proposeUpdate(app, proposer, {
    patch: { status: 'published' },
    bounds: { required_approvals: 2 },
  });
  expect((await decide(id, 'approve', { reason: 'first of two' })).status).toBe(200);
  const other = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
  // The inbox of someone who has not approved yet still holds it.
  const before = await get<{ items: { action_id: string }[] }>(
    app,
    other,
    '/v1/external-actions?awaiting_me=true&limit=100',
  );
  expect(before.items.map((item) => item.action_id)).toContain(id);
  return actionOf(id);
}

/** The action_ledger_chain proof over the whole store. */
async function chainCheck() {
  const res = await call<{
    payload: { results: { name: string; status: string; violations: unknown[] }[] };
  }>(app.url, 'POST', '/v1/proofs/checks', {
    key: approver.apiKey,
    body: { checks: ['action_ledger_chain'] },
  });
  expect(res.status).toBe(200);
  return res.body.payload.results[0];
}

/** Its ledger's newest entry is `aborted`, chained to the one before it. */
async function expectAbortedLedger(id: string, temporal: Record<string, unknown>) {
  const ledger = await ledgerOf(id);
  const last = ledger[ledger.length - 1];
  expect(last).toMatchObject({
    event: 'aborted',
    status: 'aborted',
    actor: null,
    detail: { previous_status: 'awaiting_approval', temporal },
  });
  expect(last.prev_digest).toBe(ledger[ledger.length - 2].digest);
  expect(ledger.filter((entry) => entry.event === 'aborted')).toHaveLength(1);
  return last;
}

describe('an action workflow ended from Temporal', () => {
  it('terminated: a decision answers 409 aborted at once, with who and why in the ledger', async () => {
    const action = await awaitingSecondApproval();
    await temporalCliOk(app, [
      ...['workflow', 'terminate', '--workflow-id', `action-${action.action_id}`],
      ...['--reason', 'operator pulled the plug'],
    ]);

    const refused = await decide(action.action_id, 'approve', { reason: 'second' });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'invalid_state', status: 'aborted' });
    const after = await actionOf(action.action_id);
    expect(after.status).toBe('aborted');
    expect(after.allowed).toEqual({ approve: false, reject: false, execute: false });
    const entry = await expectAbortedLedger(action.action_id, {
      status: 'terminated',
      reason: 'operator pulled the plug',
      run_id: action.run_id,
    });
    // Who: the CLI's identity as Temporal recorded it (`<pid>@<host>@`).
    expect((entry.detail['temporal'] as { identity: string }).identity).toMatch(/@/);
    expect(await inboxIds()).not.toContain(action.action_id);
    // Every decision on it is refused the same way, and nothing is written twice.
    for (const decision of ['approve', 'reject', 'execute'] as const) {
      const again = await decide(action.action_id, decision, { reason: 'again' });
      expect(again.status).toBe(409);
      expect(again.body.error?.status).toBe('aborted');
    }
    expect((await ledgerOf(action.action_id)).filter((e) => e.event === 'aborted')).toHaveLength(1);
    expect(await chainCheck()).toMatchObject({ status: 'passed', violations: [] });
  });

  it('cancelled: the watcher records it aborted with no decision asked, and it leaves every inbox', async () => {
    const action = await awaitingSecondApproval();
    await temporalCliOk(app, [
      ...['workflow', 'cancel', '--workflow-id', `action-${action.action_id}`],
    ]);
    const after = await eventually(
      () => actionOf(action.action_id),
      (view) => view.status === 'aborted',
    );
    expect(after.approvals).toHaveLength(1);
    await expectAbortedLedger(action.action_id, { status: 'cancelled', run_id: action.run_id });
    expect(await inboxIds()).not.toContain(action.action_id);
    const stored = app.deps.db.collection<{ _id: string }>('action_inbox');
    expect(await stored.findOne({ _id: action.action_id })).toBeNull();
    expect(await chainCheck()).toMatchObject({ status: 'passed' });
  });

  it('tells subscribers of action.aborted', async () => {
    const context = `ctx-aborted-${Date.now()}`;
    const subscribed = await call<{ payload: { subscription_id: string } }>(
      app.url,
      'POST',
      '/v1/admin/subscriptions/create',
      {
        key: app.adminKey,
        body: {
          name: 'aborted actions',
          url: `${receiverUrl}/aborted`,
          events: ['action.aborted'],
          match: { shared_context_id: context },
        },
      },
    );
    expect(subscribed.status).toBe(201);
    const id = await proposeUpdate(app, proposer, {
      patch: { status: 'published' },
      shared_context_id: context,
    });
    await temporalCliOk(app, [
      ...['workflow', 'terminate', '--workflow-id', `action-${id}`, '--reason', 'tell them'],
    ]);
    const delivered = await eventually(
      async () =>
        (
          await call<{
            payload: { items: { event: string; status: string; data: { status: string } }[] };
          }>(
            app.url,
            'GET',
            `/v1/admin/subscriptions/${subscribed.body.payload.subscription_id}/deliveries`,
            { key: app.adminKey },
          )
        ).body.payload.items,
      (items) => items.some((item) => item.status === 'delivered'),
    );
    expect(delivered).toEqual([
      expect.objectContaining({
        event: 'action.aborted',
        data: expect.objectContaining({ status: 'aborted' }),
      }),
    ]);
  });

  it('terminated while its webhook is in flight: execute answers with the action aborted', async () => {
    const proposed = await call<{ payload: { action_id: string } }>(
      app.url,
      'POST',
      '/v1/external-actions/propose',
      {
        key: proposer.apiKey,
        body: {
          action_kind: 'webhook.post',
          target: { url: `${receiverUrl}/slow` },
          parameters: { body: { event: 'deploy' } },
          bounds: {},
        },
      },
    );
    expect(proposed.status).toBe(201);
    const id = proposed.body.payload.action_id;
    expect((await decide(id, 'approve')).status).toBe(200);
    receiver.delayMs = 20_000;
    const arrived = receiver.arrivals;
    try {
      const executing = decide(id, 'execute');
      await eventually(
        async () => receiver.arrivals,
        (arrivals) => arrivals > arrived,
      );
      await temporalCliOk(app, [
        ...['workflow', 'terminate', '--workflow-id', `action-${id}`, '--reason', 'hold it'],
      ]);
      const answered = await executing;
      expect(answered.status).toBe(200);
      expect(answered.body.payload.status).toBe('aborted');
    } finally {
      receiver.delayMs = 0;
    }
    const ledger = await ledgerOf(id);
    expect(ledger[ledger.length - 1]).toMatchObject({
      event: 'aborted',
      detail: { previous_status: 'executing', temporal: { reason: 'hold it' } },
    });
  });

  it('a process that stopped after the ledger entry is finished by the next one', async () => {
    const action = await awaitingSecondApproval();
    const before = await storedIn(app.deps.db).actions.findOne({ _id: action.action_id });
    await temporalCliOk(app, [
      ...['workflow', 'terminate', '--workflow-id', `action-${action.action_id}`],
    ]);
    await eventually(
      () => actionOf(action.action_id),
      (view) => view.status === 'aborted',
    );
    // As if the process had died between the ledger entry and the projection.
    await storedIn(app.deps.db).actions.replaceOne({ _id: action.action_id }, before!);
    expect((await actionOf(action.action_id)).status).toBe('awaiting_approval');

    const refused = await decide(action.action_id, 'approve', { reason: 'second' });
    expect(refused.status).toBe(409);
    expect(refused.body.error?.status).toBe('aborted');
    const after = await actionOf(action.action_id);
    expect(after.status).toBe('aborted');
    const ledger = await ledgerOf(action.action_id);
    expect(after).toMatchObject({ ledger_head: ledger[ledger.length - 1].digest });
    await expectAbortedLedger(action.action_id, { status: 'terminated' });
    expect(await chainCheck()).toMatchObject({ status: 'passed' });
  });

  it('two api processes reflecting the same termination write one ledger entry', async () => {
    const second = await startTestApp('operator-second', {
      dbName: app.dbName,
      adminKey: app.adminKey,
      env: WATCH,
    });
    try {
      const action = await awaitingSecondApproval();
      await temporalCliOk(app, [
        ...['workflow', 'terminate', '--workflow-id', `action-${action.action_id}`],
        ...['--reason', 'two watchers'],
      ]);
      await eventually(
        () => actionOf(action.action_id),
        (view) => view.status === 'aborted',
      );
      // Both processes' watchers see the run within their overlap window; let them.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await expectAbortedLedger(action.action_id, { status: 'terminated', reason: 'two watchers' });
      expect(await chainCheck()).toMatchObject({ status: 'passed' });
    } finally {
      await second.stop();
    }
  });
});

describe('a reset of an action workflow', () => {
  const reset = async (actionId: string, eventId: string, extra: string[] = []) => {
    const output = await temporalCliOk(app, [
      ...['workflow', 'reset', '--workflow-id', `action-${actionId}`],
      ...['--event-id', eventId, '--reason', 'operator reset', ...extra],
    ]);
    expect(output).toMatch(/Resetting workflow/);
  };

  it('plain: the new run goes on, and the view and its Temporal UI link name the new run', async () => {
    const action = await awaitingSecondApproval();
    // The approval's task is redone in the new run, the approval's update reapplied to it.
    await reset(action.action_id, await lastUpdateTask(app, `action-${action.action_id}`));
    const described = await app.deps.temporal
      .getClient()
      .then((client) => client.workflow.getHandle(`action-${action.action_id}`).describe());
    expect(described.runId).not.toBe(action.run_id);
    const followed = await eventually(
      () => actionOf(action.action_id),
      (view) => view.run_id === described.runId,
    );
    expect(followed.status).toBe('awaiting_approval');
    expect(followed.links.temporal_ui).toContain(`/${described.runId}/history`);

    // The new run takes the second approval, and the api, the ledger and Temporal agree.
    const second = await call<{ payload: ActionView }>(
      app.url,
      'POST',
      `/v1/external-actions/${action.action_id}/approve`,
      {
        key: (await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 })).apiKey,
        body: {},
      },
    );
    expect(second.status).toBe(200);
    expect(second.body.payload.status).toBe('approved');
    expect(second.body.payload.run_id).toBe(described.runId);
    const after = await app.deps.temporal
      .getClient()
      .then((client) => client.workflow.getHandle(`action-${action.action_id}`).describe());
    expect(after.typedSearchAttributes.get(ActionStatusKey)).toBe('approved');
    expect(await chainCheck()).toMatchObject({ status: 'passed' });
  });

  it('excluding updates: the new run that dropped a recorded approval is terminated, and the action ends aborted saying why', async () => {
    const action = await awaitingSecondApproval();
    const eventId = await lastUpdateTask(app, `action-${action.action_id}`);
    await reset(action.action_id, eventId, ['--reapply-exclude', 'Update']);
    const after = await eventually(
      () => actionOf(action.action_id),
      (view) => view.status === 'aborted',
    );
    expect(after.allowed.approve).toBe(false);
    const entry = await expectAbortedLedger(action.action_id, {
      status: 'terminated',
      reason: DIVERGED_RESET_REASON,
    });
    const newRun = (entry.detail['temporal'] as { run_id: string }).run_id;
    expect(newRun).not.toBe(action.run_id);
    expect(after.run_id).toBe(newRun);
    expect(await inboxIds()).not.toContain(action.action_id);
    const refused = await decide(action.action_id, 'approve', { reason: 'second' });
    expect(refused.status).toBe(409);
    expect(await chainCheck()).toMatchObject({ status: 'passed' });
  });
});

describe('deployments, checkpoints and repairs ended from Temporal', () => {
  it('a terminated deployment is failed, naming the termination', async () => {
    const started = await call<{ payload: { deployment_id: string; workflow_id: string } }>(
      idle.url,
      'POST',
      '/v1/substrates/deploy',
      {
        key: idleKey.apiKey,
        body: {
          spec: {
            scaffold: 'life-lattice',
            params: { width: 16, height: 16, rule: 'B3/S23', ticks: 8, pattern: 'glider' },
          },
        },
      },
    );
    expect(started.status).toBe(201);
    const { deployment_id: id, workflow_id: workflowId } = started.body.payload;
    await temporalCliOk(idle, [
      ...['workflow', 'terminate', '--workflow-id', workflowId, '--reason', 'stop the run'],
    ]);
    const failed = await eventually(
      () =>
        get<{ status: string; stage: string; error: string | null }>(
          idle,
          idleKey,
          `/v1/substrates/deployments/${id}`,
        ),
      (view) => view.status !== 'running',
    );
    expect(failed).toMatchObject({ status: 'failed', stage: 'failed' });
    expect(failed.error).toMatch(/was terminated in Temporal by \S+@\S*: stop the run$/);
  });

  it('a terminated checkpoint is failed, naming the termination', async () => {
    const started = await call<{ payload: { checkpoint_id: string; workflow_id: string } }>(
      idle.url,
      'POST',
      '/v1/continuous-ops/checkpoint',
      { key: idleKey.apiKey, body: { scope: ['world'] } },
    );
    expect(started.status).toBe(202);
    const { checkpoint_id: id, workflow_id: workflowId } = started.body.payload;
    await temporalCliOk(idle, ['workflow', 'terminate', '--workflow-id', workflowId]);
    const failed = await eventually(
      () =>
        get<{ status: string; error: string | null }>(
          idle,
          idleKey,
          `/v1/continuous-ops/checkpoints/${id}`,
        ),
      (view) => view.status !== 'running',
    );
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/was terminated in Temporal/);
  });

  it('a terminated repair is failed and frees its object; its child action is aborted', async () => {
    const { repair, child, objectId } = await repairAwaitingApproval();
    await temporalCliOk(app, [
      ...['workflow', 'terminate', '--workflow-id', `repair-${repair}`, '--reason', 'not now'],
    ]);
    const failed = await eventually(
      () => repairOf(repair, objectId),
      (view) => view.status === 'failed',
    );
    expect(failed.error).toMatch(/was terminated in Temporal by \S+@\S*: not now$/);
    expect(failed.ledger_seq).toBeGreaterThanOrEqual(1);
    // The parent close policy terminated the child: it is aborted, out of the inbox.
    const aborted = await eventually(
      () => actionOf(child),
      (view) => view.status === 'aborted',
    );
    expect(aborted.status).toBe('aborted');
    expect(await inboxIds()).not.toContain(child);
    // The object is free: the next repair of it starts.
    const next = await requestRepair(objectId);
    expect(next.status).toBe(202);
  });

  it('a cancelled repair is failed and frees its object; its child action is aborted', async () => {
    const { repair, child, objectId } = await repairAwaitingApproval();
    await temporalCliOk(app, ['workflow', 'cancel', '--workflow-id', `repair-${repair}`]);
    const failed = await eventually(
      () => repairOf(repair, objectId),
      (view) => view.status === 'failed',
    );
    expect(failed.error).toMatch(/was cancelled in Temporal/);
    const aborted = await eventually(
      () => actionOf(child),
      (view) => view.status === 'aborted',
    );
    expect(aborted.status).toBe('aborted');
    expect((await requestRepair(objectId)).status).toBe(202);
  });

  it('a cancelled checkpoint is failed; a cancelled deployment records its own cancellation', async () => {
    const checkpoint = await call<{ payload: { checkpoint_id: string; workflow_id: string } }>(
      idle.url,
      'POST',
      '/v1/continuous-ops/checkpoint',
      { key: idleKey.apiKey, body: { scope: ['world'] } },
    );
    const deployment = await call<{ payload: { deployment_id: string; workflow_id: string } }>(
      idle.url,
      'POST',
      '/v1/substrates/deploy',
      {
        key: idleKey.apiKey,
        body: {
          spec: {
            scaffold: 'life-lattice',
            params: { width: 16, height: 16, rule: 'B3/S23', ticks: 8, pattern: 'glider' },
          },
        },
      },
    );
    for (const started of [checkpoint, deployment]) {
      await temporalCliOk(idle, [
        ...['workflow', 'cancel', '--workflow-id', started.body.payload.workflow_id],
      ]);
    }
    // A worker takes them up with the cancellation already requested.
    const idleWorker = await startTestWorker(idle.deps);
    try {
      const failed = await eventually(
        () =>
          get<{ status: string; error: string | null }>(
            idle,
            idleKey,
            `/v1/continuous-ops/checkpoints/${checkpoint.body.payload.checkpoint_id}`,
          ),
        (view) => view.status !== 'running',
      );
      expect(failed.status).toBe('failed');
      expect(failed.error).toMatch(/was cancelled in Temporal/);
      const cancelled = await eventually(
        () =>
          get<{ status: string; stage: string }>(
            idle,
            idleKey,
            `/v1/substrates/deployments/${deployment.body.payload.deployment_id}`,
          ),
        (view) => view.status !== 'running',
      );
      expect(cancelled).toMatchObject({ status: 'cancelled', stage: 'cancelled' });
    } finally {
      await idleWorker.stop();
    }
  });

  it('a repair whose child action is cancelled ends, freeing its object', async () => {
    const { repair, child, objectId } = await repairAwaitingApproval();
    await temporalCliOk(app, ['workflow', 'cancel', '--workflow-id', `action-${child}`]);
    const ended = await eventually(
      () => repairOf(repair, objectId),
      (view) => ['failed', 'rejected'].includes(view.status),
    );
    expect(ended.status).toBe('failed');
    expect(ended.error).toBe(
      `child action ${child} did not finish: its workflow was cancelled in Temporal`,
    );
    await eventually(
      () => actionOf(child),
      (view) => view.status === 'aborted',
    );
    expect((await requestRepair(objectId)).status).toBe(202);
  });
});

const requestRepair = (objectId: string) => requestRepairOf(app, proposer, objectId);
const repairOf = (repairId: string, objectId: string) =>
  repairViewOf(app, proposer, repairId, objectId);
const repairAwaitingApproval = () => awaitingApproval(app, proposer);
