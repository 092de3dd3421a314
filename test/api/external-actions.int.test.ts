import { storedIn } from '../helpers/collections';
import { canonicalDigest } from '../../src/lib/canonical-digest';
import { newId } from '../../src/lib/ids';
import type { ActionLedgerEntry } from '../../src/store/external-actions.repo';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';
import { WebhookReceiver } from '../helpers/webhook-receiver';

interface ActionView {
  action_id: string;
  status: string;
  status_timestamps: Record<string, string>;
  approvals: { principal_id: string }[];
  decisions: { decision: string; principal_id: string; reason: string | null }[];
  dry_run: {
    plan_digest: string;
    ok: boolean;
    diff: Record<string, unknown> | null;
    policy: { reasons: string[] };
  };
  execution: { outcome: string; reason: string | null; result: Record<string, unknown> } | null;
  allowed: { approve: boolean; reject: boolean; execute: boolean };
  proposed_by: string;
  workflow_id: string;
  run_id: string;
  links: { temporal_ui: string };
}
type Envelope<T> = {
  ok: boolean;
  payload: T;
  error?: { code: string; message: string; status?: string };
};

let app: TestApp;
let worker: TestWorker;
const receiver = new WebhookReceiver();
let receiverUrl: string;
let proposer: TestKey;
let approver: TestKey;
let approver2: TestKey;

beforeAll(async () => {
  receiverUrl = await receiver.start();
  app = await startTestApp('actions', { env: { WEBHOOK_ALLOWLIST: `${receiverUrl}/hooks` } });
  worker = await startTestWorker(app.deps);
  proposer = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
  approver = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
  approver2 = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
});
afterAll(async () => {
  await worker.stop();
  await app.close();
  await receiver.stop();
});
beforeEach(() => {
  receiver.calls.length = 0;
  receiver.applied.length = 0;
  receiver.failFirst = 0;
});

async function worldObject(
  attributes: Record<string, unknown> = { status: 'draft', owner: 'ada' },
) {
  const now = new Date().toISOString();
  return app.deps.repos.worldObjects.insert({
    _id: newId('obj'),
    kind: 'document',
    name: 'Quarterly report',
    attributes,
    external_state: {},
    version: 1,
    created_at: now,
    updated_at: now,
  });
}

const propose = (body: Record<string, unknown>, key = proposer) =>
  call<Envelope<ActionView>>(app.url, 'POST', '/v1/external-actions/propose', {
    key: key.apiKey,
    body,
  });
const decide = (id: string, decision: string, key: TestKey, body?: Record<string, unknown>) =>
  call<Envelope<ActionView>>(app.url, 'POST', `/v1/external-actions/${id}/${decision}`, {
    key: key.apiKey,
    body: body ?? {},
  });
const get = (id: string, key: TestKey) =>
  call<Envelope<ActionView>>(app.url, 'GET', `/v1/external-actions/${id}`, { key: key.apiKey });

const updateContract = (objectId: string, extra: Record<string, unknown> = {}) => ({
  action_kind: 'world.update_object',
  target: { world_object_ref: objectId },
  parameters: { patch: { status: 'published' } },
  bounds: { allowed_fields: ['status'] },
  reason: 'publish the report',
  ...extra,
});
const webhookContract = (path = '/hooks/deploy') => ({
  action_kind: 'webhook.post',
  target: { url: `${receiverUrl}${path}` },
  parameters: { body: { event: 'deploy', version: 7 } },
  bounds: {},
});

/** Recomputes every digest of an action's ledger chain. */
async function chainIntact(actionId: string): Promise<boolean> {
  const entries = await app.deps.repos.externalActions.entriesOf(actionId);
  let prev: string | null = null;
  for (const entry of entries) {
    const { digest, seal: _seal, ...body } = entry as ActionLedgerEntry;
    if (body.prev_digest !== prev || canonicalDigest(body) !== digest) return false;
    prev = digest;
  }
  return entries.length > 0;
}

describe('the full lifecycle of world.update_object', () => {
  it('proposes, dry-runs, approves against the plan, executes once, and ledgers every step', async () => {
    const object = await worldObject();
    const proposed = await propose(updateContract(object._id));
    expect(proposed.status).toBe(201);
    const action = proposed.body.payload;
    expect(action.status).toBe('awaiting_approval');
    expect(action.workflow_id).toBe(`action-${action.action_id}`);
    expect(action.dry_run.ok).toBe(true);
    expect(action.dry_run.plan_digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(action.dry_run.diff).toMatchObject({
      object_id: object._id,
      base_version: 1,
      changes: { status: { from: 'draft', to: 'published' } },
    });
    expect(Object.keys(action.status_timestamps)).toEqual(['proposed', 'awaiting_approval']);
    expect(action.allowed).toEqual({ approve: false, reject: false, execute: false });
    expect(action.links.temporal_ui).toContain(`/workflows/${action.workflow_id}/`);

    const seenByApprover = await get(action.action_id, approver);
    expect(seenByApprover.body.payload.allowed).toEqual({
      approve: true,
      reject: true,
      execute: false,
    });

    const approved = await decide(action.action_id, 'approve', approver, {
      reason: 'looks right',
      plan_digest: action.dry_run.plan_digest,
    });
    expect(approved.status).toBe(200);
    expect(approved.body.payload.status).toBe('approved');
    expect(approved.body.payload.approvals).toHaveLength(1);
    expect(approved.body.payload.allowed.execute).toBe(true);

    const executed = await decide(action.action_id, 'execute', approver);
    expect(executed.status).toBe(200);
    expect(executed.body.payload.status).toBe('executed');
    expect(executed.body.payload.execution).toMatchObject({
      outcome: 'executed',
      result: { object_id: object._id, version: 2 },
    });

    const stored = await app.deps.repos.worldObjects.findById(object._id);
    expect(stored).toMatchObject({ version: 2, attributes: { status: 'published', owner: 'ada' } });
    expect(await storedIn(app.deps.db).worldHistory.countDocuments({ object_id: object._id })).toBe(
      1,
    );

    const final = (await get(action.action_id, approver)).body.payload;
    expect(Object.keys(final.status_timestamps)).toEqual([
      'proposed',
      'awaiting_approval',
      'approved',
      'executing',
      'executed',
    ]);
    expect(final.decisions.map((d) => d.decision)).toEqual(['approve', 'execute']);
    expect(final.decisions[0]).toMatchObject({
      principal_id: approver.principalId,
      reason: 'looks right',
    });
    expect(await chainIntact(action.action_id)).toBe(true);
  });
});

describe('who may decide, and when', () => {
  it('forbids the proposer to approve or reject (403)', async () => {
    const { body } = await propose(updateContract((await worldObject())._id));
    for (const decision of ['approve', 'reject']) {
      const res = await decide(body.payload.action_id, decision, proposer);
      expect(res.status).toBe(403);
      expect(res.body.error?.code).toBe('forbidden');
    }
  });

  it('answers 409 invalid_state with the current status for every illegal transition', async () => {
    const object = await worldObject();
    const { body } = await propose(updateContract(object._id));
    const id = body.payload.action_id;
    const early = await decide(id, 'execute', approver);
    expect(early.status).toBe(409);
    expect(early.body.error).toMatchObject({ code: 'invalid_state', status: 'awaiting_approval' });

    expect((await decide(id, 'approve', approver)).body.payload.status).toBe('approved');
    for (const decision of ['approve', 'reject']) {
      const res = await decide(id, decision, approver2);
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({ code: 'invalid_state', status: 'approved' });
    }
    expect((await decide(id, 'execute', approver)).body.payload.status).toBe('executed');
    for (const decision of ['approve', 'reject', 'execute']) {
      const res = await decide(id, decision, approver2);
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({ code: 'invalid_state', status: 'executed' });
    }

    const rejected = (await propose(updateContract(object._id))).body.payload.action_id;
    expect(
      (await decide(rejected, 'reject', approver, { reason: 'not now' })).body.payload.status,
    ).toBe('rejected');
    for (const decision of ['approve', 'reject', 'execute']) {
      const res = await decide(rejected, decision, approver2);
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({ code: 'invalid_state', status: 'rejected' });
    }
  });

  it('needs N approvals from distinct principals (N-of-M)', async () => {
    const { body } = await propose(
      updateContract((await worldObject())._id, {
        bounds: { allowed_fields: ['status'], required_approvals: 2 },
      }),
    );
    const id = body.payload.action_id;
    const first = await decide(id, 'approve', approver);
    expect(first.body.payload).toMatchObject({
      status: 'awaiting_approval',
      approvals: [{ principal_id: approver.principalId }],
    });
    const again = await decide(id, 'approve', approver);
    expect(again.status).toBe(409);
    expect(again.body.error?.code).toBe('conflict');
    const second = await decide(id, 'approve', approver2);
    expect(second.body.payload.status).toBe('approved');
    expect(second.body.payload.approvals).toHaveLength(2);
  });

  // Issue 10, risk 8: the Web UI's current details said `0/2` after the first of two.
  it('shows the approvals so far in the workflow details the Web UI reads', async () => {
    const { body } = await propose(
      updateContract((await worldObject())._id, {
        bounds: { allowed_fields: ['status'], required_approvals: 2 },
      }),
    );
    await decide(body.payload.action_id, 'approve', approver);
    const client = await app.deps.temporal.getClient();
    const metadata = await client.workflow
      .getHandle(body.payload.workflow_id)
      .query<{ currentDetails?: string }>('__temporal_workflow_metadata');
    expect(metadata.currentDetails).toContain('**Stage:** awaiting_approval');
    expect(metadata.currentDetails).toContain('**Approvals:** 1 of 2');
  });

  it('refuses an approval bound to a stale plan digest (409)', async () => {
    const { body } = await propose(updateContract((await worldObject())._id));
    const res = await decide(body.payload.action_id, 'approve', approver, {
      plan_digest: `sha256:${'0'.repeat(64)}`,
    });
    expect(res.status).toBe(409);
    expect(res.body.error?.code).toBe('conflict');
    expect((await get(body.payload.action_id, approver)).body.payload.status).toBe(
      'awaiting_approval',
    );
  });

  it('answers 404 for an unknown action, to every decision', async () => {
    for (const decision of ['approve', 'reject', 'execute'] as const) {
      const res = await decide(newId('act'), decision, approver);
      expect(res.status).toBe(404);
    }
  });
});

describe('execution', () => {
  it('executes exactly once under 20 concurrent execute calls', async () => {
    const { body } = await propose(webhookContract());
    const id = body.payload.action_id;
    await decide(id, 'approve', approver);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => decide(id, 'execute', approver)),
    );
    const accepted = results.filter((r) => r.status === 200);
    expect(accepted).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 200)) {
      expect(r.status).toBe(409);
      expect(r.body.error?.code).toBe('invalid_state');
    }
    expect(accepted[0].body.payload.status).toBe('executed');
    expect(receiver.calls).toHaveLength(1);
    expect(receiver.applied).toEqual([id]);
  });

  it('retries a failing webhook with backoff and delivers it exactly once, signed', async () => {
    receiver.failFirst = 2;
    const { body } = await propose(webhookContract());
    const id = body.payload.action_id;
    await decide(id, 'approve', approver);
    const res = await decide(id, 'execute', approver);
    expect(res.body.payload.status).toBe('executed');
    expect(res.body.payload.execution?.result).toMatchObject({ status: 200, attempt: 3 });
    expect(receiver.calls.map((c) => c.status)).toEqual([500, 500, 200]);
    expect(new Set(receiver.calls.map((c) => c.headers['idempotency-key']))).toEqual(new Set([id]));
    expect(receiver.applied).toEqual([id]);
    expect(
      WebhookReceiver.signedWith(receiver.calls[2], app.deps.config.webhookSigningSecret),
    ).toBe(true);
    expect(JSON.parse(receiver.calls[2].body)).toEqual({ event: 'deploy', version: 7 });
  });

  it('fails with plan_drift when the world changed since approval', async () => {
    const object = await worldObject();
    const { body } = await propose(updateContract(object._id));
    const id = body.payload.action_id;
    await decide(id, 'approve', approver);
    await storedIn(app.deps.db).worldObjects.updateOne(
      { _id: object._id },
      { $set: { 'attributes.status': 'archived' }, $inc: { version: 1 } },
    );
    const res = await decide(id, 'execute', approver);
    expect(res.body.payload.status).toBe('failed');
    expect(res.body.payload.execution).toMatchObject({ outcome: 'failed', reason: 'plan_drift' });
    expect(await app.deps.repos.worldObjects.findById(object._id)).toMatchObject({
      attributes: { status: 'archived' },
      version: 2,
    });
  });

  it('lets only one of two concurrent actions on the same object apply', async () => {
    const object = await worldObject();
    const ids: string[] = [];
    for (const status of ['published', 'withdrawn']) {
      const { body } = await propose(
        updateContract(object._id, { parameters: { patch: { status } } }),
      );
      ids.push(body.payload.action_id);
      await decide(body.payload.action_id, 'approve', approver);
    }
    const results = await Promise.all(ids.map((id) => decide(id, 'execute', approver)));
    const statuses = results.map((r) => r.body.payload.status).sort();
    expect(statuses).toEqual(['executed', 'failed']);
    const failed = results.find((r) => r.body.payload.status === 'failed')!;
    expect(failed.body.payload.execution?.reason).toBe('plan_drift');
    expect(await app.deps.repos.worldObjects.findById(object._id)).toMatchObject({ version: 2 });
  });

  it('puts a notify message in the outbox once', async () => {
    const { body } = await propose({
      action_kind: 'notify',
      target: {},
      parameters: { message: 'Deploy at 5', channel: 'ops' },
      bounds: {},
    });
    const id = body.payload.action_id;
    await decide(id, 'approve', approver);
    expect((await decide(id, 'execute', approver)).body.payload.status).toBe('executed');
    expect(await storedIn(app.deps.db).outbox.find({ _id: id }).toArray()).toEqual([
      expect.objectContaining({ channel: 'ops', message: 'Deploy at 5' }),
    ]);
  });
});

describe('dry runs and policy', () => {
  it('POST /dry-run returns the plan and creates nothing', async () => {
    const object = await worldObject();
    const before = await storedIn(app.deps.db).actions.countDocuments();
    const res = await call<Envelope<{ plan: ActionView['dry_run'] }>>(
      app.url,
      'POST',
      '/v1/external-actions/dry-run',
      {
        key: proposer.apiKey,
        body: updateContract(object._id),
      },
    );
    expect(res.status).toBe(200);
    expect(res.body.payload.plan).toMatchObject({ ok: true, diff: { base_version: 1 } });
    expect(await storedIn(app.deps.db).actions.countDocuments()).toBe(before);
    const proposed = await propose(updateContract(object._id));
    expect(proposed.body.payload.dry_run.plan_digest).toBe(res.body.payload.plan.plan_digest);
  });

  it('ends dry_run_failed, with reasons, off the allow-list or outside allowed_fields', async () => {
    const offList = await propose({
      ...webhookContract(),
      target: { url: 'http://127.0.0.1:9/elsewhere' },
    });
    expect(offList.body.payload.status).toBe('dry_run_failed');
    expect(offList.body.payload.dry_run.policy.reasons[0]).toMatch(/allow-list/);
    const outside = await propose(
      updateContract((await worldObject())._id, { parameters: { patch: { owner: 'eve' } } }),
    );
    expect(outside.body.payload.status).toBe('dry_run_failed');
    expect(outside.body.payload.dry_run.policy.reasons[0]).toMatch(/allowed_fields: owner/);
  });

  it('answers 422 for a contract missing what its kind needs', async () => {
    const res = await propose({
      action_kind: 'webhook.post',
      target: {},
      parameters: {},
      bounds: {},
    });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({
      detail: [{ loc: ['body', 'target', 'url'], type: 'value_error' }],
    });
  });
});

describe('GET /v1/external-actions/history', () => {
  it('lists the hash-chained ledger newest first, filtered and paged', async () => {
    const context = `ctx-${newId('act').slice(-8)}`;
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      ids.push(
        (await propose({ ...webhookContract(), shared_context_id: context })).body.payload
          .action_id,
      );
    }
    await decide(ids[0], 'reject', approver);
    type Page = Envelope<{
      items: {
        action_id: string;
        event: string;
        at: string;
        digest: string;
        prev_digest: string | null;
      }[];
      next_cursor: string | null;
    }>;
    const all = await call<Page>(
      app.url,
      'GET',
      `/v1/external-actions/history?shared_context_id=${context}&limit=4`,
      { key: proposer.apiKey },
    );
    expect(all.status).toBe(200);
    expect(all.body.payload.items).toHaveLength(4);
    const ats = all.body.payload.items.map((e) => e.at);
    expect([...ats].sort().reverse()).toEqual(ats);
    const rest = await call<Page>(
      app.url,
      'GET',
      `/v1/external-actions/history?shared_context_id=${context}&limit=4&cursor=${all.body.payload.next_cursor}`,
      { key: proposer.apiKey },
    );
    expect(rest.body.payload.items).toHaveLength(3); // 3 × (proposed, awaiting_approval) + 1 rejected
    expect(rest.body.payload.next_cursor).toBeNull();
    const rejected = await call<Page>(
      app.url,
      'GET',
      `/v1/external-actions/history?shared_context_id=${context}&status=rejected`,
      { key: proposer.apiKey },
    );
    expect(rejected.body.payload.items.map((e) => e.action_id)).toEqual([ids[0]]);
    for (const id of ids) expect(await chainIntact(id)).toBe(true);
  });

  it('detects tampering with a ledger entry', async () => {
    const { body } = await propose(webhookContract());
    const id = body.payload.action_id;
    expect(await chainIntact(id)).toBe(true);
    await storedIn(app.deps.db).actionLedger.updateOne(
      { _id: `${id}:1` },
      { $set: { 'detail.reason': 'forged' } },
    );
    expect(await chainIntact(id)).toBe(false);
  });
});
