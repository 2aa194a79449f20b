import { Injectable } from '@nestjs/common';
import { JobName, JobQueue } from '@platform/queue';
import type { JobsOptions } from 'bullmq';

/** A provider outage delays a text or call by at most about half a minute: 2, 4, 8, 16 s. */
export const PHONE_JOB_OPTIONS: Readonly<JobsOptions> = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 2000 },
};

/** Queues SMS and voice calls for the worker; the caller never waits on the provider. */
@Injectable()
export class PhoneDispatcher {
  constructor(private readonly jobs: JobQueue) {}

  /** Resolves with the job id; `deliveryId` is the notification_delivery row to update. */
  sms(to: string, body: string, deliveryId?: string): Promise<string> {
    return this.jobs.enqueue(
      JobName.SendSms,
      deliveryId ? { to, body, deliveryId } : { to, body },
      PHONE_JOB_OPTIONS,
    );
  }

  /** Resolves with the job id; the call reads `text` aloud. */
  call(to: string, text: string, deliveryId?: string): Promise<string> {
    return this.jobs.enqueue(
      JobName.PhoneCall,
      deliveryId ? { to, text, deliveryId } : { to, text },
      PHONE_JOB_OPTIONS,
    );
  }
}
