import { proxyActivities, sleep } from '@temporalio/workflow';
import type { NotificationActivities } from '../activities';
import type { NotificationDeliveryInput } from './shared';

// Each POST is one attempt, recorded on the notification; Temporal's retry policy is the
// backoff (1 s doubling to 10 min) for a day, so a receiver that recovers gets it.
const { deliverNotification } = proxyActivities<NotificationActivities>({
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '1 day',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 minutes' },
});
const { notificationStillDue, settleNotification } = proxyActivities<NotificationActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * Delivers one notification at least once: waits until it is due (a durable timer), checks
 * it still matters (a reminder for an action already decided does not), then POSTs it, signed,
 * until the receiver answers 2xx, refuses it (4xx), or a day of retries runs out.
 */
export async function notificationDeliveryWorkflow(
  input: NotificationDeliveryInput,
): Promise<string> {
  const wait = Date.parse(input.deliver_at) - Date.now();
  if (wait > 0) await sleep(wait);
  if (!(await notificationStillDue(input.notification_id))) {
    await settleNotification(input.notification_id, 'skipped');
    return 'skipped';
  }
  try {
    await deliverNotification(input.notification_id);
    return 'delivered';
  } catch (error) {
    // Recorded, then the workflow fails too: the Web UI and the failure watcher show it.
    await settleNotification(input.notification_id, 'failed');
    throw error;
  }
}
