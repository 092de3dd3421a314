import { newId } from '../../src/lib/ids';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker } from '../helpers/test-worker';

// Issue 10, risk 8: proposing through update-with-start had no deadline, so with no worker
// polling the request hung for as long as the client waited.
let app: TestApp;
let proposer: TestKey;

beforeAll(async () => {
  app = await startTestApp('actions_deadline', { env: { PROPOSE_TIMEOUT_MS: '1500' } });
  proposer = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
});
afterAll(() => app.close());

type Answer = {
  payload: { action_id: string; status: string };
  error?: { code: string; message: string; action_id?: string; workflow_id?: string };
};

it('answers 503 naming the action when no worker settles its dry run in time', async () => {
  const now = new Date().toISOString();
  const object = await app.deps.repos.worldObjects.insert({
    _id: newId('obj'),
    kind: 'document',
    name: 'Deadline report',
    attributes: { status: 'draft' },
    external_state: {},
    version: 1,
    created_at: now,
    updated_at: now,
  });
  const startedAt = Date.now();
  const res = await call<Answer>(app.url, 'POST', '/v1/external-actions/propose', {
    key: proposer.apiKey,
    body: {
      action_kind: 'world.update_object',
      target: { world_object_ref: object._id },
      parameters: { patch: { status: 'final' } },
      bounds: { allowed_fields: ['status'] },
    },
  });
  expect(Date.now() - startedAt).toBeLessThan(15_000);
  expect(res.status).toBe(503);
  expect(res.body.error?.code).toBe('unavailable');
  const actionId = res.body.error?.action_id;
  expect(actionId).toMatch(/^act_/);
  expect(res.headers.get('retry-after')).toBe('5');

  // Nothing half-written: no projection yet; Temporal holds the action, which goes on once
  // a worker comes, and is then readable as usual.
  const read = () =>
    call<Answer>(app.url, 'GET', `/v1/external-actions/${actionId}`, { key: proposer.apiKey });
  expect((await read()).status).toBe(404);
  const worker = await startTestWorker(app.deps);
  try {
    let current = await read();
    for (let i = 0; i < 60 && current.body.payload?.status !== 'awaiting_approval'; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      current = await read();
    }
    expect(current.status).toBe(200);
    expect(current.body.payload.status).toBe('awaiting_approval');
  } finally {
    await worker.stop();
  }
}, 60_000);
