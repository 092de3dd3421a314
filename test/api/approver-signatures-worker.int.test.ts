import { createDecisionSigner, decisionSeed } from '../../src/auth/decision-signer';
import { newId } from '../../src/lib/ids';
import {
  actionWorkflowId,
  type ActionDecisionInput,
} from '../../src/workflows/external-action.contract';
import { proposeUpdate } from '../helpers/actions';
import {
  challengeFor,
  ed25519Assertion,
  newApproverKeyPair,
  registerApproverKey,
} from '../helpers/approver-keys';
import { eventually } from '../helpers/eventually';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';

// The worker believes an approval under a signature rule only with the approver's own
// signature, checked again in the effect activity against the approver's keys. Simulated
// here: someone who stole the api's signing key and can reach Temporal sends decisions the
// api's key signed, around the api (docs/approvals.md, threat model).
interface ActionView {
  action_id: string;
  status: string;
  dry_run: { plan_digest: string };
  target: { world_object_ref: string };
}

let app: TestApp;
let worker: TestWorker;
let proposer: TestKey;
let ben: TestKey;
const benPair = newApproverKeyPair();
let benKey: string;
const context = `ctx-worker-${newId('tsk')}`;

beforeAll(async () => {
  app = await startTestApp('approver-signatures-worker');
  worker = await startTestWorker(app.deps);
  proposer = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
  ben = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
  benKey = await registerApproverKey(app, ben, benPair);
  const rule = await call(app.url, 'POST', '/v1/admin/approval-rules/create', {
    key: app.adminKey,
    body: {
      name: 'hand-signed',
      match: { shared_context_id: context },
      require_approver_signature: true,
    },
  });
  expect(rule.status).toBe(201);
});
afterAll(async () => {
  await worker.stop();
  await app.close();
});

const actionOf = async (id: string) =>
  (
    await call<{ payload: ActionView }>(app.url, 'GET', `/v1/external-actions/${id}`, {
      key: ben.apiKey,
    })
  ).body.payload;
const propose = async () =>
  actionOf(
    await proposeUpdate(app, proposer, {
      patch: { status: 'published' },
      shared_context_id: context,
    }),
  );
const statusOfObject = async (id: string) =>
  (await app.deps.repos.worldObjects.findById(id))?.attributes['status'];
const securityEvents = async (kind: string, actionId: string) =>
  (
    await call<{ payload: { items: { detail: { action_id?: string; problem?: string } }[] } }>(
      app.url,
      'GET',
      `/v1/admin/service-events?kind=${kind}&limit=100`,
      { key: app.adminKey },
    )
  ).body.payload.items.filter((e) => e.detail.action_id === actionId);
const unsignedEffects = (actionId: string) => securityEvents('security.unsigned_effect', actionId);
const ledgerEvents = async (actionId: string) =>
  (
    await call<{ payload: { items: { event: string }[] } }>(
      app.url,
      'GET',
      `/v1/external-actions/history?action_id=${actionId}`,
      { key: ben.apiKey },
    )
  ).body.payload.items.map((e) => e.event);

/** A decision signed with the api's (stolen) key, sent straight to the workflow. */
async function forge(
  action: ActionView,
  decision: 'approve' | 'reject' | 'execute',
  extra: Partial<ActionDecisionInput> = {},
) {
  const stolen = createDecisionSigner(decisionSeed(app.deps.config));
  const planDigest = decision === 'execute' ? null : action.dry_run.plan_digest;
  const claim = {
    action_id: action.action_id,
    decision,
    principal_id: ben.principalId,
    key_id: ben.keyId,
    role: 'member',
    plan_digest: planDigest,
    reason: null,
  };
  const client = await app.deps.temporal.getClient();
  return client.workflow.getHandle(actionWorkflowId(action.action_id)).executeUpdate(decision, {
    args: [
      {
        principal_id: ben.principalId,
        key_id: ben.keyId,
        role: 'member',
        ...(planDigest ? { plan_digest: planDigest } : {}),
        ...extra,
        ...stolen.sign(claim),
      },
    ],
  });
}

describe('decisions forged through Temporal with the api signing key', () => {
  it('without an approver assertion: refused by the workflow, nothing happens', async () => {
    const action = await propose();
    await expect(forge(action, 'approve')).rejects.toHaveProperty(
      'cause.message',
      expect.stringMatching(/requires the approver's own signature/),
    );
    expect((await actionOf(action.action_id)).status).toBe('awaiting_approval');
    expect(await statusOfObject(action.target.world_object_ref)).toBe('draft');
  });

  it('with a made-up assertion: the record activity refuses it, the ledger never shows it', async () => {
    const action = await propose();
    const bogus = {
      key_id: benKey,
      nonce: newId('ach'),
      expires_at: new Date(Date.now() + 60_000).toISOString(),
      signature: '00'.repeat(64),
    };
    // The workflow checks only that an assertion is there; the activity that writes the
    // ledger verifies it and refuses, so the update fails and nothing is recorded.
    await expect(forge(action, 'approve', { approver_assertion: bogus })).rejects.toBeDefined();
    await forge(action, 'execute').catch(() => undefined);
    const events = await eventually(
      () => securityEvents('security.unsigned_record', action.action_id),
      (e) => e.length > 0,
    );
    expect(events[0].detail.problem).toMatch(/approver signature does not match/);
    expect((await actionOf(action.action_id)).status).not.toMatch(
      /^(approved|executing|executed)$/,
    );
    expect(await ledgerEvents(action.action_id)).not.toContain('approved');
    expect(await statusOfObject(action.target.world_object_ref)).toBe('draft');
  });

  it('a rejection with a made-up assertion is not recorded either', async () => {
    const action = await propose();
    const bogus = {
      key_id: benKey,
      nonce: newId('ach'),
      expires_at: new Date(Date.now() + 60_000).toISOString(),
      signature: '11'.repeat(64),
    };
    await expect(forge(action, 'reject', { approver_assertion: bogus })).rejects.toBeDefined();
    const events = await eventually(
      () => securityEvents('security.unsigned_record', action.action_id),
      (e) => e.length > 0,
    );
    expect(events[0].detail.problem).toMatch(/approver signature does not match the reject/);
    expect(await ledgerEvents(action.action_id)).not.toContain('rejected');
  });

  it('a real signed approval is recorded, and still checked at the effect', async () => {
    const action = await propose();
    const challenge = await challengeFor(app, ben, action.action_id);
    await forge(action, 'approve', {
      approver_assertion: ed25519Assertion(benPair, benKey, challenge),
    });
    expect((await actionOf(action.action_id)).status).toBe('approved');
    expect(await ledgerEvents(action.action_id)).toContain('approved');
  });

  it('a real signed approval whose key is revoked before the effect no longer counts', async () => {
    const action = await propose();
    const pair = newApproverKeyPair();
    const keyId = await registerApproverKey(app, ben, pair);
    const challenge = await challengeFor(app, ben, action.action_id);
    const approved = await call<{ payload: ActionView }>(
      app.url,
      'POST',
      `/v1/external-actions/${action.action_id}/approve`,
      { key: ben.apiKey, body: { approver_assertion: ed25519Assertion(pair, keyId, challenge) } },
    );
    expect(approved.body.payload.status).toBe('approved');
    await call(app.url, 'POST', '/v1/principals/me/keys/revoke', {
      key: ben.apiKey,
      body: { key_id: keyId },
    });
    const executed = await call<{ payload: ActionView }>(
      app.url,
      'POST',
      `/v1/external-actions/${action.action_id}/execute`,
      { key: ben.apiKey, body: {} },
    );
    expect(executed.body.payload.status).toBe('failed');
    expect(await statusOfObject(action.target.world_object_ref)).toBe('draft');
    const events = await eventually(
      () => unsignedEffects(action.action_id),
      (e) => e.length > 0,
    );
    expect(events[0].detail.problem).toMatch(/was revoked/);
  });
});
