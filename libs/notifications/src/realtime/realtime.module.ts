import { Module } from '@nestjs/common';
import { IdentityModule } from '@platform/identity';
import { CableAuthenticator } from './cable-authenticator.js';
import { NotificationPush } from './notification-push.js';
import { NotificationsCableGateway } from './notifications-cable.gateway.js';
import { PushRelay } from './push-relay.js';

/** The Action Cable endpoint at /cable and the Redis fan-out of pushes. */
@Module({
  imports: [IdentityModule],
  providers: [CableAuthenticator, NotificationsCableGateway, PushRelay, NotificationPush],
  exports: [NotificationPush],
})
export class RealtimeModule {}
