import type { Db } from 'mongodb';
import type { NotificationEvent, SubscriptionListQuery } from '../domain/notifications/schemas';
import type { ListFilter } from '../lib/schema';
import { tenantRecords, type TenantRecord } from './tenant-records';

/** Where and which events an operator wants delivered. */
export interface Subscription extends TenantRecord {
  name: string;
  url: string;
  events: NotificationEvent[];
  match: { action_kind?: string; shared_context_id?: string };
  reminder_before_seconds: number | null;
  version: number;
}

export function createSubscriptionsRepo(db: Db) {
  const col = db.collection<Subscription>('subscriptions');
  return {
    ...tenantRecords<Subscription, ListFilter<SubscriptionListQuery>>(col, { status: 'status' }),
    /** Active subscriptions to any of `events` (a short list, written by operators). */
    activeFor: (events: readonly NotificationEvent[]) =>
      col.find({ status: 'active', events: { $in: [...events] } }).toArray(),
  };
}

export type SubscriptionsRepo = ReturnType<typeof createSubscriptionsRepo>;
