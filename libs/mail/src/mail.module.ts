import { Module } from '@nestjs/common';
import { MailTransport } from './mail-transport.js';
import { Mailer } from './mailer.js';

/** For modules that send e-mail: only queues it (JobQueue comes from the global QueueModule). */
@Module({ providers: [Mailer], exports: [Mailer] })
export class MailModule {}

/** The SMTP transport, for what sends e-mail itself (the e-mail channel, digests). */
@Module({ providers: [MailTransport], exports: [MailTransport] })
export class MailerModule {}
