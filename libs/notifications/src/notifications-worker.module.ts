import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MailerModule } from '@platform/mail';
import { DigestProcessor } from './digest/digest.processor.js';
import { DigestRepository } from './digest/digest.repository.js';
import { NOTIFICATION_ENTITIES } from './entities.js';
import { PhoneWorkerModule } from './phone/phone-worker.module.js';

/** Worker side of notifications: digests and held e-mail, phone and SMS deliveries. */
@Module({
  imports: [TypeOrmModule.forFeature(NOTIFICATION_ENTITIES), MailerModule, PhoneWorkerModule],
  providers: [DigestRepository, DigestProcessor],
})
export class NotificationsWorkerModule {}
