import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import {
  checkpointScheduleId,
  ensureCheckpointSchedule,
} from '../../src/domain/checkpoints/schedule';
import { newId } from '../../src/lib/ids';
import { OpsStatusKey } from '../../src/workflows/shared.contract';
import { storedIn } from '../helpers/collections';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';

// Checkpoints as durable workflows (docs/continuous-ops.md): each scope copied into content-addressed
// artifacts, then a manifest; readable through the artifact routes.
interface Part {
  path: string;
  sha256: string;
  count: number;
}
interface Copy {
  collection: string;
  count: number;
  sha256: string;
  parts: Part[];
}
interface Checkpoint {
  checkpoint_id: string;
  status: string;
  workflow_id: string;
  label: string | null;
  scope: string[];
  scopes: Record<string, { count: number; sha256: string; collections: Copy[] }>;
  manifest: { path: string; sha256: string } | null;
  history_head: string | null;
  world_revision: number | null;
}

let app: TestApp;
let worker: TestWorker;
let key: TestKey;
beforeAll(async () => {
  app = await startTestApp('checkpoints');
  worker = await startTestWorker(app.deps);
  key = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
});
afterAll(async () => {
  await worker.stop();
  await app.close();
});

const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');

async function settled(id: string): Promise<Checkpoint> {
  for (let i = 0; i < 150; i += 1) {
    const res = await call<{ payload: Checkpoint }>(
      app.url,
      'GET',
      `/v1/continuous-ops/checkpoints/${id}`,
      { key: key.apiKey },
    );
    if (res.body.payload.status !== 'running') return res.body.payload;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`checkpoint ${id} never settled`);
}

describe('checkpoints', () => {
  it('copy each scope into content-addressed parts and a manifest, readable as artifacts', async () => {
    const started = await call<{ payload: Checkpoint }>(
      app.url,
      'POST',
      '/v1/continuous-ops/checkpoint',
      { key: key.apiKey, body: { label: 'before the migration', scope: ['world', 'actions'] } },
    );
    expect(started.status).toBe(202);
    const id = started.body.payload.checkpoint_id;
    expect(started.headers.get('location')).toBe(`/v1/continuous-ops/checkpoints/${id}`);
    expect(started.body.payload).toMatchObject({
      status: 'running',
      workflow_id: `checkpoint-${id}`,
      scope: ['world', 'actions'],
    });

    const done = await settled(id);
    expect(done.status).toBe('completed');
    const client = await app.deps.temporal.getClient();
    const described = await client.workflow.getHandle(done.workflow_id).describe();
    expect(described.typedSearchAttributes.get(OpsStatusKey)).toBe('checkpoint.completed');
    expect(done.history_head).toMatch(/^evt_/);
    expect(done.world_revision).toBeGreaterThan(0);
    const stored = storedIn(app.deps.db);
    const world = done.scopes['world'];
    const objects = world.collections.find((c) => c.collection === 'world_objects')!;
    expect(objects.count).toBe(await stored.worldObjects.countDocuments());
    expect(world.count).toBe(world.collections.reduce((sum, c) => sum + c.count, 0));
    expect(world.sha256).toBe(
      sha256(world.collections.map((c) => `${c.collection}:${c.sha256}`).join(',')),
    );

    // Every part: its bytes are what the manifest says, one document a line.
    for (const part of objects.parts) {
      const raw = await fetch(`${app.url}/v1/artifacts/${part.path}/raw`, {
        headers: { 'X-API-Key': key.apiKey },
      });
      expect(raw.status).toBe(200);
      const bytes = Buffer.from(await raw.arrayBuffer());
      expect(sha256(bytes)).toBe(part.sha256);
      const lines = gunzipSync(bytes).toString('utf8').trim().split('\n');
      expect(lines).toHaveLength(part.count);
      expect(JSON.parse(lines[0])).toHaveProperty('_id');
    }
    expect(objects.sha256).toBe(sha256(objects.parts.map((p) => p.sha256).join('\n')));

    const manifest = await fetch(`${app.url}/v1/artifacts/${done.manifest!.path}/raw`, {
      headers: { 'X-API-Key': key.apiKey },
    });
    const text = await manifest.text();
    expect(sha256(text)).toBe(done.manifest!.sha256);
    expect(JSON.parse(text)).toMatchObject({
      checkpoint_id: id,
      label: 'before the migration',
      history_head: done.history_head,
      scopes: { world: { count: world.count, sha256: world.sha256 } },
    });

    const listed = await call<{ payload: { items: Checkpoint[] } }>(
      app.url,
      'GET',
      '/v1/continuous-ops/checkpoints?status=completed',
      { key: key.apiKey },
    );
    expect(listed.body.payload.items.map((c) => c.checkpoint_id)).toContain(id);
  });

  it('honour Idempotency-Key, and answer 404 for a checkpoint never made', async () => {
    const idempotencyKey = `chk-${newId('tsk')}`;
    const post = () =>
      call<{ payload: Checkpoint }>(app.url, 'POST', '/v1/continuous-ops/checkpoint', {
        key: key.apiKey,
        body: { scope: ['substrates'] },
        headers: { 'Idempotency-Key': idempotencyKey },
      });
    const first = await post();
    const second = await post();
    expect(first.status).toBe(202);
    expect(second.body.payload.checkpoint_id).toBe(first.body.payload.checkpoint_id);
    expect((await settled(first.body.payload.checkpoint_id)).status).toBe('completed');
    const missing = await call(app.url, 'GET', `/v1/continuous-ops/checkpoints/${newId('chk')}`, {
      key: key.apiKey,
    });
    expect(missing.status).toBe(404);
    const bad = await call(app.url, 'POST', '/v1/continuous-ops/checkpoint', {
      key: key.apiKey,
      body: { scope: ['everything'] },
    });
    expect(bad.status).toBe(422);
  });
});

describe('continuous checkpoints (CHECKPOINT_SCHEDULE)', () => {
  let scheduled: TestApp;
  let scheduledWorker: TestWorker;
  beforeAll(async () => {
    scheduled = await startTestApp('checkpoints_scheduled', { env: { CHECKPOINT_SCHEDULE: '2s' } });
    scheduledWorker = await startTestWorker(scheduled.deps);
  });
  afterAll(async () => {
    const client = await scheduled.deps.temporal.getClient();
    await client.schedule
      .getHandle(checkpointScheduleId(scheduled.deps.temporal.taskQueue))
      .delete()
      .catch(() => undefined);
    await scheduledWorker.stop();
    await scheduled.close();
  });

  it('keeps one Temporal Schedule that checkpoints every scope, and shows them in the lineage', async () => {
    const operator = await createTestKey(scheduled, { entitlement: 'strategic', accessLayer: 2 });
    let done: Checkpoint | undefined;
    for (let i = 0; i < 150 && !done; i += 1) {
      const page = await call<{ payload: { items: (Checkpoint & { requested_by: string })[] } }>(
        scheduled.url,
        'GET',
        '/v1/continuous-ops/checkpoints?status=completed',
        { key: operator.apiKey },
      );
      done = page.body.payload.items.find((c) => c.requested_by === 'schedule');
      if (!done) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(done).toBeDefined();
    expect(done!.scope).toEqual(['world', 'actions', 'events', 'sessions', 'substrates']);
    expect(done!.workflow_id).toMatch(/^checkpoint-scheduled/);

    // A second api instance at start does the same: the schedule is updated, not doubled.
    await ensureCheckpointSchedule(scheduled.deps.temporal, '3s');
    const client = await scheduled.deps.temporal.getClient();
    const description = await client.schedule
      .getHandle(checkpointScheduleId(scheduled.deps.temporal.taskQueue))
      .describe();
    expect(description.spec.intervals?.[0]?.every).toBe(3000);
    // The Web UI: the schedule's note, and each scheduled run's summary, details, ProposedBy.
    expect(description.state.note).toContain('Continuous checkpoints of every scope');
    const run = await client.workflow.getHandle(done!.workflow_id).describe();
    expect(await run.staticSummary()).toMatch(
      /^scheduled checkpoint of every scope · every \ds · by the schedule /,
    );
    expect(await run.staticDetails()).toContain('/v1/continuous-ops/checkpoints');
    expect(
      run.typedSearchAttributes.getAll().find((pair) => pair.key.name === 'ProposedBy')?.value,
    ).toBe('schedule');

    const continuity = await call<{
      payload: { checkpoints: number; lineage: { kind: string; id: string }[] };
    }>(scheduled.url, 'GET', '/v1/runtime/continuity', { key: operator.apiKey });
    expect(continuity.status).toBe(200);
    expect(continuity.body.payload.checkpoints).toBeGreaterThanOrEqual(1);
    expect(continuity.body.payload.lineage).toContainEqual(
      expect.objectContaining({ kind: 'checkpoint', id: done!.checkpoint_id }),
    );
  });
});
