import type { Client } from '@temporalio/client';
import { newId } from '../../../src/lib/ids';
import { notificationWorkflowId } from '../../../src/workflows/notification-delivery.contract';
import { proposeUpdate } from '../../helpers/actions';
import { call } from '../../helpers/http';
import { createTestKey, type TestKey } from '../../helpers/keys';
import { startTestApp, type TestApp } from '../../helpers/test-app';
import { startTestWorker, type TestWorker } from '../../helpers/test-worker';
import { WebhookReceiver } from '../../helpers/webhook-receiver';
import { saveHistory } from './save-history';

// notificationDeliveryWorkflow: delivered at once, delivered after waiting until due (a
// reminder), and skipped (a reminder for an action decided before it was due).
interface Delivery {
  delivery_id: string;
  event: string;
  status: string;
}

const receiver = new WebhookReceiver();
let receiverUrl: string;
let app: TestApp;
let worker: TestWorker;
let client: Client;
let proposer: TestKey;
let approver: TestKey;
beforeAll(async () => {
  receiverUrl = await receiver.start();
  app = await startTestApp('capture_notifications', {
    env: { WEBHOOK_ALLOWLIST: `${receiverUrl}/` },
  });
  worker = await startTestWorker(app.deps);
  client = await app.deps.temporal.getClient();
  const strategic = { entitlement: 'strategic', accessLayer: 2 } as const;
  [proposer, approver] = await Promise.all([
    createTestKey(app, strategic),
    createTestKey(app, strategic),
  ]);
});
afterAll(async () => {
  await worker.stop();
  await app.close();
  await receiver.stop();
});

/** A subscription to `events` of actions in a context of its own; answers both ids. */
async function subscribed(
  events: string[],
  reminderBeforeSeconds?: number,
): Promise<{ subscriptionId: string; context: string }> {
  const context = `ctx-capture-${newId('tsk')}`;
  const res = await call<{ payload: { subscription_id: string } }>(
    app.url,
    'POST',
    '/v1/admin/subscriptions/create',
    {
      key: app.adminKey,
      body: {
        name: `capture ${events.join(', ')}`,
        url: `${receiverUrl}/notify`,
        events,
        match: { shared_context_id: context },
        ...(reminderBeforeSeconds ? { reminder_before_seconds: reminderBeforeSeconds } : {}),
      },
    },
  );
  if (res.status !== 201) throw new Error(`subscribe: ${res.status} ${res.text}`);
  return { subscriptionId: res.body.payload.subscription_id, context };
}

/** The subscription's one delivery, once there is one. */
async function onlyDelivery(subscriptionId: string): Promise<Delivery> {
  for (let i = 0; i < 100; i += 1) {
    const res = await call<{ payload: { items: Delivery[] } }>(
      app.url,
      'GET',
      `/v1/admin/subscriptions/${subscriptionId}/deliveries`,
      { key: app.adminKey },
    );
    if (res.body.payload.items.length > 0) return res.body.payload.items[0];
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`subscription ${subscriptionId} never made a delivery`);
}

const propose = (context: string) =>
  proposeUpdate(app, proposer, {
    patch: { status: 'sent' },
    bounds: { expires_in_seconds: 60 },
    shared_context_id: context,
  });

describe('notificationDeliveryWorkflow histories', () => {
  it('delivered at once: action.awaiting_approval', async () => {
    const { subscriptionId, context } = await subscribed(['action.awaiting_approval']);
    await propose(context);
    const delivery = await onlyDelivery(subscriptionId);
    const { result } = await saveHistory(
      client,
      'delivered',
      notificationWorkflowId(delivery.delivery_id),
    );
    expect(result).toBe('delivered');
  });

  it('delivered after waiting until due: action.reminder', async () => {
    const { subscriptionId, context } = await subscribed(['action.reminder'], 58);
    await propose(context);
    const delivery = await onlyDelivery(subscriptionId);
    const { result } = await saveHistory(
      client,
      'reminder-waited-delivered',
      notificationWorkflowId(delivery.delivery_id),
    );
    expect(result).toBe('delivered');
  });

  it('skipped: a reminder whose action was decided before it was due', async () => {
    const { subscriptionId, context } = await subscribed(['action.reminder'], 50);
    const actionId = await propose(context);
    const delivery = await onlyDelivery(subscriptionId);
    const rejected = await call(app.url, 'POST', `/v1/external-actions/${actionId}/reject`, {
      key: approver.apiKey,
      body: { reason: 'no' },
    });
    expect(rejected.status).toBe(200);
    const { result } = await saveHistory(
      client,
      'reminder-skipped',
      notificationWorkflowId(delivery.delivery_id),
    );
    expect(result).toBe('skipped');
  });
});
