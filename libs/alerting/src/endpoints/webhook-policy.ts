import { randomBytes } from 'node:crypto';

/**
 * How webhook deliveries are attempted. Defaults: 8 attempts with exponential backoff from
 * one minute (1, 2, 4, ... 64 minutes apart, about two hours in all), 10 seconds per request;
 * after a rotation the previous secret keeps signing for 24 hours.
 */
export interface WebhookDeliveryPolicy {
  attempts: number;
  /** Delay before the first retry; each further retry waits twice as long. */
  backoffMs: number;
  timeoutMs: number;
  previousSecretGraceMs: number;
}

export const WEBHOOK_DELIVERY_POLICY = Symbol('WEBHOOK_DELIVERY_POLICY');

export const DEFAULT_WEBHOOK_DELIVERY_POLICY: WebhookDeliveryPolicy = {
  attempts: 8,
  backoffMs: 60_000,
  timeoutMs: 10_000,
  previousSecretGraceMs: 24 * 3_600_000,
};

export const webhookDeliveryPolicyProvider = {
  provide: WEBHOOK_DELIVERY_POLICY,
  useValue: DEFAULT_WEBHOOK_DELIVERY_POLICY,
};

/** The BullMQ options of one delivery job; the job id is the delivery id, so it runs once. */
export function deliveryJobOptions(deliveryId: string, policy: WebhookDeliveryPolicy) {
  return {
    jobId: deliveryId,
    attempts: policy.attempts,
    backoff: { type: 'exponential', delay: policy.backoffMs },
  };
}

/** BullMQ's exponential backoff: the wait after the `failedAttempts`-th failure. */
export function backoffDelayMs(failedAttempts: number, policy: WebhookDeliveryPolicy): number {
  return Math.round(2 ** (failedAttempts - 1) * policy.backoffMs);
}

/** A Standard Webhooks secret: `whsec_` and 32 random bytes in base64. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}
