import { createHash } from 'node:crypto';
import { newId } from '../../src/lib/ids';
import { proposeUpdate } from '../helpers/actions';
import { storedIn } from '../helpers/collections';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';

// Dossiers (docs/dossiers.md): reproducible audit bundles. The same records
// give the same bytes; a changed record gives others.
interface Dossier {
  dossier_id: string;
  sha256: string;
  as_of: string | null;
  counts: Record<string, number>;
  proofs: Record<string, { status: string }>;
  artifacts: { path: string; sha256: string; size: number; content_type: string }[];
}

let app: TestApp;
let worker: TestWorker;
let proposer: TestKey;
let approver: TestKey;
let actionId: string;
let objectId: string;
beforeAll(async () => {
  app = await startTestApp('dossiers');
  worker = await startTestWorker(app.deps);
  const strategic = { entitlement: 'strategic', accessLayer: 2 } as const;
  [proposer, approver] = await Promise.all([
    createTestKey(app, strategic),
    createTestKey(app, strategic),
  ]);
  actionId = await proposeUpdate(app, proposer, {
    patch: { status: 'published' },
    attributes: { status: 'draft' },
    shared_context_id: 'audit-q4',
  });
  const action = await storedIn(app.deps.db).actions.findOne({ _id: actionId });
  objectId = action!.target.world_object_ref!;
  await app.deps.repos.worldHistory.appendOnce({
    _id: newId('evt'),
    kind: 'object.created',
    object_id: objectId,
    at: '2000-01-01T00:00:00.000Z',
    change: { after: { attributes: { status: 'draft' } }, version: 1 },
  });
  for (const step of ['approve', 'execute']) {
    const res = await call(app.url, 'POST', `/v1/external-actions/${actionId}/${step}`, {
      key: approver.apiKey,
      body: {},
    });
    expect(res.status).toBe(200);
  }
});
afterAll(async () => {
  await worker.stop();
  await app.close();
});

const build = async (depth: 'core' | 'full', kind: string, id: string) => {
  const res = await call<{ payload: Dossier }>(app.url, 'POST', `/v1/dossiers/${depth}`, {
    key: proposer.apiKey,
    body: { subject: { kind, id } },
  });
  expect([res.status, res.status === 200 ? '' : res.text]).toEqual([200, '']);
  return res.body.payload;
};

const bytesOf = async (path: string) => {
  const artifact = await app.deps.repos.artifacts.findByPath(path);
  return (await app.deps.repos.artifacts.content(artifact!))!;
};

describe('dossiers', () => {
  it('core: the action, its ledger proven, its object; built twice, the same bytes', async () => {
    const first = await build('core', 'action', actionId);
    expect(first.dossier_id).toMatch(/^dos_[0-9a-f]{26}$/);
    expect(first.counts).toMatchObject({ action: 1, target_object: 1 });
    expect(first.counts['ledger']).toBeGreaterThanOrEqual(4);
    expect(first.proofs['action_ledger_chain']).toMatchObject({ status: 'passed' });
    expect(first.artifacts.map((a) => a.path)).toEqual([
      `dossiers/${first.dossier_id}/dossier.json`,
      `dossiers/${first.dossier_id}/dossier.md`,
    ]);
    const json = await bytesOf(first.artifacts[0].path);
    expect(createHash('sha256').update(json).digest('hex')).toBe(first.sha256);
    const document = JSON.parse(json.toString('utf8')) as Record<string, unknown>;
    expect(Object.keys(document)).toEqual([...Object.keys(document)].sort());
    expect(document['as_of']).toBe(first.as_of);

    const again = await build('core', 'action', actionId);
    expect(again).toEqual(first);
    expect(
      (await bytesOf(again.artifacts[1].path)).equals(await bytesOf(first.artifacts[1].path)),
    ).toBe(true);
  });

  it('full: adds the witnesses and the workflow history, and is reproducible too', async () => {
    // A running workflow's history is still being written; once closed, it is a fixed record.
    const client = await app.deps.temporal.getClient();
    await client.workflow.getHandle(`action-${actionId}`).result();
    const full = await build('full', 'action', actionId);
    const paths = full.artifacts.map((a) => a.path);
    expect(paths).toContain(`dossiers/${full.dossier_id}/history/action-${actionId}.json`);
    const document = JSON.parse(
      (await bytesOf(`dossiers/${full.dossier_id}/dossier.json`)).toString('utf8'),
    ) as {
      witnesses: { aboutness: { objects: { object_id: string }[]; computed_at: string } };
      workflow_histories: { workflow_id: string; events: number; event_types: string[] }[];
    };
    expect(document.witnesses.aboutness.objects.map((o) => o.object_id)).toEqual([objectId]);
    // The witness is computed as of the newest record, never the clock.
    expect(document.witnesses.aboutness.computed_at).toBe(full.as_of);
    const [history] = document.workflow_histories;
    expect(history).toMatchObject({ workflow_id: `action-${actionId}` });
    expect(history.event_types[0]).toBe('WORKFLOW_EXECUTION_STARTED');
    const raw = JSON.parse(
      (await bytesOf(`dossiers/${full.dossier_id}/history/action-${actionId}.json`)).toString(
        'utf8',
      ),
    ) as { events: unknown[] };
    expect(raw.events).toHaveLength(history.events);
    // Temporal writes map fields (search attributes, metadata) in no fixed order.
    const again = await build('full', 'action', actionId);
    expect(again.sha256).toBe(full.sha256);
  });

  it('object, context and session subjects; a changed record changes the dossier', async () => {
    const object = await build('core', 'object', objectId);
    expect(object.proofs['world_history_replay']).toMatchObject({ status: 'passed' });
    expect(object.counts).toMatchObject({ object: 1, actions: 1 });
    const context = await build('full', 'context', 'audit-q4');
    expect(context.counts).toMatchObject({ actions: 1 });
    expect(context.proofs['action_ledger_chain']).toMatchObject({ status: 'passed' });

    await storedIn(app.deps.db).worldObjects.updateOne(
      { _id: objectId },
      { $set: { attributes: { status: 'archived' } } },
    );
    const changed = await build('core', 'object', objectId);
    expect(changed.sha256).not.toBe(object.sha256);
    expect(changed.proofs['world_history_replay']).toMatchObject({ status: 'failed' });
  });

  it('a deployment: its record and its workflow history, reproducible once it is done', async () => {
    const deployed = await call<{ payload: { deployment_id: string } }>(
      app.url,
      'POST',
      '/v1/substrates/deploy',
      {
        key: proposer.apiKey,
        body: {
          spec: {
            scaffold: 'life-lattice',
            params: { width: 16, height: 16, rule: 'B3/S23', ticks: 8, pattern: 'glider' },
          },
        },
      },
    );
    expect(deployed.status).toBe(201);
    const deploymentId = deployed.body.payload.deployment_id;
    const client = await app.deps.temporal.getClient();
    await client.workflow.getHandle(`deployment-${deploymentId}`).result();
    const full = await build('full', 'deployment', deploymentId);
    expect(full.counts).toMatchObject({ deployment: 1 });
    expect(full.artifacts.map((a) => a.path)).toContain(
      `dossiers/${full.dossier_id}/history/deployment-${deploymentId}.json`,
    );
    expect((await build('full', 'deployment', deploymentId)).sha256).toBe(full.sha256);
  });

  it('answers 404 for an unknown subject and 422 for an unknown kind', async () => {
    for (const [kind, id] of [
      ['action', newId('act')],
      ['object', newId('obj')],
      ['session', newId('ses')],
      ['deployment', newId('dep')],
      ['context', 'no-such-context'],
    ]) {
      const res = await call(app.url, 'POST', '/v1/dossiers/core', {
        key: proposer.apiKey,
        body: { subject: { kind, id } },
      });
      expect(res.status).toBe(404);
    }
    const bad = await call(app.url, 'POST', '/v1/dossiers/core', {
      key: proposer.apiKey,
      body: { subject: { kind: 'planet', id: 'x' } },
    });
    expect(bad.status).toBe(422);
  });
});
