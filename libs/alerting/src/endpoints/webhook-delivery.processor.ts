import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { Clock, MetricsService } from '@platform/core';
import {
  attemptWebhook,
  ChannelRegistry,
  DeliveriesRepository,
  failWebhookUnsent,
} from '@platform/notifications';
import { JobName, type JobPayloads, OnJob } from '@platform/queue';
import type { Job } from 'bullmq';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';
import {
  backoffDelayMs,
  WEBHOOK_DELIVERY_POLICY,
  type WebhookDeliveryPolicy,
} from './webhook-policy.js';

export const WEBHOOK_USER_AGENT = 'Platform-Webhooks/1.0';

/**
 * Sends one webhook_delivery row over the webhook channel: signs the stored payload as Standard
 * Webhooks prescribes (`webhook-id` is the delivery id on every attempt) and records each attempt
 * with the receiver's answer. A 2xx completes the delivery; any other answer is retried through
 * the job's exponential backoff until the last attempt, which marks it failed (the one retry
 * model, attemptWebhook). A URL the outbound client refuses (its host resolves to a private
 * address now, say) fails the delivery at once, without a request. A delivery of an alert event
 * whose endpoint has been disabled since is not sent (a test ping still is); one whose endpoint
 * was deleted is gone.
 */
@Injectable()
export class WebhookDeliveryProcessor {
  private readonly logger = new Logger('webhooks');

  constructor(
    private readonly clock: Clock,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly records: DeliveriesRepository,
    private readonly channels: ChannelRegistry,
    @Inject(WEBHOOK_DELIVERY_POLICY) private readonly policy: WebhookDeliveryPolicy,
    @Optional() private readonly metrics?: MetricsService,
  ) {}

  @OnJob(JobName.WebhookDeliver)
  async deliver(data: JobPayloads[JobName.WebhookDeliver], job: Job): Promise<string> {
    const target = await this.deliveries.signingTarget(data.deliveryId);
    if (!target || target.status !== 'pending') return 'skipped';
    const startedAt = this.clock.now();
    if (!target.enabled && target.event !== 'endpoint.test') {
      await failWebhookUnsent(
        this.records,
        target.id,
        'endpoint disabled before delivery',
        startedAt,
      );
      return 'failed';
    }

    const { outcome, attempt } = await attemptWebhook(
      this.channels.get('webhook'),
      this.records,
      {
        deliveryId: target.id,
        url: target.url,
        payload: target.payload,
        secret: target.secret,
        previousSecret: target.previous_secret,
        previousSecretExpiresAt: target.previous_secret_expires_at,
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
    // From the job's creation (the event's), on the real time like the job's own timestamp.
    if (outcome.status === 'sent')
      this.metrics?.observeDeliveryLatency('webhook', 'webhook', job.timestamp);
    if (outcome.status === 'failed')
      this.logger.warn(`webhook delivery ${target.id} failed after ${attempt} attempt(s)`);
    return outcome.status === 'sent' ? 'succeeded' : outcome.status;
  }
}
