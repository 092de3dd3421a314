/**
 * Notifications (docs/approvals.md): operator-managed subscriptions to action and
 * deployment events, delivered durably and signed. Request types derive from the schemas.
 */
import type { Static } from '@sinclair/typebox';
import * as schema from '../../lib/schema';
import { ACTION_KINDS } from '../external-actions/schemas';
import { tenantStatusBody, tenantStatus } from '../governance/schemas';
import { idCursor, timeCursor } from '../../lib/cursor';

/** Events a subscription may ask for. */
export const NOTIFICATION_EVENTS = [
  'action.awaiting_approval',
  'action.approved',
  'action.rejected',
  'action.executed',
  'action.failed',
  'action.expired',
  'action.aborted',
  'action.reminder',
  'deployment.ready',
  'deployment.failed',
] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

/** Delivery states: `pending` until a 2xx (`delivered`), a refusal or the retries run out. */
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'skipped'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const subscriptionId = (description: string) => schema.idRef('sub', description);

/** Body of `POST /v1/admin/subscriptions/create`. */
export const createSubscriptionBody = schema.closedObject(
  {
    name: schema.text('Subscription name.', 128),
    url: schema.patterned(
      'Where deliveries are POSTed; it must start with one of WEBHOOK_ALLOWLIST.',
      '^https?://[^\\s]+$',
      2048,
    ),
    events: schema.arrayOf(schema.choice(NOTIFICATION_EVENTS, 'An event.'), 'Events to deliver.', {
      minItems: 1,
      maxItems: NOTIFICATION_EVENTS.length,
      uniqueItems: true,
    }),
    match: schema.closedObject(
      {
        action_kind: schema.choice(ACTION_KINDS, 'Only actions of this kind.'),
        shared_context_id: schema.contextRef('Only actions in this shared context.'),
      },
      [],
      'Only action events that match (deployment events ignore it).',
    ),
    reminder_before_seconds: schema.integer(
      'For `action.reminder`: how long before an approval window ends the reminder goes out.',
      1,
      604_800,
    ),
  },
  ['name', 'url', 'events'],
);
export type CreateSubscriptionBody = Static<typeof createSubscriptionBody>;

/** Query of `GET /v1/admin/subscriptions`. */
export const subscriptionListQuery = schema.pagedQuery(idCursor('sub').schema, {
  status: tenantStatus('Only subscriptions in this status.'),
});
export type SubscriptionListQuery = Static<typeof subscriptionListQuery>;

/** Body of `POST /v1/admin/subscriptions/status`; only active subscriptions get deliveries. */
export const setSubscriptionStatusBody = tenantStatusBody(
  'subscription_id',
  subscriptionId('Subscription to change.'),
);
export type SetSubscriptionStatusBody = Static<typeof setSubscriptionStatusBody>;

/** Query of `GET /v1/admin/subscriptions/{subscription_id}/deliveries`. */
export const deliveryListQuery = schema.pagedQuery(timeCursor.schema, {
  status: schema.choice(DELIVERY_STATUSES, 'Only deliveries in this state.'),
});
export type DeliveryListQuery = Static<typeof deliveryListQuery>;
