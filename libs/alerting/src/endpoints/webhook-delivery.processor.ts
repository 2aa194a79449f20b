import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { Clock, MetricsService } from '@platform/core';
import {
  attemptDelivery,
  ChannelRegistry,
  type DeliveryOutcome,
  type SendResult,
  WebhookRejected,
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
 * model, attemptDelivery). A URL the outbound client refuses (its host resolves to a private
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
    // Set by the record callback: the attempt's number, null when the delivery was gone.
    let attempt = null as number | null;
    const channel = this.channels.get('webhook');
    const request = {
      url: target.url,
      messageId: target.id,
      body: JSON.stringify({ type, timestamp, data: eventData }),
      timestamp: startedAt,
      secrets,
      timeoutMs: this.policy.timeoutMs,
      userAgent: WEBHOOK_USER_AGENT,
    };
    const outcome = await attemptDelivery(
      channel,
      () => channel.send(request),
      job,
      async (settled) => {
        const answer = answerOf(settled);
        attempt = await this.deliveries.recordAttempt({
          deliveryId: target.id,
          startedAt,
          responseStatus: answer.status,
          responseBody: answer.responseBody,
          error: answer.error,
          durationMs: answer.durationMs,
          status:
            settled.status === 'sent'
              ? 'succeeded'
              : settled.status === 'pending'
                ? 'pending'
                : 'failed',
          nextAttemptAt:
            settled.status === 'pending'
              ? new Date(startedAt.getTime() + backoffDelayMs(job.attemptsMade + 1, this.policy))
              : null,
        });
      },
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

/** The receiver's answer to an attempt, from the channel's receipt or rejection. */
function answerOf(outcome: DeliveryOutcome): Omit<SendResult, 'ok' | 'refused'> {
  const sent = outcome.receipt?.detail?.result as SendResult | undefined;
  const rejected = outcome.error instanceof WebhookRejected ? outcome.error.result : undefined;
  const result = sent ?? rejected;
  if (result) return result;
  return { status: null, responseBody: null, error: outcome.reason, durationMs: 0 };
}
