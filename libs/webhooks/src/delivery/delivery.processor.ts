import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { backoffDelayMs, WEBHOOK_USER_AGENT } from '@platform/alerting';
import { Clock, MetricsService } from '@platform/core';
import { attemptWebhook, ChannelRegistry, DeliveriesRepository } from '@platform/notifications';
import { JobName, type JobPayloads, OnJob } from '@platform/queue';
import type { Job } from 'bullmq';
import { OrganizationWebhookDeliveriesRepository } from './deliveries.repository.js';
import { ORGANIZATION_WEBHOOK_POLICY, type OrganizationWebhookPolicy } from './delivery-policy.js';

/**
 * Sends one organization_webhook_delivery over the webhook channel, the pipeline notification
 * endpoints use: signs the stored payload as Standard Webhooks prescribes (`webhook-id` is the
 * delivery id on every attempt; during a signing-secret rotation both secrets sign) and records
 * each attempt with the receiver's answer. A 2xx completes the delivery; anything else is
 * retried through the job's exponential backoff until the last attempt marks it failed
 * (attemptWebhook, the one retry model). A URL the outbound client refuses now (its host
 * resolves to a private address, say) fails the delivery at once, without a request. A delivery
 * whose webhook was deleted is gone with it.
 */
@Injectable()
export class OrganizationWebhookDeliveryProcessor {
  private readonly logger = new Logger('organization-webhooks');

  constructor(
    private readonly clock: Clock,
    private readonly deliveries: OrganizationWebhookDeliveriesRepository,
    private readonly records: DeliveriesRepository,
    private readonly channels: ChannelRegistry,
    @Inject(ORGANIZATION_WEBHOOK_POLICY) private readonly policy: OrganizationWebhookPolicy,
    @Optional() private readonly metrics?: MetricsService,
  ) {}

  @OnJob(JobName.OrganizationWebhookDeliver)
  async deliver(data: JobPayloads[JobName.OrganizationWebhookDeliver], job: Job): Promise<string> {
    const target = await this.deliveries.signingTarget(data.deliveryId);
    if (!target || target.status !== 'pending') return 'skipped';
    const startedAt = this.clock.now();
    const { outcome, attempt } = await attemptWebhook(
      this.channels.get('webhook'),
      this.records,
      {
        deliveryId: target.id,
        url: target.url,
        payload: target.payload,
        secret: target.signing_secret,
        previousSecret: target.previous_signing_secret,
        previousSecretExpiresAt: target.previous_signing_secret_expires_at,
      },
      {
        startedAt,
        timeoutMs: this.policy.timeoutMs,
        userAgent: WEBHOOK_USER_AGENT,
        retryDelayMs: (attempts) => backoffDelayMs(attempts, this.policy),
      },
      job,
      this.logger,
    );
    if (attempt === null) return 'skipped';
    if (outcome.status === 'sent')
      this.metrics?.observeDeliveryLatency('webhook', 'webhook', job.timestamp);
    if (outcome.status === 'failed')
      this.logger.warn(`webhook delivery ${target.id} failed after ${attempt} attempt(s)`);
    return outcome.status === 'sent' ? 'succeeded' : outcome.status;
  }
}
