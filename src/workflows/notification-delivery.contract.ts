/** What a notification delivery workflow is started with. */
export interface NotificationDeliveryInput {
  notification_id: string;
  /** When the delivery is due: now, or a reminder's time before an approval window ends. */
  deliver_at: string;
  /** What it delivers to whom, for the Web UI (`action.approved` of `act_…` to `ops hook`). */
  about?: {
    event: string;
    subject_id: string;
    subscription_id: string;
    subscription_name: string;
  };
}

/** A delivery in one line: `deliver action.approved of act_… to ops hook`. */
export const deliveryText = (input: NotificationDeliveryInput): string =>
  input.about
    ? `deliver ${input.about.event} of ${input.about.subject_id} to ${input.about.subscription_name}`
    : `deliver notification ${input.notification_id}`;

export const notificationWorkflowId = (notificationId: string): string =>
  `notification-${notificationId}`;
