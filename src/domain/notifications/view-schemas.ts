/** Views of subscriptions and deliveries (they document the OpenAPI responses). */
import * as schema from '../../lib/schema';
import { TENANT_STATUSES } from '../governance/schemas';
import { DELIVERY_STATUSES, NOTIFICATION_EVENTS, subscriptionId } from './schemas';

export const subscriptionView = schema.view(
  {
    subscription_id: subscriptionId('Subscription id.'),
    name: schema.text('Name.', 128),
    url: schema.text('Where deliveries go.', 2048),
    events: schema.arrayOf(schema.choice(NOTIFICATION_EVENTS, 'An event.'), 'Events delivered.', {
      maxItems: NOTIFICATION_EVENTS.length,
    }),
    match: schema.freeObject('Only action events that match: `action_kind`, `shared_context_id`.'),
    reminder_before_seconds: schema.nullable(
      schema.count('Reminder lead before an approval window ends.'),
    ),
    status: schema.choice(TENANT_STATUSES, 'Only active subscriptions get deliveries.'),
    version: schema.integer('1 at creation, one more at every change.', 1, 1_000_000),
    created_at: schema.dateTime('When created.'),
    updated_at: schema.dateTime('Last change.'),
  },
  ['subscription_id', 'name', 'url', 'events', 'match', 'status', 'version'],
  'A notification subscription.',
);

export const deliveryView = schema.view(
  {
    delivery_id: schema.text(
      'Delivery id (`ntf_…`), also the `Idempotency-Key` receivers dedupe on.',
      64,
    ),
    subscription_id: subscriptionId('Subscription.'),
    event: schema.choice(NOTIFICATION_EVENTS, 'Event.'),
    event_id: schema.text('The event (`<action_id>:<seq>`, `<deployment_id>:ready`, ...).', 128),
    subject: schema.freeObject('What it is about: `{type, id}`.'),
    data: schema.freeObject('What the delivery body carries.'),
    deliver_at: schema.dateTime('When it is due.'),
    status: schema.choice(DELIVERY_STATUSES, 'Delivery state.'),
    attempts: schema.arrayOf(
      schema.view(
        {
          n: schema.integer('Attempt number, from 1.', 1, 100_000),
          at: schema.dateTime('When.'),
          status_code: schema.nullable(schema.integer('HTTP status answered.', 100, 599)),
          error: schema.nullable(schema.text('Why no answer came.', 2048)),
          duration_ms: schema.count('How long it took.'),
        },
        ['n', 'at', 'status_code', 'error', 'duration_ms'],
      ),
      'Every attempt so far.',
      { maxItems: 10_000 },
    ),
    at: schema.dateTime('When the event happened.'),
    updated_at: schema.dateTime('Last change.'),
  },
  ['delivery_id', 'subscription_id', 'event', 'event_id', 'status', 'attempts', 'at'],
  'One notification to one subscription, with its attempts.',
);
