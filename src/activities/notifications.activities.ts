import { createHash, createHmac } from 'node:crypto';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { NotifiableEvent } from '../domain/notifications/notifiable-event';
import type { NotificationEvent } from '../domain/notifications/schemas';
import type { Repos } from '../store';
import type { Subscription } from '../store/subscriptions.repo';
import type { NotificationDeliveryInput } from '../workflows/notification-delivery.contract';

export type { NotifiableEvent } from '../domain/notifications/notifiable-event';

export interface NotificationDeps {
  repos: Pick<Repos, 'subscriptions' | 'notifications' | 'externalActions'>;
  webhookSigningSecret: string;
  webhookTimeoutMs: number;
  /**
   * Starts the delivery workflow of a notification; a second start of one is a no-op.
   * `about` names what it delivers to whom, for the Web UI.
   */
  startDelivery(
    notificationId: string,
    deliverAt: string,
    about?: NotificationDeliveryInput['about'],
  ): Promise<void>;
}

/** The notification's id: the same event and subscription always give the same one. */
export const notificationIdOf = (eventId: string, subscriptionId: string): string =>
  `ntf_${createHash('sha256').update(`${eventId}|${subscriptionId}`).digest('hex').slice(0, 32)}`;

const matches = (subscription: Subscription, event: NotifiableEvent): boolean =>
  !event.action ||
  ((!subscription.match.action_kind ||
    subscription.match.action_kind === event.action.action_kind) &&
    (!subscription.match.shared_context_id ||
      subscription.match.shared_context_id === event.action.shared_context_id));

/**
 * Writes one notification per matching active subscription (the outbox) and starts each
 * one's delivery workflow. Idempotent: a retry finds the same notifications and the
 * workflows already started. An action's arrival at `awaiting_approval` also schedules its
 * reminders, `reminder_before_seconds` before the window ends.
 */
export function createNotifier(deps: NotificationDeps) {
  const { repos } = deps;
  return async function notify(event: NotifiableEvent): Promise<number> {
    const reminders = event.event === 'action.awaiting_approval';
    const wanted: NotificationEvent[] = reminders
      ? [event.event, 'action.reminder']
      : [event.event];
    const subscriptions = (await repos.subscriptions.activeFor(wanted)).filter((s) =>
      matches(s, event),
    );
    let started = 0;
    for (const subscription of subscriptions) {
      const deliveries: Array<{ kind: NotificationEvent; id: string; at: string }> = [];
      if (subscription.events.includes(event.event)) {
        deliveries.push({ kind: event.event, id: event.event_id, at: event.at });
      }
      if (reminders && event.action && subscription.events.includes('action.reminder')) {
        const before = (subscription.reminder_before_seconds ?? 3600) * 1000;
        const due = Date.parse(event.action.expires_at) - before;
        deliveries.push({
          kind: 'action.reminder',
          id: `${event.event_id}:reminder`,
          at: new Date(Math.max(due, Date.parse(event.at))).toISOString(),
        });
      }
      for (const delivery of deliveries) {
        const id = notificationIdOf(delivery.id, subscription._id);
        await repos.notifications.insertOnce({
          _id: id,
          subscription_id: subscription._id,
          event: delivery.kind,
          event_id: delivery.id,
          subject: event.subject,
          data: event.data,
          deliver_at: delivery.at,
          status: 'pending',
          attempts: [],
          at: event.at,
          updated_at: event.at,
        });
        await deps.startDelivery(id, delivery.at, {
          event: delivery.kind,
          subject_id: event.subject.id,
          subscription_id: subscription._id,
          subscription_name: subscription.name,
        });
        started += 1;
      }
    }
    return started;
  };
}

const retryable = (status: number): boolean => status >= 500 || status === 408 || status === 429;

/** The activities of the delivery workflow. */
export function createNotificationActivities(deps: NotificationDeps) {
  const { repos } = deps;
  return {
    /** False when the notification no longer matters: a reminder for a decided action. */
    async notificationStillDue(notificationId: string): Promise<boolean> {
      const notification = await repos.notifications.findById(notificationId);
      if (!notification || notification.status !== 'pending') return false;
      if (notification.event !== 'action.reminder') return true;
      const action = await repos.externalActions.findById(notification.subject.id);
      return action?.status === 'awaiting_approval';
    },

    /** Settles it unless it was settled already (a delivery stays delivered). */
    async settleNotification(notificationId: string, status: 'failed' | 'skipped'): Promise<void> {
      await repos.notifications.settleIfPending(notificationId, status, new Date().toISOString());
    },

    /**
     * One signed POST; the attempt is recorded either way. A 2xx delivers, a 4xx other than
     * 408/429 is final (the receiver refuses it), anything else is retried with backoff.
     */
    async deliverNotification(notificationId: string): Promise<void> {
      const notification = await repos.notifications.findById(notificationId);
      if (!notification || notification.status === 'delivered') return;
      const subscription = await repos.subscriptions.findById(notification.subscription_id);
      if (!subscription || subscription.status !== 'active') {
        await repos.notifications.settle(notificationId, 'skipped', new Date().toISOString());
        return;
      }
      const n = Context.current().info.attempt;
      const timestamp = String(Math.floor(Date.now() / 1000));
      const body = JSON.stringify({
        delivery_id: notification._id,
        event: notification.event,
        event_id: notification.event_id,
        subscription_id: subscription._id,
        occurred_at: notification.at,
        subject: notification.subject,
        data: notification.data,
      });
      const signature = createHmac('sha256', deps.webhookSigningSecret)
        .update(`${timestamp}.${body}`)
        .digest('hex');
      const started = Date.now();
      let statusCode: number | null = null;
      let error: string | null = null;
      try {
        const response = await fetch(subscription.url, {
          method: 'POST',
          headers: {
            'Content-Type': 'application/json',
            'Idempotency-Key': notification._id,
            'X-Governed-Delivery': notification._id,
            'X-Governed-Event': notification.event,
            'X-Governed-Timestamp': timestamp,
            'X-Governed-Signature': `t=${timestamp},sha256=${signature}`,
          },
          body,
          signal: AbortSignal.timeout(deps.webhookTimeoutMs),
        });
        statusCode = response.status;
      } catch (failure) {
        error = failure instanceof Error ? failure.message : String(failure);
      }
      const delivered = statusCode !== null && statusCode >= 200 && statusCode < 300;
      const attempt = {
        n,
        at: new Date().toISOString(),
        status_code: statusCode,
        error,
        duration_ms: Date.now() - started,
      };
      await repos.notifications.recordAttempt(
        notificationId,
        attempt,
        delivered ? 'delivered' : 'pending',
      );
      if (delivered) return;
      if (statusCode !== null && !retryable(statusCode)) {
        throw ApplicationFailure.nonRetryable(
          `the receiver refused the delivery: ${statusCode}`,
          'DeliveryRefused',
        );
      }
      throw new Error(
        `delivery attempt ${n} failed: ${error ?? `answered ${statusCode}`}; retrying`,
      );
    },
  };
}
