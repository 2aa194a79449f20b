import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MailModule } from '@platform/mail';
import { ScheduleRepository } from '../center/schedule.repository.js';
import { ChannelsModule } from '../channels/channels.module.js';
import { NOTIFICATION_ENTITIES } from '../entities.js';
import { NotifyService } from './notify.service.js';
import { RecipientsRepository } from './recipients.repository.js';

/**
 * `notify()` and the delivery channels, without the notification center's routes or the
 * sockets: what the modules that notify import (capabilities, alerting, escalation), in the API
 * and in the worker alike.
 */
@Module({
  imports: [TypeOrmModule.forFeature(NOTIFICATION_ENTITIES), MailModule, ChannelsModule],
  providers: [ScheduleRepository, RecipientsRepository, NotifyService],
  exports: [NotifyService, ScheduleRepository, ChannelsModule],
})
export class NotifyModule {}
