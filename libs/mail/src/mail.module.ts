import { Module } from '@nestjs/common';
import { MailProcessor } from './mail.processor.js';
import { MailTransport } from './mail-transport.js';
import { Mailer } from './mailer.js';

/** For modules that send e-mail: only queues it (JobQueue comes from the global QueueModule). */
@Module({ providers: [Mailer], exports: [Mailer] })
export class MailModule {}

/** For the worker: delivers queued e-mail. */
@Module({ providers: [MailTransport, MailProcessor], exports: [MailTransport] })
export class MailerModule {}
