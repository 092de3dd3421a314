/** Views of subscriptions and deliveries (they document the OpenAPI responses). */
import {
  arrayOf,
  choice,
  count,
  dateTime,
  freeObject,
  integer,
  nullable,
  text,
  view,
} from '../../lib/schema';
import { TENANT_STATUSES } from '../governance/schemas';
import { DELIVERY_STATUSES, NOTIFICATION_EVENTS, subscriptionId } from './schemas';

export const subscriptionView = view(
  {
    subscription_id: subscriptionId('Subscription id.'),
    name: text('Name.', 128),
    url: text('Where deliveries go.', 2048),
    events: arrayOf(choice(NOTIFICATION_EVENTS, 'An event.'), 'Events delivered.', {
      maxItems: NOTIFICATION_EVENTS.length,
    }),
    match: freeObject('Only action events that match: `action_kind`, `shared_context_id`.'),
    reminder_before_seconds: nullable(count('Reminder lead before an approval window ends.')),
    status: choice(TENANT_STATUSES, 'Only active subscriptions get deliveries.'),
    version: integer('1 at creation, one more at every change.', 1, 1_000_000),
    created_at: dateTime('When created.'),
    updated_at: dateTime('Last change.'),
  },
  ['subscription_id', 'name', 'url', 'events', 'match', 'status', 'version'],
  'A notification subscription.',
);

export const deliveryView = view(
  {
    delivery_id: text('Delivery id (`ntf_…`), also the `Idempotency-Key` receivers dedupe on.', 64),
    subscription_id: subscriptionId('Subscription.'),
    event: choice(NOTIFICATION_EVENTS, 'Event.'),
    event_id: text('The event (`<action_id>:<seq>`, `<deployment_id>:ready`, ...).', 128),
    subject: freeObject('What it is about: `{type, id}`.'),
    data: freeObject('What the delivery body carries.'),
    deliver_at: dateTime('When it is due.'),
    status: choice(DELIVERY_STATUSES, 'Delivery state.'),
    attempts: arrayOf(
      view(
        {
          n: integer('Attempt number, from 1.', 1, 100_000),
          at: dateTime('When.'),
          status_code: nullable(integer('HTTP status answered.', 100, 599)),
          error: nullable(text('Why no answer came.', 2048)),
          duration_ms: count('How long it took.'),
        },
        ['n', 'at', 'status_code', 'error', 'duration_ms'],
      ),
      'Every attempt so far.',
      { maxItems: 10_000 },
    ),
    at: dateTime('When the event happened.'),
    updated_at: dateTime('Last change.'),
  },
  ['delivery_id', 'subscription_id', 'event', 'event_id', 'status', 'attempts', 'at'],
  'One notification to one subscription, with its attempts.',
);
