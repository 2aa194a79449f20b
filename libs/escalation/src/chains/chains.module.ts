import { Module } from '@nestjs/common';
import { CapabilitiesModule } from '@platform/capabilities';
import { ChainsController } from './chains.controller.js';
import { ChainsRepository } from './chains.repository.js';
import { ChainsService } from './chains.service.js';
import { EscalationStepsController } from './escalation-steps.controller.js';
import { EscalationStepsService } from './escalation-steps.service.js';
import { StepTargetsModule } from './step-targets.module.js';

/** Escalation chains and their steps, with clone and who each step would page now. */
@Module({
  imports: [CapabilitiesModule, StepTargetsModule],
  controllers: [ChainsController, EscalationStepsController],
  providers: [ChainsRepository, ChainsService, EscalationStepsService],
})
export class ChainsModule {}
