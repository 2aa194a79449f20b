import { Injectable } from '@nestjs/common';
import { type EmailMessage, MailTransport } from '@platform/mail';
import {
  type DeliveryChannel,
  type FailureVerdict,
  failureReason,
  type Receipt,
} from './channel.js';

/**
 * E-mail over the pooled SMTP connections (or into the log without SMTP_URL). Every failure is
 * retried: a server that is down or refuses for now is the usual case, and the backoff of the
 * e-mail job (about four minutes in all) bounds a message that will never be accepted.
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
    return { retry: true, reason: failureReason(error) };
  }
}
