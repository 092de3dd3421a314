import type { Notification } from '../../store/notifications.repo';
import type { NotificationEvent } from './schemas';

/** An event worth a notification, as the record steps of workflows (and the api) report it. */
export interface NotifiableEvent {
  event: NotificationEvent;
  event_id: string;
  subject: Notification['subject'];
  at: string;
  data: Record<string, unknown>;
  /** For action events: what a subscription's `match` is compared with. */
  action?: { action_kind: string; shared_context_id: string | null; expires_at: string };
}

/** Tells subscribers about an event; answers how many deliveries it started. */
export type Notify = (event: NotifiableEvent) => Promise<number>;
