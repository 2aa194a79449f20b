import { Injectable, Logger, Optional } from '@nestjs/common';
import { Clock, MetricsService } from '@platform/core';
import { JobName, type JobPayloads, OnJob } from '@platform/queue';
import type { Job } from 'bullmq';
import type { DeliveryChannel } from './channel.js';
import { ChannelRegistry } from './channel-registry.js';
import { attemptDelivery, type DeliveryOutcome, type RecordOutcome } from './delivery-attempt.js';
import { NotificationDeliveriesRepository } from './notification-deliveries.repository.js';

/** What a job keeps as its result: how the delivery ended, and the provider's id when sent. */
export interface DeliveryJobResult {
  outcome: DeliveryOutcome['status'];
  reason?: string;
  providerRef?: string;
}

/**
 * The jobs that carry their message: e-mail (notify(), sign-up, invitations, resets), texts and
 * calls. Each is one attempt of the one retry model (attemptDelivery); a job naming a
 * notification_delivery row (`deliveryId`) records every attempt there.
 */
@Injectable()
export class DeliveryProcessor {
  private readonly logger = new Logger('deliveries');

  constructor(
    private readonly channels: ChannelRegistry,
    private readonly deliveries: NotificationDeliveriesRepository,
    private readonly clock: Clock,
    @Optional() private readonly metrics?: MetricsService,
  ) {}

  @OnJob(JobName.SendEmail)
  email(data: JobPayloads[JobName.SendEmail], job?: Job): Promise<DeliveryJobResult> {
    const { deliveryId, ...message } = data;
    return this.run(this.channels.get('email'), message, job, deliveryId);
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
      const found = await this.deliveries.record(deliveryId, outcome, this.clock.now());
      if (!found) this.logger.warn(`delivery ${deliveryId} no longer exists`);
    };
  }
}
