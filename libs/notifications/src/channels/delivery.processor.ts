import { Injectable, Logger, Optional } from '@nestjs/common';
import { Batcher, Clock, forEachConcurrently, MetricsService } from '@platform/core';
import { EMAIL_JOB_OPTIONS, Mailer } from '@platform/mail';
import { JobName, type JobPayloads, OnJob } from '@platform/queue';
import type { Job } from 'bullmq';
import type { DeliveryChannel } from './channel.js';
import { ChannelRegistry } from './channel-registry.js';
import { attemptDelivery, type DeliveryOutcome, type RecordOutcome } from './delivery-attempt.js';
import { DeliveriesRepository, recordOf } from './deliveries.repository.js';

/** E-mails of one batch job sent at once (the SMTP pool queues what exceeds its connections). */
const EMAIL_CONCURRENCY = 20;
/** The first retry of a batched e-mail, as the e-mail job's backoff would wait. */
const EMAIL_RETRY_DELAY_MS = 2_000;
/** A batched e-mail's attempt is the first of EMAIL_JOB_OPTIONS.attempts. */
const FIRST_OF_EMAIL_ATTEMPTS = { attemptsMade: 0, opts: { attempts: EMAIL_JOB_OPTIONS.attempts } };

/** What a job keeps as its result: how the delivery ended, and the provider's id when sent. */
export interface DeliveryJobResult {
  outcome: DeliveryOutcome['status'];
  reason?: string;
  providerRef?: string;
}

/**
 * The jobs that carry their message: e-mail (notify(), sign-up, invitations, resets), texts and
 * calls. Each is one attempt of the one retry model (attemptDelivery); a job naming a delivery
 * (`deliveryId`, notify()'s) records every outcome on it and every attempt as its attempt row.
 */
@Injectable()
export class DeliveryProcessor {
  private readonly logger = new Logger('deliveries');

  constructor(
    private readonly channels: ChannelRegistry,
    private readonly deliveries: DeliveriesRepository,
    private readonly clock: Clock,
    private readonly mailer: Mailer,
    @Optional() private readonly metrics?: MetricsService,
  ) {}

  /** The outcomes of batched e-mails, written a statement per batch of them. */
  private readonly records = new Batcher<{ deliveryId: string; outcome: DeliveryOutcome }, void>(
    async (records) => {
      const now = this.clock.now();
      const found = await this.deliveries.recordMany(
        records.map((r) => recordOf(r.deliveryId, r.outcome, now)),
      );
      for (const { deliveryId } of records)
        if (!found.has(deliveryId)) this.logger.warn(`delivery ${deliveryId} is gone or settled`);
      return records.map(() => undefined);
    },
    { maxBatch: 500, intervalMs: 0 },
  );

  @OnJob(JobName.SendEmail)
  email(data: JobPayloads[JobName.SendEmail], job?: Job): Promise<DeliveryJobResult> {
    const { deliveryId, ...message } = data;
    return this.run(this.channels.get('email'), message, job, deliveryId);
  }

  /**
   * E-mails queued together (Mailer.sendMany), sent side by side over the pooled connections,
   * each with its own outcome recorded (the records of the batch in a few statements): a message
   * the server refused for good fails alone; one that may go through later is queued again as a
   * SendEmail job of its own, which goes on with the usual retries.
   */
  @OnJob(JobName.SendEmails)
  async emails(data: JobPayloads[JobName.SendEmails], job?: Job): Promise<Record<string, number>> {
    const channel = this.channels.get('email');
    const counts: Record<string, number> = {};
    const retries: Array<JobPayloads[JobName.SendEmail]> = [];
    await forEachConcurrently(data.messages, EMAIL_CONCURRENCY, async (queued) => {
      const { deliveryId, ...message } = queued;
      let status: string;
      try {
        const outcome = await attemptDelivery(
          channel,
          () => channel.send(message),
          FIRST_OF_EMAIL_ATTEMPTS,
          async (settled) => {
            if (deliveryId) await this.records.add({ deliveryId, outcome: settled });
          },
          this.logger,
        );
        status = outcome.status;
        if (status === 'sent' && job)
          this.metrics?.observeDeliveryLatency('email', 'notification', job.timestamp);
      } catch {
        // Recorded as pending; tried again by a job of its own.
        retries.push(queued);
        status = 'retry';
      }
      counts[status] = (counts[status] ?? 0) + 1;
    });
    await this.mailer.retry(retries, EMAIL_RETRY_DELAY_MS);
    return counts;
  }

  @OnJob(JobName.SendSms)
  sms(data: JobPayloads[JobName.SendSms], job?: Job): Promise<DeliveryJobResult> {
    return this.run(
      this.channels.get('sms'),
      { to: data.to, body: data.body },
      job,
      data.deliveryId,
    );
  }

  @OnJob(JobName.PhoneCall)
  call(data: JobPayloads[JobName.PhoneCall], job?: Job): Promise<DeliveryJobResult> {
    return this.run(
      this.channels.get('phone'),
      { to: data.to, text: data.text },
      job,
      data.deliveryId,
    );
  }

  private async run<M>(
    channel: DeliveryChannel<M>,
    message: M,
    job: Job | undefined,
    deliveryId: string | undefined,
  ): Promise<DeliveryJobResult> {
    const outcome = await attemptDelivery(
      channel,
      () => channel.send(message),
      job,
      this.recorder(deliveryId),
      this.logger,
    );
    // From the job's creation (the notification's), on the real time like the job's timestamp.
    if (outcome.status === 'sent' && job)
      this.metrics?.observeDeliveryLatency(channel.name, 'notification', job.timestamp);
    if (outcome.status === 'sent')
      return outcome.receipt?.providerRef
        ? { outcome: 'sent', providerRef: outcome.receipt.providerRef }
        : { outcome: 'sent' };
    this.logger.warn(`${channel.name} ${job?.id ?? ''} not sent: ${outcome.reason}`);
    return { outcome: outcome.status, reason: outcome.reason ?? undefined };
  }

  private recorder(deliveryId: string | undefined): RecordOutcome {
    return async (outcome) => {
      if (!deliveryId) return;
      const recorded = await this.deliveries.record(
        recordOf(deliveryId, outcome, this.clock.now()),
      );
      if (recorded === null) this.logger.warn(`delivery ${deliveryId} is gone or settled`);
    };
  }
}
