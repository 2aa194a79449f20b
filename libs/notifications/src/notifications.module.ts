import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AbsencesRepository } from './center/absences.repository.js';
import { BroadcastsRepository } from './center/broadcasts.repository.js';
import { BroadcastsService } from './center/broadcasts.service.js';
import { NotificationCenterController } from './center/center.controller.js';
import { NotificationCenterService } from './center/center.service.js';
import { PreferencesController } from './center/preferences.controller.js';
import { PreferencesRepository } from './center/preferences.repository.js';
import { ScheduleController } from './center/schedule.controller.js';
import { NOTIFICATION_ENTITIES } from './entities.js';
import { FanOutRepository } from './fan-out/fan-out.repository.js';
import { FanOuts } from './fan-out/fan-outs.js';
import { PlatformIncidentsController } from './incidents/platform-incidents.controller.js';
import { PlatformIncidentsRepository } from './incidents/platform-incidents.repository.js';
import { PlatformIncidentsService } from './incidents/platform-incidents.service.js';
import { NotifyModule } from './notify/notify.module.js';
import { PhoneModule } from './phone/phone.module.js';
import { RealtimeModule } from './realtime/realtime.module.js';

/**
 * The API's notifications: the notification center, preferences, schedules, absences,
 * broadcasts, platform incidents, phone numbers and the sockets, with `notify()` (NotifyModule,
 * which is what other modules import to notify).
 */
@Module({
  imports: [
    TypeOrmModule.forFeature(NOTIFICATION_ENTITIES),
    RealtimeModule,
    PhoneModule,
    NotifyModule,
  ],
  controllers: [
    NotificationCenterController,
    PreferencesController,
    ScheduleController,
    PlatformIncidentsController,
  ],
  providers: [
    NotificationCenterService,
    PreferencesRepository,
    AbsencesRepository,
    BroadcastsRepository,
    BroadcastsService,
    FanOutRepository,
    FanOuts,
    PlatformIncidentsRepository,
    PlatformIncidentsService,
  ],
  exports: [NotifyModule, PreferencesRepository, AbsencesRepository],
})
export class NotificationsModule {}
