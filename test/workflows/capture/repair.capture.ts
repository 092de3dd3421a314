import type { Client } from '@temporalio/client';
import type { RepairRecord } from '../../../src/store/repairs.repo';
import { actionWorkflowId } from '../../../src/workflows/external-action.contract';
import { repairWorkflowId } from '../../../src/workflows/repair.contract';
import { seedRecordedObject } from '../../helpers/actions';
import { storedIn } from '../../helpers/collections';
import { call } from '../../helpers/http';
import { createTestKey, type TestKey } from '../../helpers/keys';
import { startTestApp, type TestApp } from '../../helpers/test-app';
import { startTestWorker, type TestWorker } from '../../helpers/test-worker';
import { saveHistory } from './save-history';

// repairWorkflow and its child world.restore_object action: repaired, rejected, and a
// healthy object's no_action_needed.
let app: TestApp;
let worker: TestWorker;
let client: Client;
let requester: TestKey;
let approver: TestKey;
beforeAll(async () => {
  app = await startTestApp('capture_repairs');
  worker = await startTestWorker(app.deps);
  client = await app.deps.temporal.getClient();
  const strategic = { entitlement: 'strategic', accessLayer: 2 } as const;
  [requester, approver] = await Promise.all([
    createTestKey(app, strategic),
    createTestKey(app, strategic),
  ]);
});
afterAll(async () => {
  await worker.stop();
  await app.close();
});

async function requestRepair(objectId: string): Promise<string> {
  const res = await call<{ payload: { repair_id: string } }>(
    app.url,
    'POST',
    '/v1/repair/request',
    {
      key: requester.apiKey,
      body: { object_id: objectId, reason: 'captured for the replay test' },
    },
  );
  if (res.status !== 202) throw new Error(`repair request: ${res.status} ${res.text}`);
  return res.body.payload.repair_id;
}

/** An object whose attributes were written around every governed path. */
async function corruptedObject(): Promise<string> {
  const object = await seedRecordedObject(app, { attributes: { status: 'draft' } });
  await storedIn(app.deps.db).worldObjects.updateOne(
    { _id: object._id },
    { $set: { attributes: { status: 'hacked' } } },
  );
  return object._id;
}

/** The repair's child action, once the repair waits for its approval. */
async function childActionOf(repairId: string, objectId: string): Promise<string> {
  for (let i = 0; i < 200; i += 1) {
    const res = await call<{ payload: { items: (RepairRecord & { repair_id: string })[] } }>(
      app.url,
      'GET',
      `/v1/repair/state?object_id=${objectId}`,
      { key: requester.apiKey },
    );
    const repair = res.body.payload.items.find((item) => item.repair_id === repairId);
    if (repair?.status === 'awaiting_approval') return repair.child_action_id!;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`repair ${repairId} never awaited approval`);
}

async function decideChild(actionId: string, decision: 'approve' | 'reject'): Promise<void> {
  const res = await call(app.url, 'POST', `/v1/external-actions/${actionId}/${decision}`, {
    key: approver.apiKey,
    body: { reason: `${decision} the repair` },
  });
  if (res.status !== 200) throw new Error(`${decision} ${actionId}: ${res.status} ${res.text}`);
}

describe('repairWorkflow histories', () => {
  it('repaired, through an approved child world.restore_object action', async () => {
    const objectId = await corruptedObject();
    const repairId = await requestRepair(objectId);
    const childId = await childActionOf(repairId, objectId);
    await decideChild(childId, 'approve');
    const { result } = await saveHistory(client, 'repaired', repairWorkflowId(repairId));
    expect(result).toMatchObject({ status: 'repaired' });
    await saveHistory(client, 'repair-child-restore-object-executed', actionWorkflowId(childId));
  });

  it('rejected, when its child action is rejected', async () => {
    const objectId = await corruptedObject();
    const repairId = await requestRepair(objectId);
    const childId = await childActionOf(repairId, objectId);
    await decideChild(childId, 'reject');
    const { result } = await saveHistory(client, 'rejected', repairWorkflowId(repairId));
    expect(result).toMatchObject({ status: 'rejected' });
    await saveHistory(client, 'repair-child-restore-object-rejected', actionWorkflowId(childId));
  });

  it('no_action_needed, for a healthy object', async () => {
    const object = await seedRecordedObject(app);
    const repairId = await requestRepair(object._id);
    const { result } = await saveHistory(client, 'no-action-needed', repairWorkflowId(repairId));
    expect(result).toMatchObject({ status: 'no_action_needed' });
  });
});
