import type { Job } from 'bullmq';

/**
 * Every channel the platform delivers through, in one list: preferences, the delivery decision,
 * escalation steps, metrics and the channel registry all take their names from here.
 */
export const DELIVERY_CHANNELS = ['in_app', 'email', 'phone', 'sms', 'webhook'] as const;
export type DeliveryChannelName = (typeof DELIVERY_CHANNELS)[number];

/** The channels that reach a person (a webhook reaches a system, and has no preferences). */
export type PersonChannelName = Exclude<DeliveryChannelName, 'webhook'>;
export const PERSON_CHANNELS = DELIVERY_CHANNELS.filter(
  (name): name is PersonChannelName => name !== 'webhook',
);

/** What a channel answers for a message it handed over. */
export interface Receipt {
  /** The provider's id of the message (a Twilio SID, an SMTP Message-ID), when it gave one. */
  providerRef: string | null;
  /** The address actually used (the number dialled, the URL posted to). */
  address?: string | null;
  /** Channel-specific facts for the record (a webhook's response status and duration). */
  detail?: Readonly<Record<string, unknown>>;
}

/** What a failed send means for the delivery. */
export interface FailureVerdict {
  /** Whether another attempt can succeed; false fails the delivery at once. */
  retry: boolean;
  /** Recorded with the attempt. */
  reason: string;
}

/**
 * One way of reaching someone: knows how to send a message and what its failures mean. A send
 * that throws DeferJob (a rate limit) waits without using an attempt. A channel is one file
 * plus its line in `channel-registry.ts`.
 */
export interface DeliveryChannel<M> {
  readonly name: DeliveryChannelName;
  send(message: M): Promise<Receipt>;
  classify(error: unknown): FailureVerdict;
}

/** Whether this run of `job` is its last attempt (BullMQ counts attempts made before it). */
export function isFinalAttempt(job: Pick<Job, 'attemptsMade' | 'opts'> | undefined): boolean {
  return !job || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
}

/** The error's message, cut to what a delivery record keeps. */
export function failureReason(error: unknown): string {
  return ((error as Error)?.message ?? String(error)).slice(0, 500);
}
