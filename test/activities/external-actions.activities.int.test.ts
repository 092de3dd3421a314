import { testSealedRecords } from '../helpers/sealed-records';
import { randomBytes } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { MongoClient } from 'mongodb';
import {
  createActionActivities,
  type OpenedProposal,
} from '../../src/activities/external-actions.activities';
import { createTransitionRecorder } from '../../src/domain/external-actions/record-transitions';
import { createRepos } from '../../src/store';
import type {
  ActionContract,
  ActionPlan,
  ActionState,
  ActionStatus,
} from '../../src/workflows/external-action.contract';
import { signedDecision, signedInput, signingWorld, stateOf } from '../helpers/signed-actions';
import { testMongoUri } from '../test-env';

// Found by `npm run chaos` (docs/chaos.md): a worker died after its execution had applied a
// world change but before the workflow recorded it; the retried execute re-planned, saw the
// object moved (by the action itself) and failed the action as `plan_drift`, although its
// change stood. The re-plan now recognises the action's own change, and applying the
// approved plan again changes nothing.
const client = new MongoClient(testMongoUri());
const db = client.db(`t_action_acts_${randomBytes(3).toString('hex')}`);
const repos = createRepos(db, testSealedRecords());
const { signer, trust, reported } = signingWorld();
const activities = createActionActivities({
  repos,
  webhookAllowlist: [],
  webhookSigningSecret: 'x'.repeat(32),
  webhookTimeoutMs: 1000,
  trust,
});

afterAll(async () => {
  await db.dropDatabase();
  await client.close();
});

/**
 * The state as its ledger has it executing (the effect acts only on what the ledger says):
 * its `executing` entry written, and the state's head at it.
 */
async function executingInLedger(state: ActionState): Promise<ActionState> {
  const at = { ...state, seq: 1, ledger_head: null };
  const head = await createTransitionRecorder({ repos, ledgerSeal: trust.ledgerSeal })([
    { state: at, event: 'executing', actor: null, detail: {} },
  ]);
  return { ...at, ledger_head: head };
}

/** A world object switched off at version 1, and the contract that switches it on. */
async function switchedOn(name: string) {
  const now = new Date().toISOString();
  const objectId = `obj_${randomBytes(8).toString('hex').toUpperCase().slice(0, 26)}`;
  await repos.worldObjects.insert({
    _id: objectId,
    kind: 'service',
    name,
    attributes: { status: 'off' },
    external_state: {},
    version: 1,
    created_at: now,
    updated_at: now,
  });
  const contract: ActionContract = {
    action_kind: 'world.update_object',
    target: { world_object_ref: objectId },
    parameters: { patch: { status: 'on' } },
    bounds: { allowed_fields: ['status'], expires_in_seconds: 3600, required_approvals: 1 },
    shared_context_id: null,
    reason: null,
  };
  return { objectId, contract, now };
}

describe('external action activities: an execution that already took effect', () => {
  it('re-plans as already applied, and applying the approved plan again is a no-op', async () => {
    const { objectId, contract } = await switchedOn('Lamp');
    const actionId = 'act_01TESTALREADYAPPLIED00001';
    const approved = await activities.planActionContract(contract, { actionId });
    expect(approved.ok).toBe(true);
    expect(approved.already_applied).toBeUndefined();

    const input = signedInput(signer, { action_id: actionId, contract });
    const state: ActionState = await executingInLedger(
      stateOf(input, {
        status: 'executing',
        decisions: [
          signedDecision(signer, actionId, 'approve', 'prn_approver', approved.plan_digest),
          signedDecision(signer, actionId, 'execute', 'prn_approver', null),
        ],
      }),
    );
    await activities.applyAction({ state, plan: approved });
    expect((await repos.worldObjects.findById(objectId))?.version).toBe(2);

    // The retried execute's re-plan: the object moved, but by this very action.
    const replan = await activities.planActionContract(contract, { actionId });
    expect(replan.plan_digest).not.toBe(approved.plan_digest);
    expect(replan.already_applied).toBe(true);
    // Another action's re-plan of the same object is drift, as before.
    const other = await activities.planActionContract(contract, { actionId: 'act_other' });
    expect(other.already_applied).toBeUndefined();

    // Applying the approved plan again answers the same result and writes nothing.
    await expect(activities.applyAction({ state, plan: approved })).resolves.toEqual({
      object_id: objectId,
      version: 2,
    });
    const object = await repos.worldObjects.findById(objectId);
    expect(object?.version).toBe(2);
    expect(object?.attributes).toEqual({ status: 'on' });
    const history = await repos.worldHistory.list(
      { object_id: objectId, kind: 'object.updated' },
      10,
    );
    expect(history.items.filter((e) => e.change['action_id'] === actionId)).toHaveLength(1);
  });
});

// The effect re-plans before it acts and is the only re-plan before it (the workflow no
// longer makes one of its own): a plan the world or policy moved is refused saying how, as
// the workflow records it, and is not reported as a forgery.
describe('external action activities: an effect whose plan moved', () => {
  const approvedState = (actionId: string, contract: ActionContract, planDigest: string) =>
    stateOf(signedInput(signer, { action_id: actionId, contract }), {
      status: 'executing',
      decisions: [
        signedDecision(signer, actionId, 'approve', 'prn_approver', planDigest),
        signedDecision(signer, actionId, 'execute', 'prn_approver', null),
      ],
    });
  /** Applies the approved plan: refused as `type`, naming the plan made now, not reported. */
  const expectRefused = async (
    type: string,
    actionId: string,
    contract: ActionContract,
    approved: ActionPlan,
    replan: ActionPlan,
  ) => {
    const before = reported.length;
    const failure = await activities
      .applyAction({
        state: await executingInLedger(approvedState(actionId, contract, approved.plan_digest)),
        plan: approved,
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(failure).toBeInstanceOf(ApplicationFailure);
    const { nonRetryable, details } = failure as ApplicationFailure;
    expect({ type: (failure as ApplicationFailure).type, nonRetryable, details }).toEqual({
      type,
      nonRetryable: true,
      details: [{ replanned_digest: replan.plan_digest, reasons: replan.policy.reasons }],
    });
    expect(reported.length).toBe(before);
  };

  it('refuses drift as PlanDrift with the plan made now', async () => {
    const { objectId, contract, now } = await switchedOn('Fan');
    const actionId = `act_01TESTDRIFT${randomBytes(7).toString('hex').toUpperCase()}`;
    const approved = await activities.planActionContract(contract, { actionId });
    await repos.worldObjects.patchAtVersion(objectId, 1, { status: 'broken' }, 'act_other', now);
    const replan = await activities.planActionContract(contract, { actionId });
    expect(replan.plan_digest).not.toBe(approved.plan_digest);

    await expectRefused('PlanDrift', actionId, contract, approved, replan);
    expect((await repos.worldObjects.findById(objectId))?.attributes).toEqual({
      status: 'broken',
    });
  });

  it('refuses a plan policy now denies as PolicyDenied with its reasons', async () => {
    const contract: ActionContract = {
      action_kind: 'webhook.post',
      target: { url: 'https://hooks.example.test/deploy' },
      parameters: { body: { version: 1 } },
      bounds: { allowed_fields: [], expires_in_seconds: 3600, required_approvals: 1 },
      shared_context_id: null,
      reason: null,
    };
    // Approved while the host was allowed; the worker's allowlist no longer has it.
    const allowing = createActionActivities({
      repos,
      webhookAllowlist: ['https://hooks.example.test/'],
      webhookSigningSecret: 'x'.repeat(32),
      webhookTimeoutMs: 1000,
      trust,
    });
    const actionId = `act_01TESTDENIED${randomBytes(7).toString('hex').toUpperCase()}`;
    const approved = await allowing.planActionContract(contract, { actionId });
    expect(approved.ok).toBe(true);
    const replan = await activities.planActionContract(contract, { actionId });
    expect(replan.ok).toBe(false);
    expect(replan.policy.reasons.length).toBeGreaterThan(0);

    await expectRefused('PolicyDenied', actionId, contract, approved, replan);
  });
});

// The action workflow records transitions in batches: the ledger entries chained in order,
// one projection of the last, one witness slot for all. A retry changes nothing stored.
describe('external action activities: recording transitions', () => {
  const actionId = `act_01TESTRECORDS${randomBytes(6).toString('hex').toUpperCase()}`;
  const at = new Date().toISOString();
  const input = signedInput(signer, {
    action_id: actionId,
    contract: {
      action_kind: 'notify',
      target: {},
      parameters: { message: 'hi' },
      bounds: { allowed_fields: [], required_approvals: 1, expires_in_seconds: 3600 },
      shared_context_id: null,
      reason: null,
    },
    proposed_by: { principal_id: 'prn_a', key_id: 'k1' },
  });
  const approval = signedDecision(signer, actionId, 'approve', 'prn_b', null);
  const stateAt = (seq: number, status: ActionStatus, ledgerHead: string | null) =>
    stateOf(input, {
      status,
      status_timestamps: { [status]: at },
      decisions: status === 'approved' ? [approval] : [],
      approvals: status === 'approved' ? [approval] : [],
      expires_at: at,
      created_at: at,
      updated_at: at,
      seq,
      ledger_head: ledgerHead,
    });
  const proposal = (ledgerHead: string | null) => [
    { state: stateAt(1, 'proposed', ledgerHead), event: 'proposed', actor: null },
    { state: stateAt(2, 'awaiting_approval', ledgerHead), event: 'awaiting_approval', actor: null },
  ];

  it('chains a batch in the ledger, projects the last and journals them in one slot', async () => {
    const before = await repos.witnessJournal.head();
    const head = await activities.recordActionTransitions(proposal(null));

    const ledger = await repos.externalActions.listLedger({ action_id: actionId }, 10);
    const [second, first] = ledger.items;
    expect(ledger.items.map((e) => e.seq)).toEqual([2, 1]);
    expect(first.prev_digest).toBeNull();
    expect(second.prev_digest).toBe(first.digest);
    expect(head).toBe(second.digest);
    expect(await repos.externalActions.findById(actionId)).toMatchObject({
      seq: 2,
      status: 'awaiting_approval',
      ledger_head: head,
    });
    expect((await repos.actionInbox.page({}, 10)).map((e) => e.record._id)).toEqual([actionId]);

    expect(await repos.witnessJournal.head()).toBe(before + 1);
    const tail = await repos.witnessJournal.after(before);
    if (!tail.complete) throw new Error('journal incomplete');
    expect(tail.entries[0].records.map((r) => r.kind)).toEqual(['ledger', 'ledger', 'action']);
  });

  it('a late retry answers the stored head and does not take a newer projection back', async () => {
    const head = (await repos.externalActions.findById(actionId))!.ledger_head;
    const approved = stateAt(3, 'approved', head);
    const newest = await activities.recordActionTransitions([
      { state: approved, event: 'approved', actor: null },
    ]);
    // The proposal batch again, as a retry would send it: nothing stored changes.
    await expect(activities.recordActionTransitions(proposal(null))).resolves.toBe(head);
    expect(await repos.externalActions.findById(actionId)).toMatchObject({
      seq: 3,
      status: 'approved',
      ledger_head: newest,
    });
    expect((await repos.actionInbox.page({}, 10)).map((e) => e.record._id)).toEqual([]);
  });
});

describe('external action activities: opening in the lean shape', () => {
  it('records the proposal and its plan, and a retry of its own run goes on (even past a final status)', async () => {
    const actionId = `act_${randomBytes(8).toString('hex').toUpperCase().slice(0, 26)}`;
    const input = signedInput(signer, {
      action_id: actionId,
      contract: {
        // A host off the allow-list: the dry run fails, which ends the action at once.
        action_kind: 'webhook.post',
        target: { url: 'https://off-the-list.invalid/hook' },
        parameters: {},
        bounds: { allowed_fields: [], expires_in_seconds: 3600, required_approvals: 1 },
        shared_context_id: null,
        reason: null,
      },
    });
    const run = { workflowId: `action-${actionId}`, runId: 'run-1' };
    const open = (): Promise<OpenedProposal> =>
      new MockActivityEnvironment({ workflowExecution: run }).run(
        (...args: Parameters<typeof activities.openActionProposal>) =>
          activities.openActionProposal(...args),
        input,
        { first_run_id: 'run-1', record_at: input.created_at },
      );
    const first = await open();
    if (!first.trusted) throw new Error(first.problem);
    expect(first.recorded_head).toMatch(/^sha256:/);
    // The activity's answer was lost (its worker died after it recorded): a retry by the
    // same run finds the entries it wrote, which is no reopening.
    const again = await open();
    expect(again).toMatchObject({ trusted: true, recorded_head: first.recorded_head });
    const ledger = await repos.externalActions.entriesFrom(actionId, 1);
    expect(ledger.map((entry) => [entry.seq, entry.event])).toEqual([
      [1, 'proposed'],
      [2, 'dry_run_failed'],
    ]);
    expect((await repos.externalActions.findById(actionId))?.status).toBe('dry_run_failed');
  });
});

// Whoever holds the database deleted what followed an action's `executing` entry (its
// `executed`), and a reset's run came to the effect again. The ledger agrees with the run;
// the signed checkpoint of the deleted entry, outside the database, does not, and the effect
// reads the checkpoints first (docs/actions.md, "Resets").
describe('external action activities: an effect whose ledger was cut after a checkpoint', () => {
  it('is refused before it acts, reported, and nothing is recorded', async () => {
    const { objectId, contract } = await switchedOn('Heater');
    const actionId = `act_01TESTCUT${randomBytes(8).toString('hex').toUpperCase()}`;
    const approved = await activities.planActionContract(contract, { actionId });
    const state = await executingInLedger(
      stateOf(signedInput(signer, { action_id: actionId, contract }), {
        status: 'executing',
        decisions: [
          signedDecision(signer, actionId, 'approve', 'prn_approver', approved.plan_digest),
          signedDecision(signer, actionId, 'execute', 'prn_approver', null),
        ],
      }),
    );
    // The batch after it, checkpointed when it was recorded; its entry is gone.
    const lost = `sha256:${'e'.repeat(64)}`;
    await trust.ledgerSeal.checkpoint({ action_id: actionId, from_seq: 2, seq: 2, head: lost });

    const before = reported.length;
    const run = { workflowId: `action-${actionId}`, runId: 'run-reset' };
    const failure = await new MockActivityEnvironment({ workflowExecution: run })
      .run(
        (...args: Parameters<typeof activities.applyAction>) => activities.applyAction(...args),
        { state, plan: approved },
      )
      .then(
        () => undefined,
        (error: unknown) => error as ApplicationFailure,
      );
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({
      type: 'RunRefused',
      nonRetryable: true,
      details: ['refused'],
      message: expect.stringMatching(/checkpoint at seq 2 .* beyond the ledger.* seq 1/),
    });
    expect(reported.slice(before)).toEqual([
      expect.objectContaining({
        kind: 'security.checkpoint_mismatch',
        detail: expect.objectContaining({
          action_id: actionId,
          run_id: 'run-reset',
          checkpoint: { seq: 2, head: lost },
          ledger: { seq: 1, head: state.ledger_head },
        }),
      }),
    ]);
    expect((await repos.worldObjects.findById(objectId))?.version).toBe(1);
    const ledger = await repos.externalActions.entriesFrom(actionId, 1);
    expect(ledger.map((entry) => entry.event)).toEqual(['executing']);
  });
});
