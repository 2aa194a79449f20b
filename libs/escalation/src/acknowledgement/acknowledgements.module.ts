import { Module } from '@nestjs/common';
import { AlertsModule } from '@platform/alerting';
import { CapabilitiesModule } from '@platform/capabilities';
import { EscalationJobs } from '../engine/escalation-jobs.js';
import { AcknowledgementsController } from './acknowledgements.controller.js';
import { AcknowledgementsRepository } from './acknowledgements.repository.js';
import { AcknowledgementsService } from './acknowledgements.service.js';

/** Acknowledgement and un-acknowledgement; exports the service every ack channel goes through. */
@Module({
  imports: [CapabilitiesModule, AlertsModule],
  controllers: [AcknowledgementsController],
  providers: [AcknowledgementsRepository, AcknowledgementsService, EscalationJobs],
  exports: [AcknowledgementsService, EscalationJobs],
})
export class AcknowledgementsModule {}
