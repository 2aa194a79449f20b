import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MailerModule, MailModule } from '@platform/mail';
import { ChannelsModule } from './channels/channels.module.js';
import { DeliveryProcessor } from './channels/delivery.processor.js';
import { DeliveriesRepository } from './channels/deliveries.repository.js';
import { DigestProcessor } from './digest/digest.processor.js';
import { DigestRepository } from './digest/digest.repository.js';
import { BroadcastsRepository } from './center/broadcasts.repository.js';
import { NOTIFICATION_ENTITIES } from './entities.js';
import { FanOutMessages } from './fan-out/fan-out-messages.js';
import { FanOutProcessor } from './fan-out/fan-out.processor.js';
import { FanOutRepository } from './fan-out/fan-out.repository.js';
import { FanOuts } from './fan-out/fan-outs.js';
import { PlatformIncidentsRepository } from './incidents/platform-incidents.repository.js';
import { NotifyModule } from './notify/notify.module.js';
import { RecipientsRepository } from './notify/recipients.repository.js';
import { SecurityNoticeProcessor } from './security/security-notice.processor.js';

/**
 * Worker side of notifications: e-mail, texts and calls, digests and held e-mail, and the
 * security notices identity enqueues, the fan-outs of platform incidents and broadcasts.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature(NOTIFICATION_ENTITIES),
    MailerModule,
    MailModule,
    ChannelsModule,
    NotifyModule,
  ],
  providers: [
    RecipientsRepository,
    SecurityNoticeProcessor,
    BroadcastsRepository,
    PlatformIncidentsRepository,
    FanOutRepository,
    FanOuts,
    FanOutMessages,
    FanOutProcessor,
    DigestRepository,
    DigestProcessor,
    DeliveriesRepository,
    DeliveryProcessor,
  ],
})
export class NotificationsWorkerModule {}
