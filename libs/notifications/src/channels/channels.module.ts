import { Module } from '@nestjs/common';
import { MailerModule } from '@platform/mail';
import { OutboundModule } from '@platform/outbound';
import { RateLimitsModule } from '@platform/rate-limits';
import { NotificationCenterRepository } from '../center/notification-center.repository.js';
import { PhoneProvider } from '../phone/phone-provider.js';
import { PhoneDispatcher } from '../phone/phone-dispatcher.js';
import { NotificationPushModule } from '../realtime/notification-push.module.js';
import { CHANNEL_TYPES, ChannelRegistry } from './channel-registry.js';
import { InAppFirst } from './in-app-first.js';

/**
 * Every delivery channel and the registry that finds them, and PhoneDispatcher, which queues
 * texts and calls for them. Sending is the worker's work; the API sends in-app notifications
 * itself (a notification is visible the moment notify() returns).
 */
@Module({
  imports: [NotificationPushModule, MailerModule, OutboundModule, RateLimitsModule],
  providers: [
    NotificationCenterRepository,
    PhoneProvider,
    PhoneDispatcher,
    ...Object.values(CHANNEL_TYPES),
    ChannelRegistry,
    InAppFirst,
  ],
  exports: [
    ChannelRegistry,
    InAppFirst,
    ...Object.values(CHANNEL_TYPES),
    NotificationCenterRepository,
    PhoneProvider,
    PhoneDispatcher,
  ],
})
export class ChannelsModule {}
