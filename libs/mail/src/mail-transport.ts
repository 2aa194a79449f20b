import { Inject, Injectable, Logger, OnModuleDestroy, Optional } from '@nestjs/common';
import { APP_CONFIG, type AppConfig, MetricsService } from '@platform/core';
import type { EmailDelivery, EmailMessage } from './email.js';
import { composeMime, type Mailbox, parseMailboxes } from './mime.js';
import { SmtpPool } from './smtp-pool.js';

/**
 * SMTP connections kept open and shared by concurrent sends (one process's pool). A burst of
 * e-mail is bound by round trips per connection; 20 stays well under the per-client limits
 * MTAs apply by default (Postfix: 50).
 */
export const SMTP_MAX_CONNECTIONS = 20;

/**
 * Sends e-mail over SMTP_URL. Without one, the message goes to the log as one JSON line, so
 * nothing is lost silently; the logger redacts the tokens and links' secrets in it like in any
 * other line (a setup that must follow the links points SMTP_URL at a mail catcher).
 */
@Injectable()
export class MailTransport implements OnModuleDestroy {
  private readonly logger = new Logger('mail');
  private readonly smtp: SmtpPool | null;
  private readonly from: Mailbox;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Optional() private readonly metrics?: MetricsService,
  ) {
    this.from = parseMailboxes(config.mailFrom)[0];
    // Pooled: a connection serves many messages, instead of a TCP and SMTP handshake per e-mail.
    this.smtp = config.smtpUrl
      ? new SmtpPool({ url: config.smtpUrl, maxConnections: SMTP_MAX_CONNECTIONS })
      : null;
  }

  async send(message: EmailMessage): Promise<EmailDelivery> {
    if (!this.smtp) {
      const email = { from: this.config.mailFrom, ...message };
      this.logger.log({ message: 'e-mail written to the log: SMTP_URL is unset', email });
      return { via: 'log' };
    }
    const mime = composeMime(this.from, message);
    try {
      await this.smtp.send(mime.envelope, mime.raw);
    } catch (error) {
      this.metrics?.countDelivery('email', 'failed');
      throw error;
    }
    this.metrics?.countDelivery('email', 'sent');
    return { via: 'smtp', messageId: mime.messageId };
  }

  onModuleDestroy(): void {
    this.smtp?.close();
  }
}
