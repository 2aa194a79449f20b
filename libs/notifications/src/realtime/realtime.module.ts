import { Module } from '@nestjs/common';
import { IdentityModule } from '@platform/identity';
import { CableAuthenticator } from './cable-authenticator.js';
import { CableCredentialWatch } from './cable-credential-watch.js';
import { NotificationPushModule } from './notification-push.module.js';
import { NotificationsCableGateway } from './notifications-cable.gateway.js';
import { PushRelay } from './push-relay.js';

/**
 * The Action Cable endpoint at /cable, the Redis fan-out of pushes to this replica's sockets and
 * the re-check of the credentials sockets are open on: the API's side of real time.
 */
@Module({
  imports: [IdentityModule, NotificationPushModule],
  providers: [CableAuthenticator, NotificationsCableGateway, CableCredentialWatch, PushRelay],
  exports: [NotificationPushModule],
})
export class RealtimeModule {}
