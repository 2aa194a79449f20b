import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AbsencesRepository } from './center/absences.repository.js';
import { BroadcastsRepository } from './center/broadcasts.repository.js';
import { NotificationCenterController } from './center/center.controller.js';
import { NotificationCenterService } from './center/center.service.js';
import { PreferencesController } from './center/preferences.controller.js';
import { PreferencesRepository } from './center/preferences.repository.js';
import { ScheduleController } from './center/schedule.controller.js';
import { ScheduleRepository } from './center/schedule.repository.js';
import { MailModule } from '@platform/mail';
import { NOTIFICATION_ENTITIES } from './entities.js';
import { NotifyService } from './notify/notify.service.js';
import { RecipientsRepository } from './notify/recipients.repository.js';
import { ChannelsModule } from './channels/channels.module.js';
import { PhoneModule } from './phone/phone.module.js';
import { RealtimeModule } from './realtime/realtime.module.js';

/** The notification center, preferences, schedules, absences, broadcasts and `notify()`. */
@Module({
  imports: [
    TypeOrmModule.forFeature(NOTIFICATION_ENTITIES),
    MailModule,
    RealtimeModule,
    PhoneModule,
    ChannelsModule,
  ],
  controllers: [NotificationCenterController, PreferencesController, ScheduleController],
  providers: [
    NotificationCenterService,
    PreferencesRepository,
    AbsencesRepository,
    BroadcastsRepository,
    ScheduleRepository,
    RecipientsRepository,
    NotifyService,
  ],
  exports: [
    ChannelsModule,
    PreferencesRepository,
    AbsencesRepository,
    ScheduleRepository,
    NotifyService,
  ],
})
export class NotificationsModule {}
