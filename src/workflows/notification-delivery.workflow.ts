import {
  proxyActivities,
  setCurrentDetails,
  sleep,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { NotificationActivities } from '../activities';
import { clock, oneLine } from '../lib/workflow-text';
import { deliveryCurrentDetails, type DeliveryStage } from './ops-details';
import { deliveryText, type NotificationDeliveryInput } from './notification-delivery.contract';

// Each POST is one attempt, recorded on the notification; Temporal's retry policy is the
// backoff (1 s doubling to 10 min) for a day, so a receiver that recovers gets it.
const DELIVER_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '1 day',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 minutes' },
};
const STEP_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
};
const { deliverNotification } = proxyActivities<NotificationActivities>(DELIVER_OPTIONS);
const { notificationStillDue, settleNotification } =
  proxyActivities<NotificationActivities>(STEP_OPTIONS);

/**
 * Delivers one notification at least once: waits until it is due (a durable timer), checks
 * it still matters (a reminder for an action already decided does not), then POSTs it, signed,
 * until the receiver answers 2xx, refuses it (4xx), or a day of retries runs out. Each step
 * names itself in the Web UI (current details, activity and timer summaries).
 */
export async function notificationDeliveryWorkflow(
  input: NotificationDeliveryInput,
): Promise<string> {
  const what = deliveryText(input);
  const show = (stage: DeliveryStage) =>
    setCurrentDetails(deliveryCurrentDetails(what, stage, input.deliver_at));
  const settle = async (status: 'failed' | 'skipped') => {
    await settleNotification.executeWithOptions(
      { ...STEP_OPTIONS, summary: `record the notification ${status}` },
      [input.notification_id, status],
    );
    show(status);
  };
  const wait = Date.parse(input.deliver_at) - Date.now();
  if (wait > 0) {
    show('waiting');
    await sleep(wait, { summary: oneLine(`wait until due at ${clock(input.deliver_at)}`) });
  }
  show('checking');
  const due = await notificationStillDue.executeWithOptions(
    { ...STEP_OPTIONS, summary: 'check the notification still matters' },
    [input.notification_id],
  );
  if (!due) {
    await settle('skipped');
    return 'skipped';
  }
  show('delivering');
  try {
    await deliverNotification.executeWithOptions(
      { ...DELIVER_OPTIONS, summary: oneLine(`${what} (signed POST, retried for a day)`) },
      [input.notification_id],
    );
    show('delivered');
    return 'delivered';
  } catch (error) {
    // Recorded, then the workflow fails too: the Web UI and the failure watcher show it.
    await settle('failed');
    throw error;
  }
}
