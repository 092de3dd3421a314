import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter, WorkflowFailedError } from '@temporalio/client';
import { createDecisionSigner } from '../../src/auth/decision-signer';
import { newId } from '../../src/lib/ids';
import {
  actionWorkflowId,
  proposalClaimOf,
  type ActionWorkflowInput,
} from '../../src/workflows/external-action.contract';
import { proposeUpdate } from '../helpers/actions';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { temporalCli } from '../helpers/temporal-cli';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';

// Issue 29's attacks, as someone who reaches the Temporal server (the real `temporal` CLI)
// but holds no API key and not the api's signing key: nothing they start or send changes
// the world or shows in the api as an action, and each attempt is reported.

let app: TestApp;
let worker: TestWorker;
let proposer: TestKey;
let approver: TestKey;
beforeAll(async () => {
  app = await startTestApp('trust_boundary');
  worker = await startTestWorker(app.deps);
  proposer = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
  approver = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
});
afterAll(async () => {
  await worker.stop();
  await app.close();
});

const temporal = (...args: string[]) => temporalCli(app, args);

/** `temporal workflow start` of an action workflow with this input under this id. */
const startForged = (workflowId: string, input: unknown) =>
  temporal(
    ...['workflow', 'start', '--type', 'externalActionWorkflow', '--workflow-id', workflowId],
    ...['--task-queue', app.deps.config.taskQueue, '--input', JSON.stringify(input)],
  );

/** How the forged workflow ended: its failure message (it must fail). */
async function failureOf(workflowId: string): Promise<string> {
  const client = await app.deps.temporal.getClient();
  try {
    await client.workflow.getHandle(workflowId).result();
  } catch (error) {
    if (!(error instanceof WorkflowFailedError)) throw error;
    return error.cause?.message ?? error.message;
  }
  throw new Error(`${workflowId} completed`);
}

/** A real action's start input, as `temporal workflow show` gives it to anyone. */
async function startInputOf(actionId: string): Promise<ActionWorkflowInput> {
  const client = await app.deps.temporal.getClient();
  const history = await client.workflow.getHandle(actionWorkflowId(actionId)).fetchHistory();
  const started = history.events![0].workflowExecutionStartedEventAttributes!;
  return defaultPayloadConverter.fromPayload(started.input!.payloads![0]);
}

const objectOf = async (id: string) => app.deps.repos.worldObjects.findById(id);
const actionView = (id: string) =>
  call<{ payload: { status: string; refused_decisions?: number } }>(
    app.url,
    'GET',
    `/v1/external-actions/${id}`,
    { key: approver.apiKey },
  );
const securityEvents = async (kind: string) =>
  (
    await call<{ payload: { items: { kind: string; detail: Record<string, unknown> }[] } }>(
      app.url,
      'GET',
      `/v1/admin/service-events?kind=${kind}&limit=100`,
      { key: app.adminKey },
    )
  ).body.payload.items;

/** An action awaiting approval, its object, and the input its workflow started with. */
async function realAction() {
  const actionId = await proposeUpdate(app, proposer, { patch: { status: 'published' } });
  const input = await startInputOf(actionId);
  return { actionId, input, objectId: input.contract.target.world_object_ref! };
}

describe('a workflow started around the api', () => {
  it('under a made-up id, unsigned: refused before anything is recorded, and reported', async () => {
    const { input, objectId } = await realAction();
    const actionId = newId('act');
    const forged = {
      ...input,
      action_id: actionId,
      proposal_signature: undefined,
      contract: { ...input.contract, parameters: { patch: { status: 'hacked' } } },
    };
    expect((await startForged(actionWorkflowId(actionId), forged)).code).toBe(0);
    await temporal(
      ...['workflow', 'update', 'execute', '--workflow-id', actionWorkflowId(actionId)],
      ...['--name', 'approve', '--input', JSON.stringify({ principal_id: 'prn_ben' })],
    );

    expect(await failureOf(actionWorkflowId(actionId))).toMatch(/not signed by the api/);
    expect((await actionView(actionId)).status).toBe(404);
    expect(
      (await app.deps.repos.externalActions.listLedger({ action_id: actionId }, 10)).items,
    ).toEqual([]);
    expect((await objectOf(objectId))?.attributes['status']).toBe('draft');
    const reported = await securityEvents('security.unsigned_proposal');
    expect(reported.some((e) => e.detail['action_id'] === actionId)).toBe(true);
  });

  it('a real proposal edited and restarted under its own id: refused, the world untouched', async () => {
    const { actionId, input, objectId } = await realAction();
    expect(
      (await temporal('workflow', 'terminate', '-w', actionWorkflowId(actionId), '--reason', 'x'))
        .code,
    ).toBe(0);
    const edited = {
      ...input,
      contract: { ...input.contract, parameters: { patch: { status: 'hacked' } } },
    };
    expect((await startForged(actionWorkflowId(actionId), edited)).code).toBe(0);
    expect(await failureOf(actionWorkflowId(actionId))).toMatch(
      /signature does not match the proposal/,
    );
    expect((await objectOf(objectId))?.attributes['status']).toBe('draft');
  });

  it('a real proposal replayed unedited under its own id: refused as a replay', async () => {
    const { actionId, input } = await realAction();
    await temporal('workflow', 'terminate', '-w', actionWorkflowId(actionId), '--reason', 'x');
    expect((await startForged(actionWorkflowId(actionId), input)).code).toBe(0);
    expect(await failureOf(actionWorkflowId(actionId))).toMatch(/replayed proposal/);
  });

  it("a real proposal under another action's workflow id: refused", async () => {
    const { input } = await realAction();
    const other = actionWorkflowId(newId('act'));
    expect((await startForged(other, input)).code).toBe(0);
    expect(await failureOf(other)).toMatch(/is not the workflow of action/);
  });

  it('a proposal signed with a key the worker does not accept: refused', async () => {
    const { input } = await realAction();
    const actionId = newId('act');
    const claim = { ...input, action_id: actionId, proposal_signature: undefined };
    const foreign = createDecisionSigner(randomBytes(32));
    const forged = {
      ...claim,
      proposal_signature: foreign.signClaim('proposal', proposalClaimOf(claim)),
    };
    expect((await startForged(actionWorkflowId(actionId), forged)).code).toBe(0);
    expect(await failureOf(actionWorkflowId(actionId))).toMatch(/does not accept/);
    expect((await actionView(actionId)).status).toBe(404);
  });
});

describe('decisions sent around the api', () => {
  it('one signed with a foreign key is refused and recorded', async () => {
    const { actionId, input } = await realAction();
    const foreign = createDecisionSigner(randomBytes(32));
    const claim = {
      action_id: actionId,
      decision: 'approve' as const,
      principal_id: approver.principalId,
      key_id: approver.keyId,
      role: 'member',
      plan_digest: input.plan_digest ?? null,
      reason: null,
    };
    const sent = await temporal(
      ...['workflow', 'update', 'execute', '--workflow-id', actionWorkflowId(actionId)],
      ...['--name', 'approve', '--input', JSON.stringify({ ...claim, ...foreign.sign(claim) })],
    );
    expect(sent.code).not.toBe(0);
    expect(sent.output).toMatch(/does not accept/);
    expect((await actionView(actionId)).body.payload).toMatchObject({
      status: 'awaiting_approval',
      refused_decisions: 1,
    });
  });

  it('25 junk refusals, then a real refusal: every one traced (20 entries, then aggregates)', async () => {
    const { actionId } = await realAction();
    const send = (principal: string) =>
      temporal(
        ...['workflow', 'update', 'execute', '--workflow-id', actionWorkflowId(actionId)],
        ...['--name', 'approve', '--input', JSON.stringify({ principal_id: principal })],
      );
    for (let i = 0; i < 25; i += 1) await send(`prn_junk${i}`);
    await send('prn_the_real_one');
    // The action moves on; the refusals not yet in the ledger go in before its new status.
    const rejected = await call<{ payload: { status: string } }>(
      app.url,
      'POST',
      `/v1/external-actions/${actionId}/reject`,
      { key: approver.apiKey, body: { reason: 'no' } },
    );
    expect(rejected.body.payload.status).toBe('rejected');

    const ledger = (
      await app.deps.repos.externalActions.listLedger({ action_id: actionId }, 100)
    ).items.sort((a, b) => a.seq - b.seq);
    expect(ledger.filter((e) => e.event === 'decision_refused')).toHaveLength(20);
    const aggregates = ledger.filter((e) => e.event === 'decisions_refused');
    expect(aggregates.map((e) => e.detail['count'])).toEqual([21, 26]);
    expect(aggregates[1].detail).toMatchObject({
      since_last_entry: 5,
      last: { claimed_by: { principal_id: 'prn_the_real_one' } },
    });
    // Before the rejection, not after it.
    expect(ledger.findIndex((e) => e === aggregates[1])).toBeLessThan(
      ledger.findIndex((e) => e.event === 'rejected'),
    );
    expect((await actionView(actionId)).body.payload.refused_decisions).toBe(26);
  });
});

describe('the ledger', () => {
  it('stamps each entry when it happened and orders an action by its sequence (12+ entries)', async () => {
    const actionId = await proposeUpdate(app, proposer, {
      patch: { status: 'published' },
      bounds: { required_approvals: 2 },
    });
    const client = await app.deps.temporal.getClient();
    const handle = client.workflow.getHandle(actionWorkflowId(actionId));
    for (let i = 0; i < 10; i += 1) {
      await handle
        .executeUpdate('approve', { args: [{ principal_id: `prn_junk${i}`, key_id: 'x' }] })
        .catch(() => undefined);
    }
    const second = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
    const approve = (key: TestKey) =>
      call(app.url, 'POST', `/v1/external-actions/${actionId}/approve`, {
        key: key.apiKey,
        body: {},
      });
    expect((await approve(approver)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await approve(second)).status).toBe(200);

    const page = await call<{
      payload: { items: { entry_id: string; seq: number; at: string; event: string }[] };
    }>(app.url, 'GET', `/v1/external-actions/history?action_id=${actionId}&limit=50`, {
      key: approver.apiKey,
    });
    const items = page.body.payload.items;
    expect(items.length).toBeGreaterThanOrEqual(14);
    // Newest first, by sequence: `…:14` before `…:9`.
    expect(items.map((e) => e.seq)).toEqual(
      Array.from({ length: items.length }, (_, i) => items.length - i),
    );
    const at = (event: string) => Date.parse(items.find((e) => e.event === event)!.at);
    expect(at('approved') - at('approval_recorded')).toBeGreaterThanOrEqual(1000);
    const refusals = items.filter((e) => e.event === 'decision_refused').map((e) => e.at);
    expect(Math.min(...refusals.map(Date.parse))).toBeGreaterThan(at('awaiting_approval'));
    // Pages continue in the same order.
    const first = await call<{
      payload: { items: { seq: number }[]; next_cursor: string | null };
    }>(app.url, 'GET', `/v1/external-actions/history?action_id=${actionId}&limit=5`, {
      key: approver.apiKey,
    });
    const rest = await call<{ payload: { items: { seq: number }[] } }>(
      app.url,
      'GET',
      `/v1/external-actions/history?action_id=${actionId}&limit=50&cursor=${first.body.payload.next_cursor}`,
      { key: approver.apiKey },
    );
    expect([...first.body.payload.items, ...rest.body.payload.items].map((e) => e.seq)).toEqual(
      items.map((e) => e.seq),
    );
  });
});

describe('proofs', () => {
  it('decisions_signed passes over real executions, and names an execution whose ledger lost a signature', async () => {
    const actionId = await proposeUpdate(app, proposer, { patch: { status: 'published' } });
    for (const decision of ['approve', 'execute']) {
      const res = await call<{ payload: { status: string } }>(
        app.url,
        'POST',
        `/v1/external-actions/${actionId}/${decision}`,
        { key: approver.apiKey, body: {} },
      );
      expect(res.status).toBe(200);
    }
    const check = async () =>
      (
        await call<{
          payload: {
            results: {
              name: string;
              status: string;
              violations: { record_id: string; problem: string }[];
            }[];
          };
        }>(app.url, 'POST', '/v1/proofs/checks', {
          key: app.adminKey,
          body: { checks: ['decisions_signed'] },
        })
      ).body.payload;
    const passed = await check();
    expect(passed.results[0]).toMatchObject({ name: 'decisions_signed', status: 'passed' });

    // Someone with database access strips the approval's signature from the ledger.
    const ledger = app.deps.db.collection('action_ledger');
    await ledger.updateOne(
      { action_id: actionId, event: 'approved' },
      { $set: { 'detail.decision.signature': '00'.repeat(64) } },
    );
    const failed = await check();
    expect(failed.results[0].status).toBe('failed');
    expect(failed.results[0].violations[0].problem).toMatch(/signature does not match/);
  });
});
