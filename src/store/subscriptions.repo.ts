import type { Db } from 'mongodb';
import type { NotificationEvent, SubscriptionListQuery } from '../domain/notifications/schemas';
import type { ListFilter } from '../lib/schema';
import type { TenantStatus } from './organizations.repo';
import { newestByIdPage } from './paging';

/** Where and which events an operator wants delivered. */
export interface Subscription {
  _id: string;
  name: string;
  url: string;
  events: NotificationEvent[];
  match: { action_kind?: string; shared_context_id?: string };
  reminder_before_seconds: number | null;
  status: TenantStatus;
  version: number;
  created_at: string;
  updated_at: string;
}

export function createSubscriptionsRepo(db: Db) {
  const col = db.collection<Subscription>('subscriptions');
  return {
    async insert(subscription: Subscription): Promise<Subscription> {
      await col.insertOne(subscription);
      return subscription;
    },
    findById: (id: string) => col.findOne({ _id: id }),
    /** Subscriptions newest first, before `beforeId`; `limit + 1` rows. */
    list(filter: ListFilter<SubscriptionListQuery>, limit: number, beforeId?: string) {
      return newestByIdPage(col, filter.status ? { status: filter.status } : {}, limit, beforeId);
    },
    async setStatus(subscription: Subscription, status: TenantStatus, now: string) {
      await col.updateOne(
        { _id: subscription._id },
        { $set: { status, version: subscription.version + 1, updated_at: now } },
      );
    },
    /** Active subscriptions to any of `events` (a short list, written by operators). */
    activeFor: (events: readonly NotificationEvent[]) =>
      col.find({ status: 'active', events: { $in: [...events] } }).toArray(),
  };
}

export type SubscriptionsRepo = ReturnType<typeof createSubscriptionsRepo>;
