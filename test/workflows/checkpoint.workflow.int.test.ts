import { readFileSync } from 'node:fs';
import { newId } from '../../src/lib/ids';
import type { CheckpointRecord } from '../../src/store/checkpoints.repo';
import { checkpointWorkflowId } from '../../src/workflows/checkpoint.contract';
import { storedIn } from '../helpers/collections';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { killed, startWorkerProcess } from '../helpers/worker-process';

// A checkpoint survives the loss of its worker (SIGKILL mid-copy): another worker copies the
// collection again and the checkpoint completes once, with one manifest. A world of 100,000
// objects keeps the worker's memory and the workflow's history bounded.
const OBJECTS = 100_000;
/** The worker's resident peak (VmHWM), MiB: Linux only, as CI is. */
const peakRssMiB = (pid: number): number => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) / 1024;
};

let app: TestApp;
let key: TestKey;
beforeAll(async () => {
  app = await startTestApp('checkpoint_wf');
  key = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
  const now = new Date().toISOString();
  const objects = storedIn(app.deps.db).worldObjects;
  for (let start = 0; start < OBJECTS; start += 1000) {
    await objects.insertMany(
      Array.from({ length: 1000 }, (_, i) => ({
        _id: newId('obj'),
        kind: 'service',
        name: `service ${start + i}`,
        attributes: { tier: 'standard', n: start + i },
        external_state: {},
        version: 1,
        created_at: now,
        updated_at: now,
      })),
      { ordered: false },
    );
  }
}, 300_000);
afterAll(() => app.close());

const recordOf = async (id: string) =>
  (
    await call<{ payload: CheckpointRecord & { checkpoint_id: string } }>(
      app.url,
      'GET',
      `/v1/continuous-ops/checkpoints/${id}`,
      { key: key.apiKey },
    )
  ).body.payload;

describe('a checkpoint whose worker is killed mid-copy', () => {
  it('completes once, with every object and one manifest', async () => {
    let worker = startWorkerProcess(app);
    try {
      const started = await call<{ payload: { checkpoint_id: string } }>(
        app.url,
        'POST',
        '/v1/continuous-ops/checkpoint',
        { key: key.apiKey, body: { scope: ['world'] } },
      );
      expect(started.status).toBe(202);
      const id = started.body.payload.checkpoint_id;
      // The copy has begun once the world's position is recorded.
      for (let i = 0; i < 300 && (await recordOf(id)).history_head === null; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
      await killed(worker);
      expect((await recordOf(id)).status).toBe('running');
      worker = startWorkerProcess(app);

      const client = await app.deps.temporal.getClient();
      const final = (await client.workflow
        .getHandle(checkpointWorkflowId(id))
        .result()) as CheckpointRecord;
      expect(final.status).toBe('completed');
      const objects = final.scopes.world!.collections.find(
        (c) => c.collection === 'world_objects',
      )!;
      expect(objects.count).toBe(await storedIn(app.deps.db).worldObjects.countDocuments());
      expect(objects.count).toBeGreaterThanOrEqual(OBJECTS);
      expect(objects.parts.reduce((sum, part) => sum + part.count, 0)).toBe(objects.count);

      const manifests = await app.deps.db
        .collection('artifacts')
        .countDocuments({ path: { $regex: `^checkpoints/${id}/manifest` } });
      expect(manifests).toBe(1);
      const history = await client.workflow.getHandle(checkpointWorkflowId(id)).fetchHistory();
      const copies = (history.events ?? []).filter(
        (event) =>
          event.activityTaskScheduledEventAttributes?.activityType?.name === 'copyCollection',
      );
      // The copy that was under way when the worker died ran again (its final attempt > 1).
      const scheduled = new Set(copies.map((event) => String(event.eventId)));
      const attempts = (history.events ?? [])
        .map((event) => event.activityTaskStartedEventAttributes)
        .filter((started) => started && scheduled.has(String(started.scheduledEventId)))
        .map((started) => started!.attempt ?? 1);
      expect(Math.max(...attempts)).toBeGreaterThan(1);
      expect((await recordOf(id)).status).toBe('completed');
      // Bounded: parts of 20,000 documents stream through one at a time (the worker alone
      // is about 250 MiB), and history holds one activity per collection, never data.
      expect(peakRssMiB(worker.pid!)).toBeLessThan(768);
      expect((history.events ?? []).length).toBeLessThan(80);
    } finally {
      await killed(worker);
    }
  }, 300_000);
});
