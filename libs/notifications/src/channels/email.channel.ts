import { Injectable } from '@nestjs/common';
import { type EmailMessage, MailTransport } from '@platform/mail';
import {
  type DeliveryChannel,
  type FailureVerdict,
  failureReason,
  type Receipt,
} from './channel.js';

/**
 * E-mail over the pooled SMTP connections (or into the log without SMTP_URL). A permanent
 * refusal (a 5xx reply, e.g. 550 mailbox unavailable) fails the delivery at once: the same
 * message to the same mailbox will be refused again. Anything else (a server down, a 4xx
 * "try later", a dropped connection) is retried with the e-mail job's backoff, about four
 * minutes in all.
 */
@Injectable()
export class EmailChannel implements DeliveryChannel<EmailMessage> {
  readonly name = 'email';

  constructor(private readonly transport: MailTransport) {}

  async send(message: EmailMessage): Promise<Receipt> {
    const sent = await this.transport.send(message);
    return { providerRef: sent.via === 'smtp' ? sent.messageId : null, address: message.to };
  }

  classify(error: unknown): FailureVerdict {
    const reply = (error as { responseCode?: unknown } | null)?.responseCode;
    const permanent = typeof reply === 'number' && reply >= 500 && reply < 600;
    return { retry: !permanent, reason: failureReason(error) };
  }
}
