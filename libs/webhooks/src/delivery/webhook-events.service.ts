import { Inject, Injectable } from '@nestjs/common';
import { deliveryJobOptions } from '@platform/alerting';
import { Clock, Dependencies } from '@platform/core';
import { JobName, JobQueue } from '@platform/queue';
import {
  type EventClaim,
  OrganizationWebhookDeliveriesRepository,
} from './deliveries.repository.js';
import { ORGANIZATION_WEBHOOK_POLICY, type OrganizationWebhookPolicy } from './delivery-policy.js';

export type { EventClaim } from './deliveries.repository.js';

/** The events organization webhooks deliver. Values are sent and stored: never rename one. */
export const WEBHOOK_EVENT_TYPES = [
  'app.deployed',
  'app.failed',
  'cluster.ready',
  'server.active',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/**
 * What other libraries call to tell an organization's webhooks about its apps, clusters and
 * servers. `emit` writes one delivery per webhook of the organization, in one statement, then
 * queues one job per delivery whose id is the delivery id (so each is sent by exactly one job).
 * The body is the Standard Webhooks shape `{type, timestamp, data}` with `data` as given; the
 * worker signs it with the webhook's signing secret and retries with backoff, recording every
 * attempt. Delivery is at least once: receivers deduplicate on `webhook-id`.
 */
@Injectable()
export class WebhookEvents {
  constructor(
    private readonly clock: Clock,
    private readonly deliveries: OrganizationWebhookDeliveriesRepository,
    private readonly jobs: JobQueue,
    @Inject(ORGANIZATION_WEBHOOK_POLICY) private readonly policy: OrganizationWebhookPolicy,
    private readonly dependencies: Dependencies,
  ) {}

  /** Returns the ids of the deliveries made (none when the organization has no webhook). */
  async emit(
    organizationId: string,
    type: WebhookEventType,
    data: Record<string, unknown>,
  ): Promise<string[]> {
    const at = this.clock.now();
    const ids = await this.deliveries.createForOrganization(
      organizationId,
      type,
      { type, timestamp: at.toISOString(), data },
      at,
    );
    await this.enqueue(ids);
    return ids;
  }

  /**
   * `emit`, exactly once per transition however many callers see it: the claim and the
   * deliveries are written together, only when no one claimed the transition before (another
   * worker replica, or this one before a restart). Returns the deliveries made, or null when
   * the transition was told already. A claim is made even for an organization without
   * webhooks, so a webhook added later is not told of the past. While Redis is known to be
   * down it throws before claiming, so the caller's retry tells the event later rather than
   * claim it with deliveries no job can send.
   */
  async emitOnce(
    claim: EventClaim,
    organizationId: string,
    type: WebhookEventType,
    data: Record<string, unknown>,
  ): Promise<string[] | null> {
    this.dependencies.assertUp('redis');
    const at = this.clock.now();
    const ids = await this.deliveries.createOnce(
      claim,
      organizationId,
      type,
      { type, timestamp: at.toISOString(), data },
      at,
    );
    if (ids) await this.enqueue(ids);
    return ids;
  }

  /**
   * Queues the deliveries' jobs. When the queue cannot take them, the deliveries are marked
   * failed rather than left pending forever with nothing to send them.
   */
  private async enqueue(deliveryIds: readonly string[]): Promise<void> {
    if (deliveryIds.length === 0) return;
    try {
      await this.jobs.enqueueBulk(
        JobName.OrganizationWebhookDeliver,
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
