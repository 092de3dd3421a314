import * as subscriptionsService from '../../../domain/notifications/subscriptions.service';
import * as notificationsSchemas from '../../../domain/notifications/schemas';
import { deliveryView, subscriptionView } from '../../../domain/notifications/view-schemas';
import { pathParams } from '../../../lib/schema';
import { defineRoute, type RouteDefinition } from '../../route';
import { handOn, page } from '../common';
import { tenantRoutes } from './tenant-routes';

/** Notification subscriptions and their deliveries (docs/approvals.md), operator keys only. */
export const subscriptionRoutes: RouteDefinition[] = [
  ...tenantRoutes({
    resource: 'subscriptions',
    singular: 'subscription',
    view: subscriptionView,
    list: {
      summary: 'list notification subscriptions',
      description: 'Lists notification subscriptions, newest first, optionally by status.',
      query: notificationsSchemas.subscriptionListQuery,
      run: subscriptionsService.listSubscriptions,
    },
    create: {
      summary: 'create notification subscription',
      description:
        'Subscribes a URL (under WEBHOOK_ALLOWLIST) to action and deployment events. Each event makes one delivery per matching subscription, POSTed by its own workflow, signed (`X-Governed-Signature: t=<unix>,sha256=<HMAC of "<t>.<body>">`), retried with backoff for a day until a 2xx; `action.reminder` goes out `reminder_before_seconds` before an approval window ends, if the action still awaits approval.',
      bodyName: 'CreateSubscriptionRequest',
      links: handOn('subscription_id', '/payload/subscription_id', {
        path: { Deliveries: 'admin.subscriptions.deliveries' },
      }),
      body: notificationsSchemas.createSubscriptionBody,
      run: subscriptionsService.createSubscription,
    },
    setStatus: {
      summary: 'set subscription status',
      description:
        'Sets a subscription `active`, `suspended` or `archived`; deliveries not yet made to a subscription that is not active are skipped.',
      bodyName: 'SetSubscriptionStatusRequest',
      body: notificationsSchemas.setSubscriptionStatusBody,
      run: subscriptionsService.setSubscriptionStatus,
    },
  }),
  defineRoute({
    operationId: 'admin.subscriptions.deliveries',
    method: 'GET',
    path: '/v1/admin/subscriptions/{subscription_id}/deliveries',
    family: 'admin_control_plane',
    summary: 'list deliveries of a subscription',
    description:
      'Lists the deliveries of one subscription, newest first, optionally in one state, each with every attempt (time, HTTP status or error, duration).',
    request: {
      params: pathParams({
        subscription_id: notificationsSchemas.subscriptionId('Subscription id.'),
      }),
      query: notificationsSchemas.deliveryListQuery,
    },
    responses: {
      200: {
        description: 'A page of deliveries.',
        schema: page(deliveryView, notificationsSchemas.deliveryListQuery),
      },
    },
    handler: async (req, deps) => ({
      payload: await subscriptionsService.listDeliveries(
        deps,
        req.params.subscription_id,
        req.query,
      ),
    }),
  }),
];
