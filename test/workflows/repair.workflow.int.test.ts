import type { RepairRecord } from '../../src/store/repairs.repo';
import { repairWorkflowId } from '../../src/workflows/repair.contract';
import { seedRecordedObject } from '../helpers/actions';
import { storedIn } from '../helpers/collections';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { killed, startWorkerProcess } from '../helpers/worker-process';

// A repair survives the loss of its worker (SIGKILL) while it waits for approval and right
// after the approval, while its child action applies: it ends once, with one new version,
// one `object.repaired` event and one ledger entry.
let app: TestApp;
let requester: TestKey;
let approver: TestKey;
beforeAll(async () => {
  app = await startTestApp('repair_wf');
  const strategic = { entitlement: 'strategic', accessLayer: 2 } as const;
  [requester, approver] = await Promise.all([
    createTestKey(app, strategic),
    createTestKey(app, strategic),
  ]);
});
afterAll(() => app.close());

async function repairOf(id: string, objectId: string) {
  const res = await call<{ payload: { items: (RepairRecord & { repair_id: string })[] } }>(
    app.url,
    'GET',
    `/v1/repair/state?object_id=${objectId}`,
    { key: requester.apiKey },
  );
  return res.body.payload.items.find((item) => item.repair_id === id);
}

describe('a repair whose worker is killed', () => {
  it('while awaiting approval and again while applying, ends repaired once', async () => {
    const object = await seedRecordedObject(app, { attributes: { status: 'draft' } });
    await storedIn(app.deps.db).worldObjects.updateOne(
      { _id: object._id },
      { $set: { attributes: { status: 'corrupted' } } },
    );
    let worker = startWorkerProcess(app);
    try {
      const started = await call<{ payload: { repair_id: string } }>(
        app.url,
        'POST',
        '/v1/repair/request',
        { key: requester.apiKey, body: { object_id: object._id } },
      );
      expect(started.status).toBe(202);
      const id = started.body.payload.repair_id;
      let repair = await repairOf(id, object._id);
      for (let i = 0; i < 300 && repair?.status !== 'awaiting_approval'; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        repair = await repairOf(id, object._id);
      }
      expect(repair?.status).toBe('awaiting_approval');
      const childId = repair!.child_action_id!;

      await killed(worker);
      worker = startWorkerProcess(app);
      // The approval lands once a worker serves the child again; the api waits for it.
      let approved = await call(app.url, 'POST', `/v1/external-actions/${childId}/approve`, {
        key: approver.apiKey,
        body: { reason: 'restore it' },
      });
      for (let i = 0; i < 20 && approved.status === 503; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        approved = await call(app.url, 'POST', `/v1/external-actions/${childId}/approve`, {
          key: approver.apiKey,
          body: { reason: 'restore it' },
        });
      }
      expect(approved.status).toBe(200);
      await killed(worker);
      worker = startWorkerProcess(app);

      const client = await app.deps.temporal.getClient();
      const final = (await client.workflow
        .getHandle(repairWorkflowId(id))
        .result()) as RepairRecord;
      expect(final.status).toBe('repaired');
      expect(final.result).toEqual({ version: 2, external_revision: null });
      expect(await storedIn(app.deps.db).worldObjects.findOne({ _id: object._id })).toMatchObject({
        version: 2,
        attributes: { status: 'draft' },
      });
      const repaired = await storedIn(app.deps.db)
        .worldHistory.find({ object_id: object._id, kind: 'object.repaired' })
        .toArray();
      expect(repaired).toHaveLength(1);
      const ledger = await app.deps.db
        .collection('repair_ledger')
        .find({ repair_id: id })
        .toArray();
      expect(ledger).toHaveLength(1);
      expect((await repairOf(id, object._id))?.status).toBe('repaired');
    } finally {
      await killed(worker);
    }
  }, 180_000);
});
