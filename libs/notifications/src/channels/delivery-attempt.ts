import type { Logger } from '@nestjs/common';
import { DeferJob } from '@platform/queue';
import type { Job } from 'bullmq';
import { type DeliveryChannel, isFinalAttempt, type Receipt } from './channel.js';

/**
 * How a delivery ended, or why its last attempt did not (`pending`): the one record shape every
 * source writes into the delivery record (DeliveriesRepository), whatever the source.
 */
export interface DeliveryOutcome {
  status: 'sent' | 'pending' | 'failed' | 'skipped';
  reason: string | null;
  /** Whether a send was attempted (counts as an attempt); a skip decided beforehand makes none. */
  attempted: boolean;
  receipt?: Receipt;
  /** What the failed send threw. */
  error?: unknown;
  /** How long the send took (elapsed time, not the clock's), when one was made. */
  durationMs?: number;
}

/** Writes an outcome into the delivery record (DeliveriesRepository), or keeps it for a batch's. */
export type RecordOutcome = (outcome: DeliveryOutcome) => Promise<void>;

/** A send that found nothing to do (the recipient's own rules said no); makes no attempt. */
export interface SkippedSend {
  skipped: string;
}

/**
 * The one retry model of every delivery: one attempt of `send` (usually `channel.send(message)`)
 * in `job`, its failures judged by `channel`.
 *
 * - Skipped (the send answered SkippedSend): recorded, nothing sent, no attempt counted.
 * - Sent: recorded; a failure to record is logged, not thrown, since sent is sent and BullMQ must
 *   not send it again.
 * - Over a rate limit (DeferJob): nothing recorded, the job waits without using an attempt.
 * - A failure the channel calls final (nothing can change by retrying): recorded `failed`, the job
 *   completes.
 * - Any other failure: recorded `pending` with its reason and rethrown, so BullMQ retries after
 *   its backoff; the final attempt records `failed` and leaves the job failed.
 */
export async function attemptDelivery(
  channel: Pick<DeliveryChannel<never>, 'name' | 'classify'>,
  send: () => Promise<Receipt | SkippedSend>,
  job: Pick<Job, 'attemptsMade' | 'opts'> | undefined,
  record: RecordOutcome,
  logger: Pick<Logger, 'error'>,
): Promise<DeliveryOutcome> {
  let receipt: Receipt | SkippedSend;
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    receipt = await send();
  } catch (error) {
    if (error instanceof DeferJob) throw error;
    const verdict = channel.classify(error);
    const outcome: DeliveryOutcome = {
      status: verdict.retry && !isFinalAttempt(job) ? 'pending' : 'failed',
      reason: verdict.reason,
      attempted: true,
      error,
      durationMs: elapsed(),
    };
    await record(outcome);
    if (verdict.retry) throw error;
    return outcome;
  }
  if ('skipped' in receipt) {
    const skipped: DeliveryOutcome = {
      status: 'skipped',
      reason: receipt.skipped,
      attempted: false,
    };
    await record(skipped);
    return skipped;
  }
  const outcome: DeliveryOutcome = {
    status: 'sent',
    reason: null,
    attempted: true,
    receipt,
    durationMs: elapsed(),
  };
  await record(outcome).catch((error: Error) =>
    logger.error(`${channel.name} delivery sent, but recording it failed: ${error.message}`),
  );
  return outcome;
}
