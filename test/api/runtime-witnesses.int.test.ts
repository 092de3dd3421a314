import { newId } from '../../src/lib/ids';
import { affectOf } from '../../src/domain/witnesses/affect';
import { stageOf } from '../../src/domain/witnesses/development';
import { seedObject } from '../helpers/actions';
import { storedIn } from '../helpers/collections';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';

// The runtime witnesses (docs/witnesses.md): each checked against records built
// for it, with exact expected numbers, and reproducible by its inputs digest. Records are
// written through the repositories, which journal each change for the witness index.
interface Witness {
  witness: string;
  window: { from: string; to: string };
  inputs: { counts: Record<string, number>; digest: string; bounded: boolean };
  [field: string]: unknown;
}

let app: TestApp;
let institutional: TestKey;
let sandbox: TestKey;
beforeAll(async () => {
  app = await startTestApp('witnesses');
  [institutional, sandbox] = await Promise.all([
    createTestKey(app, { entitlement: 'institutional', accessLayer: 1 }),
    createTestKey(app, { entitlement: 'sandbox', accessLayer: 0 }),
  ]);
});
afterAll(() => app.close());

const read = async (path: string, key = institutional) => {
  const res = await call<{ payload: Witness }>(app.url, 'GET', path, { key: key.apiKey });
  expect(res.status).toBe(200);
  return res.body.payload;
};

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

async function ledger(event: string, at: string, actionId = newId('act')) {
  await app.deps.repos.externalActions.appendOnce({
    _id: `${actionId}:1`,
    action_id: actionId,
    seq: 1,
    at,
    event,
    status: event as never,
    action_kind: 'notify',
    shared_context_id: null,
    actor: null,
    detail: event === 'failed' ? { reason: 'plan_drift' } : {},
    prev_digest: null,
    digest: `sha256:${actionId}`,
  });
  return actionId;
}

async function action(status: string, objectId?: string) {
  const id = newId('act');
  await app.deps.repos.externalActions.project({
    _id: id,
    status,
    action_kind: 'world.update_object',
    target: objectId ? { world_object_ref: objectId } : {},
    seq: 3,
    updated_at: minutesAgo(1),
  } as never);
  return id;
}

describe('the formulas', () => {
  it('affect: valence from good against bad outcomes, arousal from how many per minute', () => {
    const outcomes = { executed: 3, approved: 1, failed: 1, rejected: 1, expired: 0, conflicts: 1 };
    expect(affectOf(outcomes, 3600)).toEqual({ valence: 0.143, arousal: 0.117 });
    expect(affectOf({ ...outcomes, executed: 0, approved: 0 }, 60)).toEqual({
      valence: -1,
      arousal: 1,
    });
    const none = { executed: 0, approved: 0, failed: 0, rejected: 0, expired: 0, conflicts: 0 };
    expect(affectOf(none, 3600)).toEqual({ valence: 0, arousal: 0 });
  });

  it('development: the highest stage whose every threshold is met, and what the next needs', () => {
    const experience = {
      sessions: 12,
      steps: 150,
      actions_executed: 10,
      deployments_ready: 0,
      events_ingested: 500,
    };
    expect(stageOf(experience)).toEqual({
      stage: 'developing',
      next_stage: { stage: 'established', needs: { deployments_ready: 1 } },
    });
    expect(stageOf({ ...experience, deployments_ready: 1 }).stage).toBe('established');
    expect(
      stageOf({
        sessions: 100,
        steps: 1000,
        actions_executed: 100,
        deployments_ready: 10,
        events_ingested: 10_000,
      }),
    ).toEqual({ stage: 'mature', next_stage: null });
  });
});

describe('GET /v1/runtime/affect', () => {
  it("counts the window's outcomes exactly, reproducibly, and a new record changes the digest", async () => {
    for (const event of ['executed', 'executed', 'executed', 'approved', 'failed', 'rejected']) {
      await ledger(event, minutesAgo(10));
    }
    await ledger('proposed', minutesAgo(10));
    await ledger('executed', minutesAgo(120)); // outside the hour
    await app.deps.repos.externalEvents.recordReconciliations([
      {
        _id: newId('evt'),
        event_key: 'k',
        outcome: 'conflict',
        generation: 1,
        revision: 1,
        reconciled_at: minutesAgo(5),
      },
    ]);
    const first = await read('/v1/runtime/affect');
    expect(first).toMatchObject({
      witness: 'affect',
      valence: 0.143,
      arousal: 0.117,
      outcomes: { executed: 3, approved: 1, failed: 1, rejected: 1, expired: 0, conflicts: 1 },
      inputs: { counts: { action_ledger: 6, reconciliation: 1 }, bounded: false },
    });
    expect(Date.parse(first.window.to) - Date.parse(first.window.from)).toBe(3_600_000);
    const again = await read('/v1/runtime/affect');
    expect(again.inputs.digest).toBe(first.inputs.digest);
    expect(again.valence).toBe(first.valence);

    await ledger('expired', minutesAgo(1));
    const changed = await read('/v1/runtime/affect');
    expect(changed.inputs.digest).not.toBe(first.inputs.digest);
    expect(changed.outcomes).toMatchObject({ expired: 1 });

    const wide = await read('/v1/runtime/affect?window_seconds=10800');
    expect(wide.outcomes).toMatchObject({ executed: 4 });
  });

  it('is institutional: a sandbox key is refused; an unknown session is 404', async () => {
    const refused = await call(app.url, 'GET', '/v1/runtime/affect', { key: sandbox.apiKey });
    expect(refused.status).toBe(403);
    const unknown = await call(app.url, 'GET', `/v1/runtime/affect?session_id=${newId('ses')}`, {
      key: institutional.apiKey,
    });
    expect(unknown.status).toBe(404);
  });
});

describe('GET /v1/runtime/development', () => {
  it('counts experience and names the stage and what the next one needs', async () => {
    const before = await read('/v1/runtime/development');
    expect(before).toMatchObject({ witness: 'development' });
    const experience = before['experience'] as Record<string, number>;
    for (let step = 1; step <= 10; step += 1) {
      await app.deps.repos.sessionSteps.insert({
        _id: `ses_test:${step}`,
        session_id: 'ses_test',
        step,
      } as never);
    }
    await action('executed');
    const after = await read('/v1/runtime/development');
    expect(after['experience']).toEqual({
      ...experience,
      steps: experience['steps'] + 10,
      actions_executed: experience['actions_executed'] + 1,
    });
    expect(after.inputs.digest).not.toBe(before.inputs.digest);
    expect((await read('/v1/runtime/development')).inputs.digest).toBe(after.inputs.digest);
  });
});

describe('GET /v1/runtime/self-report and integrated-self-world', () => {
  it('report commitments and failures, and the coherence of the committed world', async () => {
    const reconciled = await seedObject(app, { name: 'Reconciled' });
    const disputed = await seedObject(app, { name: 'Disputed' });
    const unobserved = await seedObject(app, { name: 'Unobserved' });
    const condition = (type: string, status: string) => ({
      type,
      status,
      reason: 'r',
      message: '',
      last_transition_time: minutesAgo(1),
    });
    const objects = storedIn(app.deps.db).worldObjects;
    await objects.updateOne(
      { _id: reconciled._id },
      {
        $set: {
          external_state: {
            revision: 2,
            conditions: [condition('Reconciled', 'True'), condition('ConflictFree', 'True')],
          },
        },
      },
    );
    await objects.updateOne(
      { _id: disputed._id },
      {
        $set: {
          external_state: {
            revision: 1,
            conditions: [condition('Reconciled', 'True'), condition('ConflictFree', 'False')],
          },
        },
      },
    );
    const approved = await action('approved', reconciled._id);
    await action('awaiting_approval', disputed._id);
    await app.deps.repos.worldTasks.project({
      _id: newId('tsk'),
      title: 'look at it',
      state: 'open',
      object_refs: [unobserved._id],
      version: 1,
      created_at: minutesAgo(2),
      updated_at: minutesAgo(2),
    });
    await ledger('failed', minutesAgo(3));

    const report = await read('/v1/runtime/self-report');
    expect(report).toMatchObject({ witness: 'self_report', status: 'active', open_tasks: 1 });
    expect(report['commitments']).toMatchObject({ actions: 1, tasks: 1 });
    expect(JSON.stringify(report['commitments'])).toContain(approved);
    expect(report['recent_failures']).toEqual(
      expect.arrayContaining([expect.objectContaining({ status: 'failed', reason: 'plan_drift' })]),
    );
    expect((await read('/v1/runtime/self-report')).inputs.digest).toBe(report.inputs.digest);

    const integrated = await read('/v1/runtime/integrated-self-world');
    const world = integrated['world'] as {
      committed_objects: number;
      coherent_objects: number;
      objects: { object_id: string; reconciliation: { coherent: boolean } }[];
    };
    expect(world.committed_objects).toBe(3);
    expect(world.coherent_objects).toBe(2);
    expect(integrated['coherence']).toBe(0.667);
    const byId = new Map(world.objects.map((o) => [o.object_id, o.reconciliation.coherent]));
    expect(byId.get(disputed._id)).toBe(false);
    expect(byId.get(unobserved._id)).toBe(true);
  });
});
