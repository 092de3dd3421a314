import { clock, code, detailsMarkdown, mdText } from '../../lib/workflow-text';
import type { NotificationDeliveryInput } from '../../workflows/notification-delivery.contract';

/**
 * A delivery workflow's static details (Markdown): what it delivers, to which subscription,
 * when it is due, and links to the subscription's deliveries in the api and to the console.
 * Built by the worker when it starts the delivery, from what the notifier had at hand.
 */
export function deliveryStaticDetails(input: NotificationDeliveryInput, baseUrl: string): string {
  const about = input.about;
  return detailsMarkdown(
    about
      ? `${code(about.event)} of ${code(about.subject_id)} to ${mdText(about.subscription_name)}`
      : `Notification ${code(input.notification_id)}`,
    {
      Notification: code(input.notification_id),
      Event: about ? code(about.event) : null,
      Subject: about ? code(about.subject_id) : null,
      Subscription: about
        ? `${mdText(about.subscription_name)} (${code(about.subscription_id)})`
        : null,
      Due: clock(input.deliver_at),
      Attempts:
        'each one recorded on the notification (status code, error, duration); the pending activity shows the attempt number',
    },
    {
      api: `${baseUrl}/v1/admin/subscriptions${about ? `/${about.subscription_id}/deliveries` : ''}`,
      console: `${baseUrl}/console`,
    },
  );
}
