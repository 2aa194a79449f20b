import { Injectable } from '@nestjs/common';
import { JobName, JobQueue } from '@platform/queue';
import type { JobsOptions } from 'bullmq';
import type { EmailJob } from './email.js';
import { messageIdLeft } from './mime.js';

/** An SMTP outage should delay mail, not lose it: seven retries over about four minutes. */
export const EMAIL_JOB_OPTIONS: Readonly<JobsOptions> = {
  attempts: 8,
  backoff: { type: 'exponential', delay: 2000 },
};

/**
 * The job options of one e-mail. A keyed message has a job id of its own, so queueing it again
 * (a sender repeating itself after a crash) while its job is still kept adds nothing.
 */
function jobOptions(message: EmailJob): JobsOptions {
  return message.messageKey
    ? { ...EMAIL_JOB_OPTIONS, jobId: `email-${messageIdLeft(message.messageKey)}` }
    : EMAIL_JOB_OPTIONS;
}

/** Queues an e-mail for the worker; the request that sends it never waits on SMTP. */
@Injectable()
export class Mailer {
  constructor(private readonly jobs: JobQueue) {}

  /** Resolves with the job id once the e-mail is queued. */
  send(message: EmailJob): Promise<string> {
    return this.jobs.enqueue(JobName.SendEmail, message, jobOptions(message));
  }

  /** Queues many e-mails in bulk round trips to Redis; one job (and retry budget) each. */
  async sendMany(messages: EmailJob[]): Promise<string[]> {
    if (messages.length === 0) return [];
    return this.jobs.enqueueBulk(
      JobName.SendEmail,
      messages.map((data) => ({ data, options: jobOptions(data) })),
    );
  }
}
