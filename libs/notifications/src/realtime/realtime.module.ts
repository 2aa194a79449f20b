import { Module } from '@nestjs/common';
import { IdentityModule } from '@platform/identity';
import { CableAuthenticator } from './cable-authenticator.js';
import { CableCredentialWatch } from './cable-credential-watch.js';
import { NotificationPush } from './notification-push.js';
import { NotificationsCableGateway } from './notifications-cable.gateway.js';
import { PushRelay } from './push-relay.js';

/**
 * The Action Cable endpoint at /cable, the Redis fan-out of pushes and the re-check of the
 * credentials sockets are open on.
 */
@Module({
  imports: [IdentityModule],
  providers: [
    CableAuthenticator,
    NotificationsCableGateway,
    CableCredentialWatch,
    PushRelay,
    NotificationPush,
  ],
  exports: [NotificationPush],
})
export class RealtimeModule {}
