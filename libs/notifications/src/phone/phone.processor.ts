import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '@platform/core';
import { DeferJob, JobName, type JobPayloads, OnJob } from '@platform/queue';
import type { Job } from 'bullmq';
import { PhoneDeliveriesRepository } from './phone-deliveries.repository.js';
import {
  PHONE_PROVIDER_NOT_CONFIGURED,
  PhoneProvider,
  PhoneProviderNotConfiguredError,
  type PhoneReceipt,
} from './phone-provider.js';

/** What a job returns: the provider's receipt, or why nothing was sent. */
export type PhoneJobResult =
  | ({ outcome: 'sent' } & PhoneReceipt)
  | { outcome: 'failed'; reason: typeof PHONE_PROVIDER_NOT_CONFIGURED };

/**
 * Sends queued SMS and calls. Each attempt is recorded on the job's notification_delivery row
 * (when it names one). Without a provider the delivery fails at once and the job completes:
 * retrying cannot help. Any other failure is thrown so BullMQ retries with backoff; the row
 * stays `queued` (with the last error as reason) until the final attempt marks it `failed`.
 */
@Injectable()
export class PhoneProcessor {
  private readonly logger = new Logger('phone');

  constructor(
    private readonly provider: PhoneProvider,
    private readonly deliveries: PhoneDeliveriesRepository,
    private readonly clock: Clock,
  ) {}

  @OnJob(JobName.SendSms)
  sendSms(data: JobPayloads[JobName.SendSms], job: Job): Promise<PhoneJobResult> {
    return this.run(data.deliveryId, job, () => this.provider.sendSms(data.to, data.body));
  }

  @OnJob(JobName.PhoneCall)
  call(data: JobPayloads[JobName.PhoneCall], job: Job): Promise<PhoneJobResult> {
    return this.run(data.deliveryId, job, () => this.provider.call(data.to, data.text));
  }

  private async run(
    deliveryId: string | undefined,
    job: Job,
    send: () => Promise<PhoneReceipt>,
  ): Promise<PhoneJobResult> {
    let receipt: PhoneReceipt;
    try {
      receipt = await send();
    } catch (error) {
      if (error instanceof DeferJob) throw error;
      if (error instanceof PhoneProviderNotConfiguredError) {
        this.logger.warn(`${job.name} ${job.id} not sent: ${error.message}`);
        await this.record(deliveryId, 'failed', error.reason);
        return { outcome: 'failed', reason: error.reason };
      }
      const finalAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      await this.record(deliveryId, finalAttempt ? 'failed' : 'queued', (error as Error).message);
      throw error;
    }
    // Sent is sent: a failure to record it must not make BullMQ send it again.
    await this.record(deliveryId, 'sent', null).catch((error: Error) =>
      this.logger.error(`${job.name} ${job.id} sent, but recording it failed: ${error.message}`),
    );
    return { outcome: 'sent', ...receipt };
  }

  private async record(
    deliveryId: string | undefined,
    status: 'queued' | 'sent' | 'failed',
    reason: string | null,
  ): Promise<void> {
    if (!deliveryId) return;
    const found = await this.deliveries.recordAttempt(
      deliveryId,
      status,
      reason?.slice(0, 500) ?? null,
      this.clock.now(),
    );
    if (!found) this.logger.warn(`delivery ${deliveryId} no longer exists`);
  }
}
