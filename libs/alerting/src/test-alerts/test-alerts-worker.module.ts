import { Module } from '@nestjs/common';
import { AlertIngestRepository } from '../ingest/alert-ingest.repository.js';
import { AlertIngestService } from '../ingest/alert-ingest.service.js';
import { IngestSeverityMapsRepository } from '../ingest/ingest-severity-maps.repository.js';
import { TestAlertJobs } from './test-alert-jobs.js';
import { TestAlertResolveProcessor } from './test-alert-resolve.processor.js';
import { TestAlertSweeper } from './test-alert-sweeper.js';
import { TestAlertsRepository } from './test-alerts.repository.js';

/**
 * Worker side of test alerts: their auto-resolution job and the sweep that keeps it enqueued.
 * Resolution goes through the ingest service, without the ingest endpoint's HTTP module.
 */
@Module({
  providers: [
    AlertIngestRepository,
    AlertIngestService,
    IngestSeverityMapsRepository,
    TestAlertsRepository,
    TestAlertJobs,
    TestAlertResolveProcessor,
    TestAlertSweeper,
  ],
})
export class TestAlertsWorkerModule {}
