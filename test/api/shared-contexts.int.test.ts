import { randomBytes } from 'node:crypto';
import { proposeUpdate } from '../helpers/actions';
import { storedIn } from '../helpers/collections';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';

// Shared contexts (docs/witnesses.md): a context exists once a record names it; each view reads
// only that context's records (one from another context must not leak in) and carries a
// reproducible witness header.
interface View {
  witness: string;
  context_id: string;
  inputs: { counts: Record<string, number>; digest: string };
  [field: string]: unknown;
}

let app: TestApp;
let worker: TestWorker;
let proposer: TestKey;
let approver: TestKey;
let sandbox: TestKey;
const context = `ctx-${randomBytes(4).toString('hex')}`;
const other = `ctx-other-${randomBytes(4).toString('hex')}`;
const ids: Record<string, string> = {};

beforeAll(async () => {
  app = await startTestApp('contexts');
  worker = await startTestWorker(app.deps);
  const strategic = { entitlement: 'strategic', accessLayer: 2 } as const;
  [proposer, approver, sandbox] = await Promise.all([
    createTestKey(app, strategic),
    createTestKey(app, strategic),
    createTestKey(app, { entitlement: 'sandbox', accessLayer: 0 }),
  ]);
  const session = await call<{ payload: { session_id: string } }>(app.url, 'POST', '/v1/sessions', {
    key: proposer.apiKey,
    body: { continuity_mode: 'preserve', shared_context_id: context },
  });
  expect(session.status).toBe(201);
  ids['session'] = session.body.payload.session_id;
  ids['approved'] = await proposeUpdate(app, proposer, {
    patch: { status: 'published' },
    shared_context_id: context,
  });
  ids['rejected'] = await proposeUpdate(app, proposer, {
    patch: { status: 'retired' },
    shared_context_id: context,
  });
  ids['leak'] = await proposeUpdate(app, proposer, { patch: { a: 1 }, shared_context_id: other });
  const decide = (id: string, decision: string, body: Record<string, unknown> = {}) =>
    call(app.url, 'POST', `/v1/external-actions/${id}/${decision}`, {
      key: approver.apiKey,
      body,
    });
  expect((await decide(ids['approved'], 'approve')).status).toBe(200);
  expect((await decide(ids['rejected'], 'reject', { reason: 'not now' })).status).toBe(200);
  const approved = await storedIn(app.deps.db).actions.findOne({ _id: ids['approved'] });
  ids['object'] = approved!.target.world_object_ref!;
  const ingest = (n: number, occurredAt: string) =>
    call<{ payload: { event: { event_id: string } } }>(
      app.url,
      'POST',
      '/v1/external-events/ingest',
      {
        key: proposer.apiKey,
        body: {
          source_family: 'crm',
          source_event_id: `${context}-${n}`,
          event_type: 'account.updated',
          occurred_at: occurredAt,
          world_object_ref: ids['object'],
          shared_context_id: context,
          payload: { tier: n === 1 ? 'gold' : 'silver' },
        },
      },
    );
  ids['event'] = (await ingest(1, '2026-01-02T00:00:00.000Z')).body.payload.event.event_id;
  ids['stale'] = (await ingest(2, '2026-01-01T00:00:00.000Z')).body.payload.event.event_id;
  const task = await call<{ payload: { task_id: string } }>(app.url, 'POST', '/v1/worlds/tasks', {
    key: proposer.apiKey,
    body: {
      title: 'review the tier',
      object_refs: [ids['object']],
      shared_context_id: context,
      state: 'blocked',
    },
  });
  expect(task.status).toBe(201);
  ids['task'] = task.body.payload.task_id;
});
afterAll(async () => {
  await worker.stop();
  await app.close();
});

const view = async (path: string, key = proposer) => {
  const res = await call<{ payload: View }>(
    app.url,
    'GET',
    `/v1/shared-contexts/${context}${path}`,
    { key: key.apiKey },
  );
  expect(res.status).toBe(200);
  expect(res.body.payload.context_id).toBe(context);
  expect(JSON.stringify(res.body.payload)).not.toContain(ids['leak']);
  return res.body.payload;
};

describe('shared contexts', () => {
  it('do not exist until a record names them', async () => {
    const res = await call(app.url, 'GET', '/v1/shared-contexts/ctx-never-named', {
      key: proposer.apiKey,
    });
    expect(res.status).toBe(404);
  });

  it('summarise activity, counts and participants, reproducibly', async () => {
    const summary = await view('');
    expect(summary).toMatchObject({
      witness: 'shared_context',
      counts: { sessions: 1, actions: 2, events: 2, tasks: 1 },
      inputs: { counts: { session: 1, action: 2, event: 2, task: 1 } },
    });
    expect(summary['participants']).toEqual(
      expect.arrayContaining([proposer.principalId, approver.principalId, 'source:crm']),
    );
    expect((await view('')).inputs.digest).toBe(summary.inputs.digest);
  });

  it('answer aboutness, commitments, disagreement and reconciliation from its records', async () => {
    const aboutness = await view('/aboutness');
    const objects = aboutness['objects'] as { object_id: string; references: number }[];
    // The approved action, both events and the task refer to the same object.
    expect(objects[0]).toMatchObject({ object_id: ids['object'], references: 4 });

    const commitments = await view('/commitments');
    expect(commitments['counts']).toEqual({ actions: 1, tasks: 0 });
    expect((commitments['actions'] as { action_id: string }[])[0]?.action_id).toBe(ids['approved']);

    const disagreement = await view('/disagreement');
    expect(disagreement['counts']).toMatchObject({
      rejections: 1,
      stale_events: 1,
      blocked_tasks: 1,
    });
    expect(disagreement['rejections']).toEqual([
      { action_id: ids['rejected'], by: [approver.principalId], reason: 'not now' },
    ]);

    const reconciliation = await view('/external-reconciliation');
    expect(reconciliation['counts']).toEqual({ applied: 1, stale: 1 });
  });

  it("name in aboutness an event's object ref as long as ingest accepts (128 characters)", async () => {
    const longContext = `ctx-long-${randomBytes(4).toString('hex')}`;
    const longRef = `ref-${'x'.repeat(124)}`;
    const ingested = await call(app.url, 'POST', '/v1/external-events/ingest', {
      key: proposer.apiKey,
      body: {
        source_family: 'crm',
        source_event_id: `${longContext}-1`,
        event_type: 'account.updated',
        occurred_at: '2026-01-03T00:00:00.000Z',
        world_object_ref: longRef,
        shared_context_id: longContext,
        payload: { tier: 'gold' },
      },
    });
    expect(ingested.status).toBe(201);
    // The test app checks every answer against its documented schema (a mismatch is a 500).
    const res = await call<{ payload: View }>(
      app.url,
      'GET',
      `/v1/shared-contexts/${longContext}/aboutness`,
      { key: proposer.apiKey },
    );
    expect(res.status).toBe(200);
    expect(res.body.payload['objects']).toEqual([
      expect.objectContaining({ object_id: longRef, references: 1 }),
    ]);
  });

  it('give the evidence: ledger entries with their digests and the events', async () => {
    const evidence = await view('/evidence');
    const ledger = evidence['ledger'] as { action_id: string; digest: string }[];
    expect(new Set(ledger.map((entry) => entry.action_id))).toEqual(
      new Set([ids['approved'], ids['rejected']]),
    );
    expect(ledger.every((entry) => /^sha256:[0-9a-f]{64}$/.test(entry.digest))).toBe(true);
    expect((evidence['events'] as { event_id: string }[]).map((e) => e.event_id).sort()).toEqual(
      [ids['event'], ids['stale']].sort(),
    );
  });

  it('summarise its workflows from Temporal visibility, with UI links', async () => {
    let summary: View | undefined;
    for (let i = 0; i < 50; i += 1) {
      summary = await view('/workflow-summary');
      if ((summary['total'] as number) >= 2) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(summary!['total']).toBe(2);
    expect(summary!['by_type']).toEqual({
      externalActionWorkflow: expect.any(Object) as unknown,
    });
    const newest = summary!['newest'] as { workflow_id: string; ui_url: string }[];
    expect(newest.map((e) => e.workflow_id).sort()).toEqual(
      [`action-${ids['approved']}`, `action-${ids['rejected']}`].sort(),
    );
    expect(newest[0].ui_url).toMatch(
      /^http:\/\/127\.0\.0\.1:8233\/namespaces\/default\/workflows\/action-act_/,
    );
  });

  it('admit a sandbox key to the context, not to its witnesses', async () => {
    expect((await view('', sandbox)).witness).toBe('shared_context');
    const refused = await call(app.url, 'GET', `/v1/shared-contexts/${context}/aboutness`, {
      key: sandbox.apiKey,
    });
    expect(refused.status).toBe(403);
  });
});
