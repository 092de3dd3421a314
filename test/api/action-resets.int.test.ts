import { ActionStatusKey } from '../../src/workflows/shared.contract';
import { ledgerOfAction, seedObject } from '../helpers/actions';
import { storedIn } from '../helpers/collections';
import { eventually } from '../helpers/eventually';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { lastUpdateTask, temporalCliOk } from '../helpers/temporal-cli';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';

// A final status is final (docs/actions.md, "Resets"): whatever an operator does to an
// action's workflow with the real `temporal` CLI, nothing the ledger has ended happens, a
// decision the ledger contradicts is never taken, and the api, the ledger and the workflow
// end up agreeing.

interface ActionView {
  action_id: string;
  status: string;
  run_id: string;
  approvals: { principal_id: string }[];
  allowed: { approve: boolean; reject: boolean; execute: boolean };
}
let app: TestApp;
let worker: TestWorker;
let ada: TestKey;
let ben: TestKey;
let cat: TestKey;
beforeAll(async () => {
  // The closed-run watcher ticks every 300 ms here.
  app = await startTestApp('action-resets', { env: { SERVICE_MONITOR_INTERVAL_MS: '300' } });
  worker = await startTestWorker(app.deps);
  const strategic = { entitlement: 'strategic', accessLayer: 2 } as const;
  [ada, ben, cat] = await Promise.all([
    createTestKey(app, strategic),
    createTestKey(app, strategic),
    createTestKey(app, strategic),
  ]);
});
afterAll(async () => {
  await worker.stop();
  await app.close();
});

const actionOf = async (id: string) => {
  const res = await call<{ payload: ActionView }>(app.url, 'GET', `/v1/external-actions/${id}`, {
    key: ben.apiKey,
  });
  expect(res.status).toBe(200);
  return res.body.payload;
};
const ledgerOf = (id: string) => ledgerOfAction(app, ben, id);
const decide = (key: TestKey, id: string, decision: 'approve' | 'reject' | 'execute') =>
  call<{ payload: ActionView; error?: { message: string; status?: string } }>(
    app.url,
    'POST',
    `/v1/external-actions/${id}/${decision}`,
    { key: key.apiKey, body: { reason: `${decision} it` } },
  );
const describeRun = async (id: string) =>
  (await app.deps.temporal.getClient()).workflow.getHandle(`action-${id}`).describe();
const cli = (args: string[]) => temporalCliOk(app, args);
const terminate = (id: string) =>
  cli(['workflow', 'terminate', '--workflow-id', `action-${id}`, '--reason', 'operator stop']);
const reset = (id: string, how: string[]) =>
  cli([
    ...['workflow', 'reset', '--workflow-id', `action-${id}`, '--reason', 'operator reset'],
    ...how,
  ]);

/** A new object and, optionally, a rule for it alone; the action proposed on it by ada. */
async function propose(
  rule?: Record<string, unknown>,
  bounds: Record<string, unknown> = {},
): Promise<{ id: string; objectId: string }> {
  const object = await seedObject(app);
  if (rule) {
    const created = await call(app.url, 'POST', '/v1/admin/approval-rules/create', {
      key: app.adminKey,
      body: { name: `for ${object._id}`, match: { target_prefix: object._id }, ...rule },
    });
    expect(created.status).toBe(201);
  }
  const res = await call<{ payload: { action_id: string } }>(
    app.url,
    'POST',
    '/v1/external-actions/propose',
    {
      key: ada.apiKey,
      body: {
        action_kind: 'world.update_object',
        target: { world_object_ref: object._id },
        parameters: { patch: { status: 'published' } },
        bounds: { allowed_fields: ['status'], ...bounds },
      },
    },
  );
  expect(res.status).toBe(201);
  return { id: res.body.payload.action_id, objectId: object._id };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('an aborted action', () => {
  it('reset to its last task after a terminate: the auto-execution never happens, and the run is refused', async () => {
    const { id, objectId } = await propose({
      required_approvals: 1,
      auto_execute: true,
      wait_seconds: 4,
    });
    expect((await decide(ben, id, 'approve')).status).toBe(200);
    await terminate(id);
    await eventually(
      () => actionOf(id),
      (view) => view.status === 'aborted',
    );
    await reset(id, ['--type', 'LastWorkflowTask']);
    // The rule's wait runs out in the new run; its execution is refused by the ledger.
    const refused = await eventually(
      () => ledgerOf(id),
      (ledger) => ledger.some((entry) => entry.event === 'run_refused'),
      20_000,
    );
    const events = refused.map((entry) => entry.event);
    expect(events).not.toContain('executing');
    expect(events).not.toContain('executed');
    const refusal = refused.find((entry) => entry.event === 'run_refused')!;
    expect(refusal).toMatchObject({ status: 'aborted', actor: null });
    expect(refusal.detail['problem']).toMatch(/already aborted/);
    expect(refusal.detail['reset']).toMatchObject({
      reason: expect.stringMatching(/operator reset/),
    });
    const object = await app.deps.repos.worldObjects.findById(objectId);
    expect(object?.attributes).toEqual({ status: 'draft' });
    // The api, the ledger and the workflow agree.
    expect((await actionOf(id)).status).toBe('aborted');
    const run = await eventually(
      () => describeRun(id),
      (described) => described.status.name !== 'RUNNING',
    );
    // Ended by the worker's refusal (failed) or by the api's watcher (terminated), whichever
    // saw it first.
    expect(['FAILED', 'TERMINATED']).toContain(run.status.name);
    expect((await decide(ben, id, 'execute')).status).toBe(409);
  });

  it('terminated: execute is refused by the api, even from its proposer, naming the final status', async () => {
    const { id } = await propose();
    expect((await decide(ben, id, 'approve')).status).toBe(200);
    await terminate(id);
    await eventually(
      () => actionOf(id),
      (view) => view.status === 'aborted',
    );
    await reset(id, ['--type', 'LastWorkflowTask']);
    for (const key of [ada, ben]) {
      const res = await decide(key, id, 'execute');
      expect(res.status).toBe(409);
      expect(res.body.error?.message).toMatch(/aborted/);
    }
    const ledger = await ledgerOf(id);
    expect(ledger.map((entry) => entry.event)).not.toContain('executing');
    // The reset's run of the ended action is refused and ended.
    await eventually(
      () => describeRun(id),
      (described) => described.status.name !== 'RUNNING',
      20_000,
    );
    expect((await ledgerOf(id)).some((entry) => entry.event === 'run_refused')).toBe(true);
  });
});

describe('a rejected action', () => {
  it('reset past its rejection without the update: an approval is refused, and nothing happens', async () => {
    const { id, objectId } = await propose();
    expect((await decide(cat, id, 'reject')).status).toBe(200);
    const eventId = await lastUpdateTask(app, `action-${id}`);
    await reset(id, ['--event-id', eventId, '--reapply-exclude', 'Update']);
    const approved = await decide(ben, id, 'approve');
    expect(approved.status).toBe(409);
    expect(approved.body.error?.message).toMatch(/rejected/);
    const executed = await decide(ben, id, 'execute');
    expect(executed.status).toBe(409);
    expect((await actionOf(id)).status).toBe('rejected');
    // The reset's run of the rejected action is found (no run closed to announce it),
    // refused in the ledger naming who reset it, and ended.
    const run = await eventually(
      () => describeRun(id),
      (described) => described.status.name !== 'RUNNING',
      20_000,
    );
    expect(run.status.name).toBe('TERMINATED');
    const ledger = await ledgerOf(id);
    expect(ledger.map((entry) => entry.event)).not.toContain('approved');
    const refusal = ledger.find((entry) => entry.event === 'run_refused');
    expect(refusal).toMatchObject({ status: 'rejected' });
    expect(refusal?.detail['reset']).toMatchObject({
      reason: expect.stringMatching(/operator reset/),
    });
    expect((await actionOf(id)).status).toBe('rejected');
    const object = await app.deps.repos.worldObjects.findById(objectId);
    expect(object?.attributes).toEqual({ status: 'draft' });
  });
});

describe('a rejected action whose stored status was rewritten', () => {
  it('answers a decision from where its ledger ended it, not from the projection', async () => {
    const { id } = await propose();
    expect((await decide(cat, id, 'reject')).status).toBe(200);
    await storedIn(app.deps.db).actions.updateOne({ _id: id }, { $set: { status: 'approved' } });
    const executed = await decide(ben, id, 'execute');
    expect(executed.status).toBe(409);
    expect(executed.body.error?.message).toMatch(/rejected/);
  });
});

describe('a reset that goes on', () => {
  it('is in the ledger where it took effect: the new run names it on what it records', async () => {
    const { id } = await propose(undefined, { required_approvals: 2 });
    expect((await decide(ben, id, 'approve')).status).toBe(200);
    await reset(id, ['--type', 'LastWorkflowTask']);
    const newRun = (await describeRun(id)).runId;
    await eventually(
      () => actionOf(id),
      (view) => view.run_id === newRun,
    );
    expect((await decide(cat, id, 'approve')).status).toBe(200);
    const ledger = await ledgerOf(id);
    const approved = ledger.find((entry) => entry.event === 'approved')!;
    expect(approved.detail['reset']).toMatchObject({
      reason: expect.stringMatching(/operator reset/),
    });
    // What the first run recorded before the reset names no reset.
    const first = ledger.find((entry) => entry.event === 'approval_recorded')!;
    expect(first.detail['reset']).toBeUndefined();
  });
});

describe('an approved action', () => {
  it('reset to its first task: the run that lost the approval is refused, and the action ends aborted', async () => {
    const { id, objectId } = await propose();
    expect((await decide(ben, id, 'approve')).status).toBe(200);
    await reset(id, ['--type', 'FirstWorkflowTask']);
    const ended = await eventually(
      () => actionOf(id),
      (view) => view.status === 'aborted',
      20_000,
    );
    expect(ended.allowed).toMatchObject({ approve: false, execute: false });
    const ledger = await ledgerOf(id);
    const refusal = ledger.find((entry) => entry.event === 'run_refused')!;
    expect(refusal.detail['problem']).toMatch(/approved at seq 3/);
    expect(ledger[ledger.length - 1]).toMatchObject({ event: 'aborted', status: 'aborted' });
    // Cat's approval cannot stand in for Ben's.
    expect((await decide(cat, id, 'approve')).status).toBe(409);
    const run = await eventually(
      () => describeRun(id),
      (described) => described.status.name !== 'RUNNING',
    );
    expect(run.typedSearchAttributes.get(ActionStatusKey)).toBe('aborted');
    await sleep(500);
    const object = await app.deps.repos.worldObjects.findById(objectId);
    expect(object?.attributes).toEqual({ status: 'draft' });
  });
});
