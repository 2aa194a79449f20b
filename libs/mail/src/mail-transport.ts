import { Readable } from 'node:stream';
import { Inject, Injectable, Logger, OnModuleDestroy, Optional } from '@nestjs/common';
import { APP_CONFIG, type AppConfig, MetricsService } from '@platform/core';
import SMTPPool from 'nodemailer/lib/smtp-pool';
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
 * A composed message as nodemailer's transports read it (the `mail.message` of its transport
 * interface): its envelope, its Message-ID and its text as a stream. The pool reads nothing
 * else of it; Mailer.sendMail would build a MailMessage and a MIME tree around text that is
 * already composed.
 */
class ComposedMessage {
  constructor(
    private readonly envelope: { from: string; to: string[] },
    private readonly id: string,
    private readonly text: string,
  ) {}

  getEnvelope() {
    return this.envelope;
  }

  messageId(): string {
    return `<${this.id}>`;
  }

  getHeader(key: string): string | undefined {
    return key.toLowerCase() === 'message-id' ? this.messageId() : undefined;
  }

  /** A fresh stream each call: a message requeued after a lost connection is read again. */
  createReadStream(): Readable {
    const stream = new Readable({ read() {} });
    stream.push(this.text);
    stream.push(null);
    return stream;
  }
}

/**
 * Sends e-mail over SMTP_URL through nodemailer's pooled SMTP transport (SMTPPool): up to
 * SMTP_MAX_CONNECTIONS sessions stay open and each sends one message after the other, its
 * envelope and DATA pipelined (RFC 2920) where the server offers it. A message the server
 * refuses fails alone; one whose reused session turns out closed is sent once more.
 *
 * Each message is composed here (libmime, libqp) and handed to the pool as it is
 * (ComposedMessage), through the transport interface nodemailer's Mailer itself uses: the
 * Mailer's compile step (a MailMessage, a MIME tree, a pipeline of streams per message) was a
 * third of a worker's CPU in a burst of pages for text that needed no more work
 * (bench:mail, bench:escalation in docs/performance.md). Without SMTP_URL, the message goes to
 * the log as one JSON line, so nothing is lost silently; the logger redacts the tokens and
 * links' secrets in it like in any other line (a setup that must follow the links points
 * SMTP_URL at a mail catcher).
 */
@Injectable()
export class MailTransport implements OnModuleDestroy {
  private readonly logger = new Logger('mail');
  private readonly smtp: SMTPPool | null;
  private readonly from: Mailbox;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Optional() private readonly metrics?: MetricsService,
  ) {
    this.smtp = config.smtpUrl
      ? new SMTPPool({
          url: config.smtpUrl,
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
    const composed = new ComposedMessage(
      { from: this.from.address, to: [to.address] },
      messageId,
      composeMime({ ...message, from: this.from, to, messageId, date: new Date() }),
    );
    try {
      await this.sendComposed(composed).catch((error: SmtpError) => {
        if (!isLostConnection(error)) throw error;
        return this.sendComposed(composed);
      });
    } catch (error) {
      this.metrics?.countDelivery('email', 'failed');
      throw error;
    }
    this.metrics?.countDelivery('email', 'sent');
    return { via: 'smtp', messageId };
  }

  private sendComposed(message: ComposedMessage): Promise<void> {
    // The pool's send takes the transport interface's mail: `data` (options the Mailer
    // resolved, none here) and `message`.
    const mail = { data: {}, message } as unknown as Parameters<SMTPPool['send']>[0];
    return new Promise((resolve, reject) =>
      this.smtp!.send(mail, (error) => (error ? reject(error) : resolve())),
    );
  }

  onModuleDestroy(): void {
    this.smtp?.close();
  }
}
