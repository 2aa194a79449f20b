import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { backoffDelayMs, WEBHOOK_USER_AGENT } from '@platform/alerting';
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
import { OrganizationWebhookDeliveriesRepository } from './deliveries.repository.js';
import { ORGANIZATION_WEBHOOK_POLICY, type OrganizationWebhookPolicy } from './delivery-policy.js';

/**
 * Sends one organization_webhook_delivery over the webhook channel, the pipeline notification
 * endpoints use: signs the stored payload as Standard Webhooks prescribes (`webhook-id` is the
 * delivery id on every attempt; during a signing-secret rotation both secrets sign) and records
 * each attempt with the receiver's answer. A 2xx completes the delivery; anything else is
 * retried through the job's exponential backoff until the last attempt marks it failed
 * (attemptDelivery). A URL the outbound client refuses now (its host resolves to a private
 * address, say) fails the delivery at once, without a request. A delivery whose webhook was
 * deleted is gone with it.
 */
@Injectable()
export class OrganizationWebhookDeliveryProcessor {
  private readonly logger = new Logger('organization-webhooks');

  constructor(
    private readonly clock: Clock,
    private readonly deliveries: OrganizationWebhookDeliveriesRepository,
    private readonly channels: ChannelRegistry,
    @Inject(ORGANIZATION_WEBHOOK_POLICY) private readonly policy: OrganizationWebhookPolicy,
    @Optional() private readonly metrics?: MetricsService,
  ) {}

  @OnJob(JobName.OrganizationWebhookDeliver)
  async deliver(data: JobPayloads[JobName.OrganizationWebhookDeliver], job: Job): Promise<string> {
    const target = await this.deliveries.signingTarget(data.deliveryId);
    if (!target || target.status !== 'pending') return 'skipped';
    const startedAt = this.clock.now();
    const secrets = [target.signing_secret];
    if (
      target.previous_signing_secret &&
      target.previous_signing_secret_expires_at &&
      target.previous_signing_secret_expires_at.getTime() > startedAt.getTime()
    )
      secrets.push(target.previous_signing_secret);
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
