import { Inject, Injectable, Logger, OnModuleDestroy, Optional } from '@nestjs/common';
import { APP_CONFIG, type AppConfig, MetricsService } from '@platform/core';
import { createTransport, type SendMailOptions, type Transporter } from 'nodemailer';
import type { EmailDelivery, EmailMessage } from './email.js';
import { messageIdOf } from './message-id.js';
import { composeMime, type Mailbox, mailbox } from './mime.js';

/**
 * SMTP connections kept open and shared by concurrent sends (one process's pool). A burst of
 * e-mail is bound by round trips per connection; 20 stays well under the per-client limits
 * MTAs apply by default (Postfix: 50).
 */
export const SMTP_MAX_CONNECTIONS = 20;

type SmtpError = Error & { code?: string; responseCode?: number };

const CONNECTION_ERRORS = new Set(['ECONNECTION', 'ESOCKET', 'ETIMEDOUT']);

/**
 * The pooled connection went away under the message (the server closed an idle session, or
 * said 421) rather than the server refusing the message; a refused connection is not this.
 */
function isLostConnection(error: SmtpError): boolean {
  if (/ECONNREFUSED/.test(error.message)) return false;
  return error.responseCode === 421 || CONNECTION_ERRORS.has(error.code ?? '');
}

/**
 * Sends e-mail over SMTP_URL through nodemailer's pooled SMTP transport: up to
 * SMTP_MAX_CONNECTIONS sessions stay open and each sends one message after the other, without
 * a handshake per message. A message the server refuses fails alone; one whose reused session
 * turns out closed is sent once more.
 *
 * Each message goes to the transport composed (`raw`, with its envelope): handed the fields,
 * nodemailer builds a MIME tree per message and streams it to the socket in a dozen small
 * writes, which in a burst of pages cost several times the CPU of sending it (bench:mail,
 * bench:escalation in docs/performance.md). Without SMTP_URL, the message goes to the log as one
 * JSON line, so nothing is lost silently; the logger redacts the tokens and links' secrets in
 * it like in any other line (a setup that must follow the links points SMTP_URL at a mail
 * catcher).
 */
@Injectable()
export class MailTransport implements OnModuleDestroy {
  private readonly logger = new Logger('mail');
  private readonly smtp: Transporter | null;
  private readonly from: Mailbox;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Optional() private readonly metrics?: MetricsService,
  ) {
    this.smtp = config.smtpUrl
      ? createTransport({
          url: config.smtpUrl,
          pool: true,
          maxConnections: SMTP_MAX_CONNECTIONS,
          // A session serves messages until the server or the idle timeout ends it.
          maxMessages: Infinity,
          logger: false,
        })
      : null;
    this.from = mailbox(config.mailFrom);
  }

  async send(message: EmailMessage): Promise<EmailDelivery> {
    if (!this.smtp) {
      const email = { from: this.config.mailFrom, ...message };
      this.logger.log({ message: 'e-mail written to the log: SMTP_URL is unset', email });
      return { via: 'log' };
    }
    const messageId = messageIdOf(this.config.mailFrom, message.messageKey);
    const to = mailbox(message.to);
    const mail: SendMailOptions = {
      envelope: { from: this.from.address, to: [to.address] },
      raw: composeMime({ ...message, from: this.from, to, messageId, date: new Date() }),
      // Not written again: it spares the transport generating an id of its own.
      messageId,
    };
    try {
      await this.smtp.sendMail(mail).catch((error: SmtpError) => {
        if (!isLostConnection(error)) throw error;
        return this.smtp!.sendMail(mail);
      });
    } catch (error) {
      this.metrics?.countDelivery('email', 'failed');
      throw error;
    }
    this.metrics?.countDelivery('email', 'sent');
    return { via: 'smtp', messageId };
  }

  onModuleDestroy(): void {
    this.smtp?.close();
  }
}
