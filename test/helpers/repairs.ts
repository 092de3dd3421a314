import { seedRecordedObject } from './actions';
import { storedIn } from './collections';
import { eventually } from './eventually';
import { call } from './http';
import type { TestKey } from './keys';
import type { TestApp } from './test-app';

/** A repair as `GET /v1/repair/state` lists it (the fields the tests read). */
export interface RepairView {
  repair_id: string;
  status: string;
  error: string | null;
  child_action_id: string | null;
  ledger_seq: number | null;
  result: { version: number } | null;
}

/** `POST /v1/repair/request` of `objectId` by `key`. */
export const requestRepair = (app: TestApp, key: TestKey, objectId: string) =>
  call<{ payload: RepairView }>(app.url, 'POST', '/v1/repair/request', {
    key: key.apiKey,
    body: { object_id: objectId, reason: 'attributes look wrong' },
  });

/** The repair `repairId` of `objectId`, as the api shows it now. */
export async function repairOf(
  app: TestApp,
  key: TestKey,
  repairId: string,
  objectId: string,
): Promise<RepairView> {
  const res = await call<{ payload: { items: RepairView[] } }>(
    app.url,
    'GET',
    `/v1/repair/state?object_id=${objectId}`,
    { key: key.apiKey },
  );
  if (res.status !== 200) throw new Error(`repair state: ${res.status} ${res.text}`);
  return res.body.payload.items.find((item) => item.repair_id === repairId)!;
}

/** The status of action `actionId` as the api shows it to `key`. */
async function actionStatusOf(app: TestApp, key: TestKey, actionId: string): Promise<string> {
  const res = await call<{ payload: { status: string } }>(
    app.url,
    'GET',
    `/v1/external-actions/${actionId}`,
    { key: key.apiKey },
  );
  return res.status === 200 ? res.body.payload.status : `http ${res.status}`;
}

/**
 * A repair, requested by `requester`, whose child action awaits approval: an object written
 * around its history (its attributes changed in the store), so `revalidate` plans a restore.
 */
export async function repairAwaitingApproval(app: TestApp, requester: TestKey) {
  const object = await seedRecordedObject(app, { attributes: { status: 'draft' } });
  await storedIn(app.deps.db).worldObjects.updateOne(
    { _id: object._id },
    { $set: { attributes: { status: 'hacked' } } },
  );
  const started = await requestRepair(app, requester, object._id);
  if (started.status !== 202) throw new Error(`repair request: ${started.status} ${started.text}`);
  const repair = started.body.payload.repair_id;
  const waiting = await eventually(
    () => repairOf(app, requester, repair, object._id),
    (view) => view?.status === 'awaiting_approval',
  );
  const child = waiting.child_action_id!;
  await eventually(
    () => actionStatusOf(app, requester, child),
    (status) => status === 'awaiting_approval',
  );
  return { repair, child, objectId: object._id };
}
