import type { Db } from 'mongodb';
import type { DeliveryStatus, NotificationEvent } from '../domain/notifications/schemas';
import { insertOnce } from './mongo';
import { newestByTimePage, type PagePosition } from './paging';

/** One try at delivering a notification. */
export interface DeliveryAttempt {
  n: number;
  at: string;
  /** The receiver's HTTP status; null when no answer came. */
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

/**
 * One notification for one subscription: the outbox row its delivery workflow works from.
 * `_id` derives from the event and the subscription, so an event recorded twice (a retried
 * activity) makes one notification, and receivers dedupe on it.
 */
export interface Notification {
  _id: string;
  subscription_id: string;
  event: NotificationEvent;
  /** The event's own id (`<action_id>:<seq>`, `<deployment_id>:ready`, ...). */
  event_id: string;
  subject: { type: 'action' | 'deployment'; id: string };
  data: Record<string, unknown>;
  /** When the delivery is due (reminders: before the window ends; others: at once). */
  deliver_at: string;
  status: DeliveryStatus;
  attempts: DeliveryAttempt[];
  /** When the event happened; deliveries list newest first by it. */
  at: string;
  updated_at: string;
}

export function createNotificationsRepo(db: Db) {
  const col = db.collection<Notification>('notifications');
  return {
    /** Records the notification once; false when it exists already. */
    insertOnce: (notification: Notification) => insertOnce(col, notification),
    findById: (id: string) => col.findOne({ _id: id }),
    /** Only its delivery workflow writes a notification, one activity after another. */
    async recordAttempt(id: string, attempt: DeliveryAttempt, status: DeliveryStatus) {
      await col.updateOne(
        { _id: id },
        { $push: { attempts: attempt }, $set: { status, updated_at: attempt.at } },
      );
    },
    async settle(id: string, status: DeliveryStatus, now: string) {
      await col.updateOne({ _id: id }, { $set: { status, updated_at: now } });
    },
    /**
     * Settles a notification that is still pending; one delivered, failed or skipped stays
     * so (a second delivery run of the same notification must not take a delivery back).
     */
    async settleIfPending(id: string, status: DeliveryStatus, now: string) {
      await col.updateOne({ _id: id, status: 'pending' }, { $set: { status, updated_at: now } });
    },
    /** One subscription's deliveries, newest first by (`at`, `_id`), after `after`. */
    listFor(
      subscriptionId: string,
      filter: { status?: DeliveryStatus },
      limit: number,
      after?: PagePosition,
    ) {
      return newestByTimePage(
        col,
        [
          { subscription_id: subscriptionId },
          ...(filter.status ? [{ status: filter.status }] : []),
        ],
        {},
        limit,
        after,
      );
    },
  };
}

export type NotificationsRepo = ReturnType<typeof createNotificationsRepo>;
