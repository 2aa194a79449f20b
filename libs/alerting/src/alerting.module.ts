import { Module } from '@nestjs/common';
import { AlertsModule } from './alerts/alerts.module.js';
import { NotificationEndpointsModule } from './endpoints/notification-endpoints.module.js';
import { HeartbeatsModule } from './heartbeats/heartbeats.module.js';
import { AlertIngestModule } from './ingest/alert-ingest.module.js';
import { AlertRoutesModule } from './routes/alert-routes.module.js';
import { TestAlertsModule } from './test-alerts/test-alerts.module.js';

/** The alerting API (second document of the spec); every route is behind the alerts capability. */
@Module({
  imports: [
    AlertIngestModule,
    AlertsModule,
    AlertRoutesModule,
    HeartbeatsModule,
    NotificationEndpointsModule,
    TestAlertsModule,
  ],
})
export class AlertingModule {}
