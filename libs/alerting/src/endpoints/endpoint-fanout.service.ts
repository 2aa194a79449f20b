import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '@platform/core';
import { JobName, JobQueue } from '@platform/queue';
import type { EndpointEvent } from './endpoints.repository.js';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';
import {
  deliveryJobOptions,
  WEBHOOK_DELIVERY_POLICY,
  type WebhookDeliveryPolicy,
} from './webhook-policy.js';

/**
 * Turns alert changes into webhook deliveries: one row per (endpoint, alert, event), written
 * in one statement, then one job per row whose id is the delivery id, so a delivery is sent
 * by exactly one job however often it is enqueued. Disabled endpoints, endpoints not
 * subscribed to the event, and ids outside the project are skipped silently. Delivery is at
 * least once: receivers deduplicate on `webhook-id`.
 *
 * The payload follows the Standard Webhooks shape `{type, timestamp, data}`:
 * `{type: 'alert_firing' | 'alert_resolved', timestamp, data: {alert: {id, project_id,
 * fingerprint, status, severity, labels, annotations, starts_at, ends_at, generator_url}}}`,
 * the alert as it is when the fan-out runs.
 */
@Injectable()
export class EndpointFanout {
  constructor(
    private readonly clock: Clock,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly jobs: JobQueue,
    @Inject(WEBHOOK_DELIVERY_POLICY) private readonly policy: WebhookDeliveryPolicy,
  ) {}

  async fanOut(
    projectId: string,
    event: EndpointEvent,
    deliveries: ReadonlyArray<{ alertId: string; endpointIds: readonly string[] }>,
  ): Promise<void> {
    const pairs = deliveries.flatMap(({ alertId, endpointIds }) =>
      endpointIds.map((endpointId) => ({ alertId, endpointId })),
    );
    if (pairs.length === 0) return;
    const ids = await this.deliveries.createAlertDeliveries(
      projectId,
      event,
      pairs,
      this.clock.now(),
    );
    await this.enqueue(ids);
  }

  /**
   * Queues the deliveries' jobs. When the queue cannot take them, the deliveries are marked
   * failed rather than left pending forever with nothing to send them.
   */
  async enqueue(deliveryIds: readonly string[]): Promise<void> {
    if (deliveryIds.length === 0) return;
    try {
      await this.jobs.enqueueBulk(
        JobName.WebhookDeliver,
        deliveryIds.map((deliveryId) => ({
          data: { deliveryId },
          options: deliveryJobOptions(deliveryId, this.policy),
        })),
      );
    } catch (error) {
      await this.deliveries.abandonUnsent(deliveryIds, this.clock.now());
      throw error;
    }
  }
}
