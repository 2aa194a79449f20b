import { Inject, Injectable, Logger } from '@nestjs/common';
import { Clock, MetricsService } from '@platform/core';
import { OutboundHttp } from '@platform/outbound';
import { JobName, type JobPayloads, OnJob } from '@platform/queue';
import type { Job } from 'bullmq';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';
import {
  backoffDelayMs,
  WEBHOOK_DELIVERY_POLICY,
  type WebhookDeliveryPolicy,
} from './webhook-policy.js';
import { sendSignedWebhook } from './webhook-sender.js';

export const WEBHOOK_USER_AGENT = 'Platform-Webhooks/1.0';

/** Thrown to make BullMQ retry the job after its backoff; the attempt is already recorded. */
export class WebhookAttemptFailed extends Error {
  constructor(deliveryId: string, attempt: number, reason: string) {
    super(`webhook delivery ${deliveryId} attempt ${attempt} failed: ${reason}`);
    this.name = 'WebhookAttemptFailed';
  }
}

/**
 * Sends one delivery: signs the stored payload as Standard Webhooks prescribes (`webhook-id`
 * is the delivery id on every attempt), POSTs it through the outbound client, and records
 * the attempt. A 2xx completes the delivery; anything else is retried through the job's
 * exponential backoff until the last attempt, which marks it failed. A URL the outbound
 * client refuses (its host resolves to a private address now, say) fails the delivery at
 * once, without a request: it is the endpoint's address, not the receiver, that must change.
 * A delivery of an alert event whose endpoint has been disabled since is not sent (a test
 * ping still is); one whose endpoint was deleted is gone.
 */
@Injectable()
export class WebhookDeliveryProcessor {
  private readonly logger = new Logger('webhooks');

  constructor(
    private readonly clock: Clock,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly outbound: OutboundHttp,
    @Inject(WEBHOOK_DELIVERY_POLICY) private readonly policy: WebhookDeliveryPolicy,
    private readonly metrics: MetricsService,
  ) {}

  @OnJob(JobName.WebhookDeliver)
  async deliver(data: JobPayloads[JobName.WebhookDeliver], job: Job): Promise<string> {
    const target = await this.deliveries.signingTarget(data.deliveryId);
    if (!target || target.status !== 'pending') return 'skipped';
    const startedAt = this.clock.now();
    if (!target.enabled && target.event !== 'endpoint.test') {
      await this.deliveries.recordAttempt({
        deliveryId: target.id,
        startedAt,
        responseStatus: null,
        responseBody: null,
        error: 'endpoint disabled before delivery',
        durationMs: 0,
        status: 'failed',
        nextAttemptAt: null,
      });
      return 'failed';
    }

    const secrets = [target.secret];
    if (
      target.previous_secret &&
      target.previous_secret_expires_at &&
      target.previous_secret_expires_at.getTime() > startedAt.getTime()
    ) {
      secrets.push(target.previous_secret);
    }
    // Top-level keys in the Standard Webhooks order; the stored jsonb does not keep order.
    const { type, timestamp, data: eventData } = target.payload;
    const result = await sendSignedWebhook(this.outbound, {
      url: target.url,
      messageId: target.id,
      body: JSON.stringify({ type, timestamp, data: eventData }),
      timestamp: startedAt,
      secrets,
      timeoutMs: this.policy.timeoutMs,
      userAgent: WEBHOOK_USER_AGENT,
    });

    this.metrics.countDelivery('webhook', result.ok ? 'sent' : 'failed');
    const failedBefore = job.attemptsMade;
    const last = failedBefore + 1 >= (job.opts.attempts ?? 1);
    const status = result.ok ? 'succeeded' : last || result.refused ? 'failed' : 'pending';
    const attempt = await this.deliveries.recordAttempt({
      deliveryId: target.id,
      startedAt,
      responseStatus: result.status,
      responseBody: result.responseBody,
      error: result.error,
      durationMs: result.durationMs,
      status,
      nextAttemptAt:
        status === 'pending'
          ? new Date(startedAt.getTime() + backoffDelayMs(failedBefore + 1, this.policy))
          : null,
    });
    if (attempt === null) return 'skipped';
    if (status === 'failed') {
      this.logger.warn(`webhook delivery ${target.id} failed after ${attempt} attempt(s)`);
    }
    if (status === 'pending') {
      throw new WebhookAttemptFailed(target.id, attempt, result.error ?? 'unknown');
    }
    return status;
  }
}
