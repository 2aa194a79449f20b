import { Module } from '@nestjs/common';
import { CapabilitiesModule } from '@platform/capabilities';
import { IdentityModule } from '@platform/identity';
import { RateLimitsModule } from '@platform/rate-limits';
import { AlertIngestModule } from '../ingest/alert-ingest.module.js';
import { HeartbeatPingUrls } from './heartbeat-ping-urls.js';
import { HeartbeatPingsController } from './heartbeat-pings.controller.js';
import { HeartbeatPingsService } from './heartbeat-pings.service.js';
import { HeartbeatsController } from './heartbeats.controller.js';
import { HeartbeatsRepository } from './heartbeats.repository.js';
import { HeartbeatsService } from './heartbeats.service.js';

/** Heartbeat monitors and their public ping URL. */
@Module({
  imports: [IdentityModule, CapabilitiesModule, RateLimitsModule, AlertIngestModule],
  controllers: [HeartbeatsController, HeartbeatPingsController],
  providers: [HeartbeatsRepository, HeartbeatPingUrls, HeartbeatsService, HeartbeatPingsService],
})
export class HeartbeatsModule {}
