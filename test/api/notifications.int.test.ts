import { proposeUpdate } from '../helpers/actions';
import { createHmac } from 'node:crypto';
import { newId } from '../../src/lib/ids';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';
import { WebhookReceiver, type ReceivedCall } from '../helpers/webhook-receiver';

// Notifications (docs/approvals.md): an event makes one delivery per matching subscription,
// POSTed by its own workflow to a real local receiver, signed, retried until it answers.
interface Delivery {
  delivery_id: string;
  event: string;
  event_id: string;
  status: string;
  subject: { type: string; id: string };
  data: Record<string, unknown>;
  attempts: { n: number; status_code: number | null }[];
}

const receiver = new WebhookReceiver();
let receiverUrl: string;
let app: TestApp;
let worker: TestWorker;
let proposer: TestKey;
let approver: TestKey;
beforeAll(async () => {
  receiverUrl = await receiver.start();
  app = await startTestApp('notifications', { env: { WEBHOOK_ALLOWLIST: `${receiverUrl}/` } });
  worker = await startTestWorker(app.deps);
  proposer = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
  approver = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
});
afterAll(async () => {
  await worker.stop();
  await app.close();
  await receiver.stop();
});

const subscribe = (body: Record<string, unknown>) =>
  call<{ payload: { subscription_id: string } }>(
    app.url,
    'POST',
    '/v1/admin/subscriptions/create',
    { key: app.adminKey, body },
  );

const propose = (context: string) =>
  proposeUpdate(app, proposer, {
    patch: { status: 'sent' },
    bounds: { expires_in_seconds: 60 },
    shared_context_id: context,
    reason: 'tell the team',
  });

const deliveries = async (subscriptionId: string) =>
  (
    await call<{ payload: { items: Delivery[] } }>(
      app.url,
      'GET',
      `/v1/admin/subscriptions/${subscriptionId}/deliveries?limit=50`,
      { key: app.adminKey },
    )
  ).body.payload.items;

/**
 * Polls until `done` holds for the subscription's deliveries (at most ~45 s: a delivery
 * that failed retries after 1, 2, 4, … s, and a loaded machine adds to each step).
 */
async function waitFor(subscriptionId: string, done: (items: Delivery[]) => boolean) {
  let items: Delivery[] = [];
  for (let i = 0; i < 225; i += 1) {
    items = await deliveries(subscriptionId);
    if (done(items)) return items;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(
    `deliveries never settled: ${JSON.stringify(items.map((d) => [d.event, d.status]))}`,
  );
}

const signedCorrectly = (delivered: ReceivedCall, secret: string): boolean => {
  const timestamp = String(delivered.headers['x-governed-timestamp']);
  const expected = createHmac('sha256', secret)
    .update(`${timestamp}.${delivered.body}`)
    .digest('hex');
  return delivered.headers['x-governed-signature'] === `t=${timestamp},sha256=${expected}`;
};

describe('notification subscriptions', () => {
  it('deliver every transition and a reminder, signed, through a receiver that fails first', async () => {
    const context = `ctx-notify-${newId('tsk')}`;
    const sub = await subscribe({
      name: 'approvers channel',
      url: `${receiverUrl}/notify`,
      events: ['action.awaiting_approval', 'action.approved', 'action.executed', 'action.reminder'],
      match: { shared_context_id: context },
      reminder_before_seconds: 59,
    });
    expect(sub.status).toBe(201);
    const subscriptionId = sub.body.payload.subscription_id;
    receiver.calls.length = 0;
    receiver.failFirst = 2;

    const actionId = await propose(context);
    const first = await waitFor(
      subscriptionId,
      (items) => items.length === 2 && items.every((d) => d.status === 'delivered'),
    );
    expect(first.map((d) => d.event).sort()).toEqual([
      'action.awaiting_approval',
      'action.reminder',
    ]);
    const attempts = first.flatMap((d) => d.attempts.map((a) => a.status_code));
    expect(attempts.filter((code) => code === 500)).toHaveLength(2);
    expect(attempts.filter((code) => code === 200)).toHaveLength(2);
    expect(first[0].data).toMatchObject({ action_id: actionId, reason: 'tell the team' });

    await call(app.url, 'POST', `/v1/external-actions/${actionId}/approve`, {
      key: approver.apiKey,
      body: {},
    });
    await call(app.url, 'POST', `/v1/external-actions/${actionId}/execute`, {
      key: approver.apiKey,
      body: {},
    });
    const all = await waitFor(
      subscriptionId,
      (items) => items.length === 4 && items.every((d) => d.status === 'delivered'),
    );
    expect(new Set(all.map((d) => d.event))).toEqual(
      new Set([
        'action.awaiting_approval',
        'action.reminder',
        'action.approved',
        'action.executed',
      ]),
    );

    const secret = app.deps.config.webhookSigningSecret;
    const answered = receiver.calls.filter((c) => c.status === 200);
    expect(answered).toHaveLength(4);
    for (const delivered of receiver.calls) {
      expect(signedCorrectly(delivered, secret)).toBe(true);
      const body = JSON.parse(delivered.body) as { delivery_id: string; event: string };
      expect(delivered.headers['x-governed-delivery']).toBe(body.delivery_id);
      expect(delivered.headers['idempotency-key']).toBe(body.delivery_id);
    }
    const ids = answered.map((c) => (JSON.parse(c.body) as { delivery_id: string }).delivery_id);
    expect(new Set(ids).size).toBe(4); // each delivered once
  });

  it('skip a reminder whose action was decided before it was due', async () => {
    const context = `ctx-remind-${newId('tsk')}`;
    const sub = await subscribe({
      name: 'reminders only',
      url: `${receiverUrl}/remind`,
      events: ['action.reminder'],
      match: { shared_context_id: context },
      reminder_before_seconds: 57,
    });
    const actionId = await propose(context);
    const pending = await deliveries(sub.body.payload.subscription_id);
    expect(pending).toHaveLength(1);
    expect(pending[0]).toMatchObject({ event: 'action.reminder', status: 'pending' });
    await call(app.url, 'POST', `/v1/external-actions/${actionId}/reject`, {
      key: approver.apiKey,
      body: { reason: 'no' },
    });
    const settled = await waitFor(sub.body.payload.subscription_id, (items) =>
      items.every((d) => d.status !== 'pending'),
    );
    expect(settled[0]).toMatchObject({ status: 'skipped', attempts: [] });
  });

  it('deliver deployment.ready when a deployment is ready', async () => {
    const sub = await subscribe({
      name: 'deployments',
      url: `${receiverUrl}/deployments`,
      events: ['deployment.ready', 'deployment.failed'],
    });
    const deployed = await call<{ payload: { deployment_id: string } }>(
      app.url,
      'POST',
      '/v1/substrates/deploy',
      {
        key: proposer.apiKey,
        body: {
          spec: {
            scaffold: 'life-lattice',
            params: { width: 32, rule: 'B3/S23', ticks: 8, pattern: 'glider' },
          },
        },
      },
    );
    expect(deployed.status).toBe(201);
    const items = await waitFor(
      sub.body.payload.subscription_id,
      (list) => list.length === 1 && list[0].status === 'delivered',
    );
    expect(items[0]).toMatchObject({
      event: 'deployment.ready',
      event_id: `${deployed.body.payload.deployment_id}:ready`,
      subject: { type: 'deployment', id: deployed.body.payload.deployment_id },
      data: { stage: 'ready', status: 'ready' },
    });
  });

  it('stop once suspended: no delivery for later events', async () => {
    const context = `ctx-suspend-${newId('tsk')}`;
    const sub = await subscribe({
      name: 'to be suspended',
      url: `${receiverUrl}/suspended`,
      events: ['action.awaiting_approval'],
      match: { shared_context_id: context },
    });
    const id = sub.body.payload.subscription_id;
    const suspended = await call<{ payload: { item: { status: string; version: number } } }>(
      app.url,
      'POST',
      '/v1/admin/subscriptions/status',
      { key: app.adminKey, body: { subscription_id: id, status: 'suspended' } },
    );
    expect(suspended.status).toBe(200);
    expect(suspended.body.payload.item).toMatchObject({ status: 'suspended', version: 2 });
    await propose(context);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await deliveries(id)).toEqual([]);
  });

  it('refuse a URL outside the allowlist and a reminder without its lead, with 422', async () => {
    const outside = await subscribe({
      name: 'x',
      url: 'http://169.254.169.254/latest',
      events: ['action.approved'],
    });
    expect(outside.status).toBe(422);
    expect(JSON.stringify(outside.body)).toMatch(/WEBHOOK_ALLOWLIST/);
    const noLead = await subscribe({
      name: 'y',
      url: `${receiverUrl}/y`,
      events: ['action.reminder'],
    });
    expect(noLead.status).toBe(422);
    expect(JSON.stringify(noLead.body)).toMatch(/reminder_before_seconds/);
    const unknown = await call(
      app.url,
      'GET',
      `/v1/admin/subscriptions/${newId('sub')}/deliveries`,
      {
        key: app.adminKey,
      },
    );
    expect(unknown.status).toBe(404);
  });
});
