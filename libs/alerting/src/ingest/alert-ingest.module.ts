import { Module } from '@nestjs/common';
import { CapabilitiesModule } from '@platform/capabilities';
import { IdentityModule } from '@platform/identity';
import { AlertIngestController, IngestTokensController } from './alert-ingest.controller.js';
import { AlertIngestRepository } from './alert-ingest.repository.js';
import { AlertIngestService } from './alert-ingest.service.js';
import { IngestSeverityMapsRepository } from './ingest-severity-maps.repository.js';
import { IngestTokensService } from './ingest-tokens.service.js';

/** Ingest tokens and the Alertmanager ingest endpoint. */
@Module({
  imports: [IdentityModule, CapabilitiesModule],
  controllers: [AlertIngestController, IngestTokensController],
  providers: [
    AlertIngestRepository,
    AlertIngestService,
    IngestSeverityMapsRepository,
    IngestTokensService,
  ],
  exports: [AlertIngestService],
})
export class AlertIngestModule {}
