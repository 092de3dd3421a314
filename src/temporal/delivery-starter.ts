import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { WorkflowTypes } from '../workflows/workflow-types';
import { deliveryStaticDetails } from '../domain/notifications/delivery-text';
import { oneLine } from '../lib/workflow-text';
import {
  deliveryText,
  notificationWorkflowId,
  type NotificationDeliveryInput,
} from '../workflows/notification-delivery.contract';

export interface DeliveryStarterOptions {
  /** The client to start with, connected on first use. */
  client: () => Promise<Client>;
  taskQueue: string;
  /** Where delivery workflows' details link back to (`PUBLIC_BASE_URL`); none: paths only. */
  publicBaseUrl?: string;
}

/**
 * Starts the delivery workflow of a notification (`notification-<id>`); a second start of
 * one is a no-op. The worker's notifier uses it, and the api's when it records what
 * Temporal did to a workflow (an aborted action).
 */
export function createDeliveryStarter(options: DeliveryStarterOptions) {
  return async function startDelivery(
    notificationId: string,
    deliverAt: string,
    about?: NotificationDeliveryInput['about'],
  ): Promise<void> {
    const input: NotificationDeliveryInput = {
      notification_id: notificationId,
      deliver_at: deliverAt,
      ...(about ? { about } : {}),
    };
    try {
      await (
        await options.client()
      ).workflow.start<WorkflowTypes['notificationDeliveryWorkflow']>(
        'notificationDeliveryWorkflow',
        {
          workflowId: notificationWorkflowId(notificationId),
          taskQueue: options.taskQueue,
          args: [input],
          staticSummary: oneLine(deliveryText(input)),
          staticDetails: deliveryStaticDetails(input, options.publicBaseUrl ?? ''),
        },
      );
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  };
}
