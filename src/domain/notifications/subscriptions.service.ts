import type { DomainInfra } from '../infra';
import type { AuthContext } from '../../auth/auth-context';
import { Invalid, notFound } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { Notification } from '../../store/notifications.repo';
import { decodePageCursor } from '../../store/paging';
import type { Subscription } from '../../store/subscriptions.repo';
import { createdActive } from '../governance/audit';
import * as tenant from '../governance/tenant-resource';
import type {
  CreateSubscriptionBody,
  DeliveryListQuery,
  SetSubscriptionStatusBody,
  SubscriptionListQuery,
} from './schemas';
import { withIdAs } from '../../lib/records';

type Deps = Pick<DomainInfra, 'authenticator' | 'config' | 'repos'>;

export const toSubscriptionView = (subscription: Subscription) =>
  withIdAs(subscription, 'subscription_id');

/** Deliveries not yet made to a subscription suspended or archived are skipped. */
const subscriptions = tenant.resource(
  'subscription',
  'sub',
  (repos) => repos.subscriptions,
  toSubscriptionView,
);

export const toDeliveryView = (notification: Notification) => withIdAs(notification, 'delivery_id');

/**
 * Creates an active subscription. Its URL must start with a WEBHOOK_ALLOWLIST prefix (the
 * one list of places the service may call); `action.reminder` needs `reminder_before_seconds`.
 */
export async function createSubscription(
  deps: Deps,
  auth: AuthContext,
  requestId: string,
  body: CreateSubscriptionBody,
) {
  const issues = [];
  if (!deps.config.webhookAllowlist.some((prefix) => body.url.startsWith(prefix))) {
    issues.push({
      loc: ['body', 'url'],
      msg: `the URL is not under WEBHOOK_ALLOWLIST (${deps.config.webhookAllowlist.join(', ') || 'empty'})`,
      type: 'value_error.allowlist',
    });
  }
  if (body.events.includes('action.reminder') && body.reminder_before_seconds === undefined) {
    issues.push({
      loc: ['body', 'reminder_before_seconds'],
      msg: '`action.reminder` needs reminder_before_seconds',
      type: 'value_error.missing',
    });
  }
  if (issues.length > 0) throw new Invalid(issues);
  const subscription: Subscription = {
    _id: newId('sub'),
    name: body.name,
    url: body.url,
    events: body.events,
    match: body.match ?? {},
    reminder_before_seconds: body.reminder_before_seconds ?? null,
    version: 1,
    ...createdActive(new Date().toISOString()),
  };
  return tenant.create(deps, auth, requestId, subscriptions, subscription);
}

export const listSubscriptions = (deps: Pick<DomainInfra, 'repos'>, query: SubscriptionListQuery) =>
  tenant.list(deps, subscriptions, query);

export const setSubscriptionStatus = tenant.statusSetter(
  subscriptions,
  (body: SetSubscriptionStatusBody) => body.subscription_id,
);

/** A subscription's deliveries, newest first, each with its attempts. */
export async function listDeliveries(
  deps: Pick<DomainInfra, 'repos'>,
  subscriptionId: string,
  query: DeliveryListQuery,
) {
  if (!(await deps.repos.subscriptions.findById(subscriptionId))) {
    throw notFound(`subscription ${subscriptionId}`);
  }
  const page = await deps.repos.notifications.listFor(
    subscriptionId,
    { status: query.status },
    query.limit ?? 50,
    query.cursor ? decodePageCursor(query.cursor) : undefined,
  );
  return { items: page.items.map(toDeliveryView), next_cursor: page.next_cursor };
}
