import type { Logger } from '@nestjs/common';
import type { Job } from 'bullmq';
import { attemptDelivery, type DeliveryOutcome } from './delivery-attempt.js';
import type { DeliveriesRepository } from './deliveries.repository.js';
import { type WebhookChannel, WebhookRejected } from './webhook.channel.js';
import type { SendResult, SignedRequest } from './webhook-sender.js';

/** A webhook delivery as stored by its source, with what signing it takes. */
export interface StoredWebhook {
  deliveryId: string;
  url: string;
  /** The event; sent with its keys in the Standard Webhooks order (jsonb keeps none). */
  payload: { type: string; timestamp: string; data: unknown };
  secret: string;
  /** The secret before a rotation: it signs too until it expires. */
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
}

/** How an attempt is made: when, its timeout and agent, and the retry schedule. */
export interface WebhookAttemptOptions {
  startedAt: Date;
  timeoutMs: number;
  userAgent: string;
  /** How long after its `attempts`-th failed attempt the delivery is tried again. */
  retryDelayMs: (attempts: number) => number;
}

/**
 * One attempt of a webhook delivery kept in the delivery record (notification endpoints',
 * organization webhooks'): signed as Standard Webhooks prescribes (by both secrets during a
 * rotation), the request goes over the webhook channel under the one retry model
 * (attemptDelivery) and each outcome is recorded with the receiver's answer (status, excerpt,
 * duration) and, while it stays pending, when it is tried again. Answers the outcome and the
 * attempt's number, null when the delivery was gone (deleted with its webhook) before it was
 * recorded.
 */
export async function attemptWebhook(
  channel: WebhookChannel,
  records: Pick<DeliveriesRepository, 'record'>,
  webhook: StoredWebhook,
  options: WebhookAttemptOptions,
  job: Pick<Job, 'attemptsMade' | 'opts'>,
  logger: Pick<Logger, 'error'>,
): Promise<{ outcome: DeliveryOutcome; attempt: number | null }> {
  const { deliveryId } = webhook;
  const { startedAt } = options;
  const { type, timestamp, data } = webhook.payload;
  const secrets = [webhook.secret];
  if (
    webhook.previousSecret &&
    (webhook.previousSecretExpiresAt?.getTime() ?? 0) > startedAt.getTime()
  )
    secrets.push(webhook.previousSecret);
  // `webhook-id` is the delivery's id on every attempt, so receivers can drop repeats.
  const request: SignedRequest = {
    url: webhook.url,
    messageId: deliveryId,
    body: JSON.stringify({ type, timestamp, data }),
    timestamp: startedAt,
    secrets,
    timeoutMs: options.timeoutMs,
    userAgent: options.userAgent,
  };
  let recorded = null as number | null;
  const outcome = await attemptDelivery(
    channel,
    () => channel.send(request),
    job,
    async (settled) => {
      const answer = answerOf(settled);
      const pending = settled.status === 'pending';
      recorded = await records.record({
        deliveryId,
        status: settled.status === 'sent' || pending ? settled.status : 'failed',
        reason: answer.error,
        attempted: true,
        startedAt,
        durationMs: answer.durationMs,
        responseStatus: answer.status,
        responseBody: answer.responseBody,
        nextAttemptAt: pending
          ? new Date(startedAt.getTime() + options.retryDelayMs(job.attemptsMade + 1))
          : null,
        at: new Date(startedAt.getTime() + answer.durationMs),
      });
    },
    logger,
  );
  return { outcome, attempt: recorded };
}

/** Fails a webhook delivery without a request (`reason` says why), as one attempt. */
export function failWebhookUnsent(
  records: Pick<DeliveriesRepository, 'record'>,
  deliveryId: string,
  reason: string,
  at: Date,
): Promise<number | null> {
  return records.record({
    deliveryId,
    status: 'failed',
    reason,
    attempted: true,
    startedAt: at,
    durationMs: 0,
    responseStatus: null,
    responseBody: null,
    nextAttemptAt: null,
    at,
  });
}

/** The receiver's answer to an attempt, from the channel's receipt or rejection. */
function answerOf(outcome: DeliveryOutcome): Omit<SendResult, 'ok' | 'refused'> {
  const sent = outcome.receipt?.detail?.result as SendResult | undefined;
  const rejected = outcome.error instanceof WebhookRejected ? outcome.error.result : undefined;
  const result = sent ?? rejected;
  if (result) return result;
  return { status: null, responseBody: null, error: outcome.reason, durationMs: 0 };
}
