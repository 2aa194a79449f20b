import { Injectable } from '@nestjs/common';
import { JobName, JobQueue } from '@platform/queue';
import type { JobsOptions } from 'bullmq';
import type { EmailJob } from './email.js';
import { messageIdLeft } from './message-id.js';

/** Unkeyed e-mails queued together travel this many to a job (see Mailer.sendMany). */
export const EMAIL_BATCH = 100;

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

  /**
   * Queues many e-mails in bulk round trips to Redis: those without a `messageKey` EMAIL_BATCH
   * to a job (sent side by side, each with its own outcome and retries), keyed ones a job each
   * (the key names the job, so queueing one again adds nothing).
   */
  async sendMany(messages: EmailJob[]): Promise<void> {
    const keyed = messages.filter((message) => message.messageKey);
    const unkeyed = messages.filter((message) => !message.messageKey);
    const batches: EmailJob[][] = [];
    for (let n = 0; n < unkeyed.length; n += EMAIL_BATCH)
      batches.push(unkeyed.slice(n, n + EMAIL_BATCH));
    if (batches.length > 0)
      await this.jobs.enqueueBulk(
        JobName.SendEmails,
        batches.map((batch) => ({
          data: { messages: batch },
          // Each message retries on its own; the job is never run twice on purpose.
          options: { attempts: 1, removeOnComplete: true, removeOnFail: 1_000 },
        })),
      );
    if (keyed.length > 0)
      await this.jobs.enqueueBulk(
        JobName.SendEmail,
        keyed.map((data) => ({ data, options: jobOptions(data) })),
      );
  }

  /** Queues the e-mails of a batch that failed an attempt, a job each, after `delayMs`. */
  async retry(messages: EmailJob[], delayMs: number): Promise<void> {
    if (messages.length === 0) return;
    await this.jobs.enqueueBulk(
      JobName.SendEmail,
      messages.map((data) => ({
        data,
        // The batch made the first attempt.
        options: {
          ...EMAIL_JOB_OPTIONS,
          attempts: EMAIL_JOB_OPTIONS.attempts! - 1,
          delay: delayMs,
        },
      })),
    );
  }
}
