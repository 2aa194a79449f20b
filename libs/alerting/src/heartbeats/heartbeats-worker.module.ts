import { Module } from '@nestjs/common';
import { AlertIngestRepository } from '../ingest/alert-ingest.repository.js';
import { AlertIngestService } from '../ingest/alert-ingest.service.js';
import { IngestSeverityMapsRepository } from '../ingest/ingest-severity-maps.repository.js';
import { HeartbeatSweepProcessor } from './heartbeat-sweep.processor.js';
import { HeartbeatsRepository } from './heartbeats.repository.js';

/**
 * Worker side of heartbeats: the sweep that fires the alerts of missed pings, through the
 * ingest service without the ingest endpoint's HTTP module.
 */
@Module({
  providers: [
    AlertIngestRepository,
    AlertIngestService,
    IngestSeverityMapsRepository,
    HeartbeatsRepository,
    HeartbeatSweepProcessor,
  ],
})
export class HeartbeatsWorkerModule {}
