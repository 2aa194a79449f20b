import { Injectable } from '@nestjs/common';
import { JobName, OnJob } from '@platform/queue';
import type { EmailDelivery, EmailMessage } from './email.js';
import { MailTransport } from './mail-transport.js';

@Injectable()
export class MailProcessor {
  constructor(private readonly transport: MailTransport) {}

  /** An SMTP failure propagates, so BullMQ retries the job with its backoff. */
  @OnJob(JobName.SendEmail)
  async send(message: EmailMessage): Promise<EmailDelivery> {
    return this.transport.send(message);
  }
}
