import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@platform/core';
import nodemailer, { type Transporter } from 'nodemailer';
import type { EmailDelivery, EmailMessage } from './email.js';

/** SMTP connections kept open and shared by concurrent sends (one process's pool). */
export const SMTP_MAX_CONNECTIONS = 10;

/**
 * Sends e-mail over SMTP_URL. Without one, the message goes to the log as one JSON line:
 * development and test setups still see every e-mail (and the tokens in it), and nothing is
 * lost silently.
 */
@Injectable()
export class MailTransport implements OnModuleDestroy {
  private readonly logger = new Logger('mail');
  private readonly smtp: Transporter | null;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    // Pooled: a connection serves many messages, instead of a TCP and SMTP handshake per e-mail.
    this.smtp = config.smtpUrl
      ? nodemailer.createTransport({
          url: config.smtpUrl,
          pool: true,
          maxConnections: SMTP_MAX_CONNECTIONS,
          maxMessages: Infinity,
        })
      : null;
  }

  async send(message: EmailMessage): Promise<EmailDelivery> {
    const email = { from: this.config.mailFrom, ...message };
    if (!this.smtp) {
      this.logger.log({ message: 'e-mail written to the log: SMTP_URL is unset', email });
      return { via: 'log' };
    }
    const info = (await this.smtp.sendMail(email)) as { messageId: string };
    return { via: 'smtp', messageId: info.messageId };
  }

  onModuleDestroy(): void {
    this.smtp?.close();
  }
}
