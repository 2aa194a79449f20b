import { Module } from '@nestjs/common';
import { NotifyModule } from '@platform/notifications';
import { OnCallModule } from '@platform/oncall';
import { AlertBundleFlusher } from './dispatch/alert-bundle-flusher.js';
import { AlertBundlesRepository } from './dispatch/alert-bundles.repository.js';
import { AlertDispatchSweepRepository } from './dispatch/alert-dispatch-sweep.repository.js';
import { AlertDispatchSweeper } from './dispatch/alert-dispatch-sweeper.js';
import { AlertDispatchProcessor } from './dispatch/alert-dispatch.processor.js';
import { AlertDispatchRepository } from './dispatch/alert-dispatch.repository.js';
import { NotificationEndpointsWorkerModule } from './endpoints/notification-endpoints-worker.module.js';
import { HeartbeatsWorkerModule } from './heartbeats/heartbeats-worker.module.js';
import { ResolutionBundler } from './dispatch/resolution-bundler.js';
import { AlertRoutesRepository } from './routes/alert-routes.repository.js';
import { SuppressionModule } from './suppression/suppression.module.js';
import { TestAlertsWorkerModule } from './test-alerts/test-alerts-worker.module.js';
import { AlertEventsRepository } from './timeline/alert-events.repository.js';

/**
 * Worker side of alerting: dispatch of ingested changes (routing, suppression, in-app
 * notification, endpoint fan-out) and the sweep that dispatches what Redis lost, webhook
 * deliveries, pruning, the auto-resolution of test alerts, the sweep of missed heartbeats, the flush of closed alert bundles. Dispatch needs `EscalationOpener`
 * from a global module (the escalation worker module binds it).
 */
@Module({
  imports: [
    SuppressionModule,
    NotificationEndpointsWorkerModule,
    NotifyModule,
    OnCallModule,
    TestAlertsWorkerModule,
    HeartbeatsWorkerModule,
  ],
  providers: [
    AlertBundleFlusher,
    AlertBundlesRepository,
    AlertDispatchProcessor,
    AlertDispatchRepository,
    AlertDispatchSweeper,
    AlertDispatchSweepRepository,
    AlertRoutesRepository,
    AlertEventsRepository,
    ResolutionBundler,
  ],
})
export class AlertingWorkerModule {}
