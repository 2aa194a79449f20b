import { Module } from '@nestjs/common';
import { AuditModule } from '@platform/audit';
import { CapabilitiesModule } from '@platform/capabilities';
import { AlertsModule } from '../alerts/alerts.module.js';
import { AlertIngestModule } from '../ingest/alert-ingest.module.js';
import { AlertRoutesModule } from '../routes/alert-routes.module.js';
import { TestAlertJobs } from './test-alert-jobs.js';
import { TestAlertThrottle } from './test-alert-throttle.js';
import { TestAlertsController } from './test-alerts.controller.js';
import { TestAlertsRepository } from './test-alerts.repository.js';
import { TestAlertsService } from './test-alerts.service.js';

/** Test alerts: created through ingest, throttled, audited, resolved by the worker. */
@Module({
  imports: [AuditModule, CapabilitiesModule, AlertIngestModule, AlertRoutesModule, AlertsModule],
  controllers: [TestAlertsController],
  providers: [TestAlertsService, TestAlertThrottle, TestAlertsRepository, TestAlertJobs],
})
export class TestAlertsModule {}
