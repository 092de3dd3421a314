import type { Client } from '@temporalio/client';
import { newId } from '../../../src/lib/ids';
import {
  actionWorkflowId,
  planSettledUpdate,
  type ActionWorkflowInput,
} from '../../../src/workflows/external-action.contract';
import { proposeUpdate, seedObject } from '../../helpers/actions';
import { storedIn } from '../../helpers/collections';
import { eventually } from '../../helpers/eventually';
import { call } from '../../helpers/http';
import { createTestKey, type TestKey } from '../../helpers/keys';
import { temporalCliOk, updateTask } from '../../helpers/temporal-cli';
import { startTestApp, type TestApp } from '../../helpers/test-app';
import { startTestWorker, type TestWorker } from '../../helpers/test-worker';
import { WebhookReceiver } from '../../helpers/webhook-receiver';
import { sendUpdateWithCli } from './forged-update';
import { saveHistory } from './save-history';
import { signedNotifyInput } from '../../helpers/signed-actions';

// Every status path of externalActionWorkflow, driven through the api as people drive it.
interface ActionView {
  action_id: string;
  status: string;
}

const receiver = new WebhookReceiver();
let receiverUrl: string;
let app: TestApp;
let worker: TestWorker;
let client: Client;
let proposer: TestKey;
let alice: TestKey;
let bob: TestKey;
beforeAll(async () => {
  receiverUrl = await receiver.start();
  app = await startTestApp('capture_actions', { env: { WEBHOOK_ALLOWLIST: receiverUrl } });
  worker = await startTestWorker(app.deps);
  client = await app.deps.temporal.getClient();
  const strategic = { entitlement: 'strategic', accessLayer: 2 } as const;
  [proposer, alice, bob] = await Promise.all([
    createTestKey(app, strategic),
    createTestKey(app, strategic),
    createTestKey(app, strategic),
  ]);
});
afterAll(async () => {
  await worker.stop();
  await app.close();
  await receiver.stop();
});

async function decide(id: string, decision: string, key: TestKey, body = {}): Promise<string> {
  const res = await call<{ payload: ActionView }>(
    app.url,
    'POST',
    `/v1/external-actions/${id}/${decision}`,
    { key: key.apiKey, body },
  );
  if (res.status !== 200) throw new Error(`${decision} ${id}: ${res.status} ${res.text}`);
  return res.body.payload.status;
}

async function propose(body: Record<string, unknown>): Promise<string> {
  const res = await call<{ payload: ActionView }>(app.url, 'POST', '/v1/external-actions/propose', {
    key: proposer.apiKey,
    body: { bounds: {}, ...body },
  });
  if (res.status !== 201) throw new Error(`propose: ${res.status} ${res.text}`);
  return res.body.payload.action_id;
}

const save = (name: string, actionId: string) =>
  saveHistory(client, name, actionWorkflowId(actionId));

describe('externalActionWorkflow histories', () => {
  it('executed: one approval, then execute', async () => {
    const id = await proposeUpdate(app, proposer, { patch: { status: 'published' } });
    await decide(id, 'approve', alice, { reason: 'fine' });
    expect(await decide(id, 'execute', alice)).toBe('executed');
    await save('executed', id);
  });

  it('executed by itself under a rule of two approvals, a wait and auto_execute', async () => {
    const context = `ctx-capture-${newId('tsk')}`;
    const rule = await call(app.url, 'POST', '/v1/admin/approval-rules/create', {
      key: app.adminKey,
      body: {
        name: 'two approvals, a cool-off, then by itself',
        match: { shared_context_id: context },
        required_approvals: 2,
        wait_seconds: 2,
        auto_execute: true,
      },
    });
    expect(rule.status).toBe(201);
    const id = await proposeUpdate(app, proposer, {
      patch: { status: 'published' },
      shared_context_id: context,
    });
    expect(await decide(id, 'approve', alice)).toBe('awaiting_approval');
    expect(await decide(id, 'approve', bob)).toBe('approved');
    const { result } = await save('rule-two-approvals-wait-auto-execute', id);
    expect(result).toMatchObject({ status: 'executed', approvals: [{}, {}] });
  });

  it('rejected', async () => {
    const id = await proposeUpdate(app, proposer, { patch: { status: 'published' } });
    expect(await decide(id, 'reject', alice, { reason: 'not now' })).toBe('rejected');
    await save('rejected', id);
  });

  it('expired: nobody decided within a short window', async () => {
    // The api's shortest window is a minute; the workflow itself takes any.
    // Signed as the api signs what it proposes: the worker runs nothing else.
    const input = signedNotifyInput(app.deps.decisionSigner, proposer, 'short-lived', 2);
    const actionId = input.action_id;
    const handle = await client.workflow.start('externalActionWorkflow', {
      workflowId: actionWorkflowId(actionId),
      taskQueue: app.deps.config.taskQueue,
      args: [input],
    });
    await handle.executeUpdate(planSettledUpdate);
    expect((await save('expired', actionId)).result).toMatchObject({ status: 'expired' });
  });

  it('dry_run_failed: the patch leaves its allowed fields', async () => {
    const id = await proposeUpdate(app, proposer, {
      patch: { owner: 'eve' },
      bounds: { allowed_fields: ['status'] },
    });
    expect((await save('dry-run-failed', id)).result).toMatchObject({ status: 'dry_run_failed' });
  });

  it('failed: the object changed between approval and execute (plan drift)', async () => {
    const object = await seedObject(app);
    const id = await propose({
      action_kind: 'world.update_object',
      target: { world_object_ref: object._id },
      parameters: { patch: { status: 'published' } },
      bounds: { allowed_fields: ['status'] },
    });
    await decide(id, 'approve', alice);
    await storedIn(app.deps.db).worldObjects.updateOne(
      { _id: object._id },
      { $set: { 'attributes.status': 'archived' }, $inc: { version: 1 } },
    );
    expect(await decide(id, 'execute', alice)).toBe('failed');
    await save('failed-plan-drift', id);
  });

  it('refuses a forged (unsigned) approval sent with the temporal CLI, then executes', async () => {
    const id = await proposeUpdate(app, proposer, { patch: { status: 'published' } });
    const forged = await sendUpdateWithCli(
      app.deps.config.temporalAddress,
      actionWorkflowId(id),
      'approve',
      { principal_id: 'prn_forged00000000000000000000', key_id: '000000000000' },
    );
    expect(forged.code).not.toBe(0);
    expect(forged.output).toMatch(/not signed by the api/);
    await decide(id, 'approve', alice);
    expect(await decide(id, 'execute', alice)).toBe('executed');
    const { result } = await save('forged-approval-refused-then-executed', id);
    expect(result).toMatchObject({ status: 'executed', refused_decisions: 1 });
  });

  it('refused: a start input the api did not sign (a forged start)', async () => {
    const actionId = newId('act');
    const forged: ActionWorkflowInput = {
      action_id: actionId,
      contract: {
        action_kind: 'notify',
        target: {},
        parameters: { message: 'forged' },
        bounds: { allowed_fields: [], expires_in_seconds: 60, required_approvals: 1 },
        shared_context_id: null,
        reason: null,
      },
      proposed_by: { principal_id: proposer.principalId, key_id: proposer.keyId },
      created_at: new Date().toISOString(),
    };
    await client.workflow.start('externalActionWorkflow', {
      workflowId: actionWorkflowId(actionId),
      taskQueue: app.deps.config.taskQueue,
      args: [forged],
    });
    await save('refused-unsigned-start', actionId);
    expect(await app.deps.repos.externalActions.findById(actionId)).toBeNull();
  });

  it('executed: a webhook.post', async () => {
    const id = await propose({
      action_kind: 'webhook.post',
      target: { url: `${receiverUrl}/capture` },
      parameters: { event: 'deploy', version: 7 },
    });
    await decide(id, 'approve', alice);
    expect(await decide(id, 'execute', alice)).toBe('executed');
    await save('webhook-post-executed', id);
  });

  it('a webhook.post reset to the task that took its approval while its POST was in flight', async () => {
    const id = await propose({
      action_kind: 'webhook.post',
      target: { url: `${receiverUrl}/capture` },
      parameters: { event: 'deploy', version: 8 },
    });
    await decide(id, 'approve', alice);
    receiver.delayMs = 2000;
    const arrived = receiver.arrivals;
    // Its answer comes from the run the reset replaces, or not at all: the ledger tells.
    const executing = decide(id, 'execute', alice).catch(() => null);
    await eventually(
      async () => receiver.arrivals,
      (arrivals) => arrivals > arrived,
    );
    const workflowId = actionWorkflowId(id);
    await temporalCliOk(app, [
      ...['workflow', 'reset', '--workflow-id', workflowId, '--reason', 'capture: mid-effect'],
      ...['--event-id', await updateTask(app, workflowId, 'approve')],
    ]);
    await executing;
    await save('webhook-post-reset-mid-effect-to-approval', id);
    receiver.delayMs = 0;
  });

  it('executed: a notify', async () => {
    const id = await propose({
      action_kind: 'notify',
      target: {},
      parameters: { message: 'Deploy at 5', channel: 'ops' },
    });
    await decide(id, 'approve', alice);
    expect(await decide(id, 'execute', alice)).toBe('executed');
    await save('notify-executed', id);
  });
});
